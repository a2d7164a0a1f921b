package io.vigil.operator;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.dataformat.yaml.YAMLGenerator;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.vigil.operator.api.v1alpha1.FraudEngine;
import io.vigil.operator.api.v1alpha1.FraudRuleset;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

/** Test inputs: FraudEngine fixtures, the sample FraudRulesets of the repository, and a stable YAML writer. */
public final class Fixtures {

    public static final KubernetesSerialization SERIALIZATION = new KubernetesSerialization();
    /** Sorted map keys and no nulls, so a golden file changes only when the desired state does. */
    private static final YAMLMapper YAML = (YAMLMapper) YAMLMapper.builder()
            .enable(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS)
            .disable(YAMLGenerator.Feature.WRITE_DOC_START_MARKER)
            .enable(YAMLGenerator.Feature.MINIMIZE_QUOTES)
            .enable(YAMLGenerator.Feature.ALWAYS_QUOTE_NUMBERS_AS_STRINGS)
            .enable(YAMLGenerator.Feature.LITERAL_BLOCK_STYLE)
            .serializationInclusion(JsonInclude.Include.NON_NULL)
            .build();

    private Fixtures() {
    }

    public static Path repoRoot() {
        return Path.of(System.getProperty("vigil.repo.root", "../..")).toAbsolutePath().normalize();
    }

    public static FraudEngine engine(String name) {
        return read(Path.of("src/test/resources/fixtures/engines", name + ".yaml"), FraudEngine.class);
    }

    /** The sample FraudEngine of environments/local, given the identity the API server would. */
    public static FraudEngine sampleEngine() {
        FraudEngine fe = read(repoRoot().resolve("environments/local/samples/fraudengine.yaml"), FraudEngine.class);
        fe.getMetadata().setNamespace("vigil-local");
        fe.getMetadata().setUid("00000000-0000-0000-0000-0000000000f0");
        fe.getMetadata().setGeneration(1L);
        return fe;
    }

    /** The sample FraudRulesets (converted from engine/rulesets), placed in {@code namespace}. */
    public static List<FraudRuleset> sampleRulesets(String namespace) {
        try (Stream<Path> files = Files.list(repoRoot().resolve("environments/local/samples/rulesets"))) {
            return files.filter(p -> p.toString().endsWith(".yaml")).sorted().map(p -> {
                FraudRuleset r = read(p, FraudRuleset.class);
                r.getMetadata().setNamespace(namespace);
                r.getMetadata().setGeneration(1L);
                return r;
            }).toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** CARD_AUTH v3 whose rule uses {@code neq}, which the native format refuses: a version the operator marks invalid. */
    public static FraudRuleset invalidCardAuthV3() {
        return SERIALIZATION.unmarshal("""
                apiVersion: vigil.io/v1alpha1
                kind: FraudRuleset
                metadata: {name: card-auth-v3}
                spec:
                  key: CARD_AUTH
                  version: 3
                  document:
                    execution_mode: FIRST_MATCH
                    rules: [{rule_id: typo, condition: {field: amount, op: neq, value: 1}, action: DECLINE}]
                """, FraudRuleset.class);
    }

    public static <T> T read(Path path, Class<T> type) {
        try {
            return SERIALIZATION.unmarshal(Files.readString(path), type);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public static String yaml(List<? extends HasMetadata> objects) {
        StringBuilder sb = new StringBuilder();
        for (HasMetadata o : objects) {
            try {
                // Through the fabric8 mapper first (its serializers), then re-emitted with sorted keys.
                Object tree = YAML.readValue(SERIALIZATION.asJson(o), Object.class);
                sb.append("---\n").append(YAML.writeValueAsString(tree));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return sb.toString();
    }
}
