package io.vigil.operator.loadtest;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The k6 sources of loadtests/k6, bundled into this module at build time (see the resources section of
 * operator/controller/pom.xml): the in-cluster runs execute exactly the scripts `make bench` runs.
 * A ConfigMap cannot hold folders, so the sources are flat and import each other as {@code ./x.js}.
 */
public final class LoadTestScripts {

    /** Classpath folder the build copies loadtests/k6/*.js into. */
    public static final String RESOURCE_DIR = "io/vigil/operator/loadtest/k6/";

    /** Every source file: the shared library and one entry script per scenario. */
    public static final List<String> FILES = List.of(
            "traffic.js", "slo.js", "vigil.js",
            "smoke.js", "constant.js", "ladder.js", "max.js", "spike.js", "soak.js", "mixed.js");

    private static final Map<String, String> SOURCES = load();

    private LoadTestScripts() {
    }

    /** File name → source, in {@link #FILES} order. */
    public static Map<String, String> all() {
        return SOURCES;
    }

    private static Map<String, String> load() {
        Map<String, String> sources = new LinkedHashMap<>();
        ClassLoader cl = LoadTestScripts.class.getClassLoader();
        for (String f : FILES) {
            try (InputStream in = cl.getResourceAsStream(RESOURCE_DIR + f)) {
                if (in == null) {
                    throw new IllegalStateException("k6 source " + RESOURCE_DIR + f
                            + " is not on the classpath: the operator build bundles loadtests/k6/*.js");
                }
                sources.put(f, new String(in.readAllBytes(), StandardCharsets.UTF_8));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return Collections.unmodifiableMap(sources);
    }
}
