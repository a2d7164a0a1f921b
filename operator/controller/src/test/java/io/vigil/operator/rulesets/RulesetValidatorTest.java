package io.vigil.operator.rulesets;

import static org.assertj.core.api.Assertions.assertThat;

import io.vigil.operator.Fixtures;
import io.vigil.operator.api.v1alpha1.FraudRuleset;
import io.vigil.operator.api.v1alpha1.FraudRulesetStatus;
import io.vigil.rules.parse.Rulesets;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class RulesetValidatorTest {

    private static FraudRuleset ruleset(String yaml) {
        return Fixtures.SERIALIZATION.unmarshal("""
                apiVersion: vigil.io/v1alpha1
                kind: FraudRuleset
                metadata: {name: t, namespace: ns, generation: 4}
                """ + yaml, FraudRuleset.class);
    }

    @Test
    void sampleRulesetsAreValidWithTheEnginesChecksum() throws Exception {
        for (FraudRuleset r : Fixtures.sampleRulesets("ns")) {
            FraudRulesetStatus s = FraudRulesetReconciler.statusOf(r);
            assertThat(s.errors).as(r.getMetadata().getName()).isEmpty();
            assertThat(s.valid).isTrue();
            assertThat(s.ruleCount).isPositive();
            assertThat(s.observedGeneration).isEqualTo(1L);
            // The checksum is the rules library's canonical one: the same as the engine computes from its own file.
            Path dir = Fixtures.repoRoot().resolve("engine/rulesets/" + r.getSpec().key + "/v" + r.getSpec().version);
            Path file = dir.resolve("ruleset.json").toFile().exists() ? dir.resolve("ruleset.json") : dir.resolve("ruleset.yaml");
            assertThat(s.checksum).isEqualTo(Rulesets.load(file).ruleset().checksum());
        }
    }

    @Test
    void everyErrorIsReportedWithItsPathUnderSpecDocument() {
        FraudRulesetStatus s = FraudRulesetReconciler.statusOf(ruleset("""
                spec:
                  key: CARD_AUTH
                  version: 9
                  document:
                    execution_mode: FIRST_MATCH
                    rules:
                      - rule_id: a
                        condition: {field: amount, op: neq, value: 1}
                        action: DECLINE
                      - rule_id: b
                        condition: {field: amout, op: gt, value: 1}
                        action: DECLINE
                """));
        assertThat(s.valid).isFalse();
        assertThat(s.checksum).isNull();
        assertThat(s.ruleCount).isNull();
        assertThat(s.observedGeneration).isEqualTo(4L);
        assertThat(s.errors).extracting(e -> e.path + ": " + e.message).containsExactly(
                "spec.document.rules[0].condition.op: unknown operator \"neq\" (did you mean \"ne\"?)",
                "spec.document.rules[1].condition.field: unknown field \"amout\" (did you mean \"amount\"?)");
    }

    @Test
    void aDistinctThresholdAboveTheDefaultCapIsRefusedWithItsPath() {
        // The operator knows no engine: it validates against the engine's default distinct cap (1,000).
        FraudRulesetStatus s = FraudRulesetReconciler.statusOf(ruleset("""
                spec:
                  key: CARD_AUTH
                  version: 9
                  document:
                    execution_mode: FIRST_MATCH
                    rules:
                      - rule_id: merchant-cards
                        velocity: {dimension: merchant_id, window_seconds: 3600, aggregate: distinct, of: card_hash, threshold: 1500}
                        action: {decision: REVIEW, reason_code: R1}
                """));
        assertThat(s.valid).isFalse();
        assertThat(s.errors).extracting(e -> e.path + ": " + e.message).containsExactly(
                "spec.document.rules[0].velocity.threshold: a distinct count stops at the engine's distinct cap (1000,"
                        + " vigil.velocity.distinct-cap), so a threshold of 1500 can never be reached; use at most 1000");
    }

    @Test
    void documentIdentityMustAgreeWithTheSpec() {
        FraudRulesetStatus s = FraudRulesetReconciler.statusOf(ruleset("""
                spec:
                  key: CARD_AUTH
                  version: 3
                  document:
                    ruleset_key: CARD_MONITORING
                    ruleset_version: 2
                    execution_mode: FIRST_MATCH
                    rules:
                      - {rule_id: a, condition: {field: amount, op: gt, value: 1}, action: DECLINE}
                """));
        assertThat(s.valid).isFalse();
        assertThat(s.errors).extracting(e -> e.path).containsExactly("spec.document.ruleset_key", "spec.document.ruleset_version");
    }

    @Test
    void identityFromTheSpecIsWrittenIntoTheEngineFile() {
        RulesetValidation v = RulesetValidator.validate(ruleset("""
                spec:
                  key: T
                  version: 5
                  document:
                    execution_mode: FIRST_MATCH
                    rules:
                      - {rule_id: a, condition: {field: shipping_address.postal_code, op: in, values: ["10001", "02134"]}, action: DECLINE}
                """));
        assertThat(v.valid()).as(String.valueOf(v.errors())).isTrue();
        assertThat(v.content()).startsWith("{\n  \"ruleset_key\" : \"T\",\n  \"ruleset_version\" : 5,");
        // Strings that look like numbers stay strings (a YAML re-rendering would not guarantee that).
        assertThat(v.content()).contains("\"10001\"", "\"02134\"");
    }
}
