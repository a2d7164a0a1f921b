package io.vigil.operator.api;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import io.vigil.operator.api.v1alpha1.FraudEngineSpec;
import io.vigil.operator.api.v1alpha1.FraudLoadTestSpec;
import io.vigil.operator.api.v1alpha1.FraudRulesetSpec;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** What the generated CRDs promise: defaults equal to the Java model's, the CEL rules, status subresource, columns. */
class CrdSchemaTest {

    private static final ObjectMapper JSON = JsonMapper.builder().build();

    static JsonNode crd(String plural) throws IOException {
        Path dir = Path.of(System.getProperty("vigil.crds.generated", "target/classes/META-INF/fabric8"));
        return new YAMLMapper().readTree(dir.resolve(plural + ".vigil.io-v1.yml").toFile());
    }

    static JsonNode version(JsonNode crd) {
        return crd.path("spec").path("versions").get(0);
    }

    static JsonNode specSchema(String plural) throws IOException {
        return version(crd(plural)).path("schema").path("openAPIV3Schema").path("properties").path("spec");
    }

    @Test
    void everySchemaDefaultIsTheJavaDefault() throws IOException {
        assertDefaultsMatch(specSchema("fraudengines"), JSON.valueToTree(new FraudEngineSpec()), "spec");
        assertDefaultsMatch(specSchema("fraudloadtests"), JSON.valueToTree(new FraudLoadTestSpec()), "spec");
    }

    /** Walks the schema; wherever it declares a default, the freshly constructed Java object must hold the same value. */
    private static void assertDefaultsMatch(JsonNode schema, JsonNode java, String path) {
        if (schema.has("default") && !path.equals("spec")) {
            assertThat(java).as("Java default of " + path).isNotNull();
            assertThat(numbersAsDouble(java)).as("default of " + path).isEqualTo(numbersAsDouble(schema.get("default")));
        }
        JsonNode props = schema.path("properties");
        for (Iterator<Map.Entry<String, JsonNode>> it = props.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            JsonNode child = java == null ? null : java.get(e.getKey());
            if (child != null && !child.isNull()) {
                assertDefaultsMatch(e.getValue(), child, path + "." + e.getKey());
            } else {
                assertThat(e.getValue().has("default")).as(path + "." + e.getKey() + " has a schema default but no Java default").isFalse();
            }
        }
    }

    private static JsonNode numbersAsDouble(JsonNode n) {
        if (n.isNumber()) {
            return JSON.getNodeFactory().numberNode(n.asDouble());
        }
        if (n.isObject()) {
            var o = JSON.createObjectNode();
            n.fields().forEachRemaining(e -> o.set(e.getKey(), numbersAsDouble(e.getValue())));
            return o;
        }
        return n;
    }

    @Test
    void celRulesAreInTheSchema() throws IOException {
        List<String> rules = new ArrayList<>();
        collectRules(specSchema("fraudengines"), rules);
        assertThat(rules).contains(
                "self.p50Ms <= self.p95Ms && self.p95Ms <= self.p99Ms",
                "self.minReplicas <= self.maxReplicas",
                "has(self.managed) != has(self.external)",
                "!(has(self.replicas) && has(self.autoscaling))",
                "self.all(r, self.exists_one(s, s.key == r.key))");

        JsonNode version = specSchema("fraudrulesets").path("properties").path("version");
        assertThat(version.path("x-kubernetes-validations").get(0).path("rule").asText()).isEqualTo("self == oldSelf");
        assertThat(specSchema("fraudrulesets").path("properties").path("document").path("x-kubernetes-preserve-unknown-fields").asBoolean()).isTrue();
    }

    private static void collectRules(JsonNode schema, List<String> into) {
        schema.path("x-kubernetes-validations").forEach(v -> into.add(v.path("rule").asText()));
        schema.path("properties").forEach(p -> collectRules(p, into));
        if (schema.has("items")) {
            collectRules(schema.get("items"), into);
        }
    }

    @Test
    void aFraudEngineNeedsASpecWithAtLeastOneRuleset() throws IOException {
        JsonNode root = version(crd("fraudengines")).path("schema").path("openAPIV3Schema");
        assertThat(root.path("required")).extracting(JsonNode::asText).contains("spec");
        JsonNode spec = root.path("properties").path("spec");
        assertThat(spec.path("required")).extracting(JsonNode::asText).contains("rulesets");
        assertThat(spec.path("properties").path("rulesets").path("minItems").asInt()).isEqualTo(1);
    }

    @Test
    void theIdempotencyWindowIsAPositiveDurationOfTenMinutesByDefault() throws IOException {
        JsonNode window = specSchema("fraudengines").path("properties").path("velocity").path("properties").path("idempotencyWindow");
        assertThat(window.path("default").asText()).isEqualTo("10m");
        java.util.regex.Pattern pattern = java.util.regex.Pattern.compile(window.path("pattern").asText());
        assertThat(List.of("10m", "90s", "27h", "2d", "1ms")).allMatch(v -> pattern.matcher(v).find());
        // zero would keep no marker at all (the engine refuses it at start): the apiserver refuses it first
        assertThat(List.of("0m", "0s", "10", "10 min", "-5m", "1.5h", "")).noneMatch(v -> pattern.matcher(v).find());
    }

    @Test
    void statusSubresourceAndPrinterColumns() throws IOException {
        for (String plural : List.of("fraudengines", "fraudrulesets", "fraudloadtests")) {
            JsonNode v = version(crd(plural));
            assertThat(v.path("subresources").has("status")).as(plural + " status subresource").isTrue();
        }
        List<String> columns = new ArrayList<>();
        version(crd("fraudengines")).path("additionalPrinterColumns").forEach(c -> columns.add(c.path("name").asText()));
        assertThat(columns).contains("Ready", "Rulesets", "Replicas", "Age");
    }

    @Test
    void rulesetDocumentIsFreeForm() {
        FraudRulesetSpec spec = new FraudRulesetSpec();
        assertThat(JSON.valueToTree(spec).path("document").isObject()).isTrue();
    }
}
