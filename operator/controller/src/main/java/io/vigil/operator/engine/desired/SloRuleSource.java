package io.vigil.operator.engine.desired;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.fabric8.openshift.api.model.monitoring.v1.PrometheusRuleSpec;
import io.vigil.operator.api.v1alpha1.Durations;
import io.vigil.operator.api.v1alpha1.FraudEngine;
import io.vigil.operator.api.v1alpha1.SloSpec;
import io.vigil.operator.engine.Names;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * The SLO rules of a FraudEngine from the one rule source shared with the vigil-engine chart, the
 * local Prometheus and the promtool tests: charts/vigil-engine/files/rules/vigil-slo.rules.yaml, packaged
 * into this module as {@value #RESOURCE}. Its ${...} placeholders (documented in that file) are
 * substituted by plain text replacement, exactly as the chart does, so both render identical rules.
 */
public final class SloRuleSource {
    public static final String RESOURCE = "io/vigil/operator/observability/rules/vigil-slo.rules.yaml";
    /** Boundaries of the engine's vigil_evaluate_seconds histogram (EngineMetrics.LATENCY_BUCKETS), in ms. */
    static final Set<Double> BUCKET_MS = Set.of(0.05, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1.0, 1.5, 2.0, 3.0, 5.0, 7.5, 10.0, 20.0, 50.0, 100.0);
    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory())
            .configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);
    private static final String SOURCE = load();

    private SloRuleSource() {
    }

    /** The placeholder values for a FraudEngine (names as Names and the ServiceMonitor produce them). */
    public static Map<String, String> values(FraudEngine fe) {
        SloSpec slo = fe.getSpec().slo;
        String ns = fe.getMetadata().getNamespace();
        Map<String, String> v = new LinkedHashMap<>();
        v.put("engineSelector", "namespace=\"" + ns + "\",job=\"" + Names.engineManagement(fe) + "\"");
        v.put("relaySelector", "namespace=\"" + ns + "\",job=\"" + Names.relay(fe) + "-management\"");
        v.put("engine", fe.getMetadata().getName());
        v.put("namespace", ns);
        v.put("availabilityPercent", stripZero(slo.availability));
        v.put("p50Le", le("p50Ms", slo.p50Ms));
        v.put("p95Le", le("p95Ms", slo.p95Ms));
        v.put("p99Le", le("p99Ms", slo.p99Ms));
        v.put("windowHours", Long.toString(Durations.parse(slo.window).toHours()));
        v.put("window", slo.window);
        return v;
    }

    /** The rendered rule file (a Prometheus rule file: {@code groups: [...]}). */
    public static String render(FraudEngine fe) {
        String text = SOURCE;
        for (Map.Entry<String, String> e : values(fe).entrySet()) {
            text = text.replace("${" + e.getKey() + "}", e.getValue());
        }
        return text;
    }

    /** The rendered rules as a PrometheusRule spec. */
    public static PrometheusRuleSpec spec(FraudEngine fe) {
        try {
            return YAML.readValue(render(fe), PrometheusRuleSpec.class);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * The engine histogram's {@code le} label for an objective: only bucket boundaries can be counted
     * exactly, so anything else is refused with the field named (a status condition, not silent rules
     * that never fire). The spelling is Java's, as the engine's /q/metrics prints it.
     */
    static String le(String field, Double ms) {
        if (ms == null || !BUCKET_MS.contains(ms)) {
            throw new IllegalArgumentException("spec.slo." + field + ": " + ms + " ms is not a boundary of the engine's latency histogram "
                    + "(one of 0.05, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1, 1.5, 2, 3, 5, 7.5, 10, 20, 50, 100)");
        }
        return Double.toString(ms / 1000.0);
    }

    private static String stripZero(Double d) {
        String s = Double.toString(d);
        return s.endsWith(".0") ? s.substring(0, s.length() - 2) : s;
    }

    private static String load() {
        try (InputStream in = SloRuleSource.class.getClassLoader().getResourceAsStream(RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException("missing resource " + RESOURCE + " (packaged from charts/vigil-engine/files/rules)");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
