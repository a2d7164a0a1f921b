package io.vigil.operator.loadtest;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.dataformat.yaml.YAMLGenerator;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.vigil.operator.api.v1alpha1.FraudEngine;
import io.vigil.operator.api.v1alpha1.FraudEngineSpec;
import io.vigil.operator.api.v1alpha1.FraudLoadTest;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** Test inputs of the load-test reconciler: FraudLoadTest fixtures, a target engine, a stable YAML writer. */
final class LoadTests {
    static final KubernetesSerialization SERIALIZATION = new KubernetesSerialization();
    static final YAMLMapper YAML = (YAMLMapper) YAMLMapper.builder()
            .enable(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS)
            .disable(YAMLGenerator.Feature.WRITE_DOC_START_MARKER)
            .enable(YAMLGenerator.Feature.MINIMIZE_QUOTES)
            .enable(YAMLGenerator.Feature.ALWAYS_QUOTE_NUMBERS_AS_STRINGS)
            .serializationInclusion(JsonInclude.Include.NON_NULL)
            .build();

    private LoadTests() {
    }

    static Path repoRoot() {
        return Path.of(System.getProperty("vigil.repo.root", "../..")).toAbsolutePath().normalize();
    }

    static FraudLoadTest fixture(String name) {
        try {
            return SERIALIZATION.unmarshal(Files.readString(Path.of("src/test/resources/fixtures/loadtests", name + ".yaml")),
                    FraudLoadTest.class);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A FraudEngine named {@code fraud} with the default SLO (p50 2, p95 5, p99 10 ms, 99.9%). */
    static FraudEngine engine(String namespace) {
        FraudEngine fe = new FraudEngine();
        fe.setMetadata(new ObjectMetaBuilder().withName("fraud").withNamespace(namespace)
                .withUid("00000000-0000-0000-0000-0000000000f1").withGeneration(1L).build());
        fe.setSpec(new FraudEngineSpec());
        return fe;
    }

    static String yaml(Object o) {
        try {
            // Through the Kubernetes serialization first so model objects become plain trees.
            return YAML.writeValueAsString(YAML.readTree(SERIALIZATION.asJson(o)));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
