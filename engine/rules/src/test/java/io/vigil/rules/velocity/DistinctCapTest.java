package io.vigil.rules.velocity;

import io.vigil.rules.TestRulesets;
import io.vigil.rules.parse.ParseResult;
import io.vigil.rules.parse.RulesetFormat;
import io.vigil.rules.parse.Rulesets;
import io.vigil.rules.parse.ValidationError;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** A distinct threshold the engine's cap makes unreachable is a validation error, with its path. */
class DistinctCapTest {

    private static List<String> errors(String yaml, int cap) {
        return Rulesets.load(yaml.getBytes(StandardCharsets.UTF_8), RulesetFormat.YAML, null, null, cap).errors()
                .stream().map(ValidationError::toString).toList();
    }

    private static String distinctRule(String threshold, boolean enabled) {
        return """
                ruleset_key: CARD_AUTH
                ruleset_version: 1
                execution_mode: FIRST_MATCH
                rules:
                  - rule_id: plain
                    condition: {field: amount, op: gt, value: 50}
                    action: {decision: DECLINE, reason_code: R1}
                  - rule_id: many-cards
                    enabled: %s
                    velocity: {dimension: device_id, window_seconds: 60, aggregate: distinct, of: card_hash, threshold: %s}
                    action: {decision: DECLINE, reason_code: R2}
                """.formatted(enabled, threshold);
    }

    @Test
    void aDistinctThresholdAboveTheCapIsAnErrorWithItsPath() {
        assertThat(errors(distinctRule("11", true), 10)).containsExactly(
                "rules[1].velocity.threshold: a distinct count stops at the engine's distinct cap (10,"
                        + " vigil.velocity.distinct-cap), so a threshold of 11 can never be reached; use at most 10");
        assertThat(errors(distinctRule("10.5", true), 10)).as("a fraction above the cap").singleElement().asString()
                .contains("threshold of 10.5");
        assertThat(errors(distinctRule("10", true), 10)).as("a threshold equal to the cap can match").isEmpty();
        assertThat(errors(distinctRule("11", false), 10)).as("disabled rules are validated too").hasSize(1);
    }

    @Test
    void theDefaultCapIsTheEnginesDefault() {
        byte[] above = distinctRule(Integer.toString(DistinctCap.DEFAULT + 1), true).getBytes(StandardCharsets.UTF_8);
        assertThat(Rulesets.validate(above, RulesetFormat.YAML)).singleElement().asString()
                .contains("rules[1].velocity.threshold", "(" + DistinctCap.DEFAULT + ",");
        byte[] at = distinctRule(Integer.toString(DistinctCap.DEFAULT), true).getBytes(StandardCharsets.UTF_8);
        assertThat(Rulesets.validate(at, RulesetFormat.YAML)).isEmpty();
    }

    @Test
    void countAndSumThresholdsAreNotCapped() {
        String yaml = """
                ruleset_key: CARD_AUTH
                ruleset_version: 1
                execution_mode: FIRST_MATCH
                rules:
                  - rule_id: counts
                    velocity: {dimension: card_hash, window_seconds: 60, aggregate: count, threshold: 50}
                    action: {decision: DECLINE, reason_code: R1}
                  - rule_id: sums
                    velocity: {dimension: card_hash, window_seconds: 60, aggregate: sum, of: amount, threshold: 5000}
                    action: {decision: DECLINE, reason_code: R2}
                """;
        assertThat(errors(yaml, 10)).isEmpty();
    }

    @Test
    void theSampleRulesetsFitTheCapTheirThresholdsNeed() throws Exception {
        // the sample CARD_AUTH v2: distinct thresholds 6 (card merchants), 4 (device cards), 5 (email cards)
        byte[] sample = Files.readAllBytes(TestRulesets.rulesetsDir().resolve("CARD_AUTH/v2/ruleset.yaml"));
        assertThat(Rulesets.load(sample, RulesetFormat.YAML, null, null, DistinctCap.DEFAULT).errors()).isEmpty();
        assertThat(Rulesets.load(sample, RulesetFormat.YAML, null, null, 6).errors()).isEmpty();
        ParseResult capped = Rulesets.load(sample, RulesetFormat.YAML, null, null, 3);
        assertThat(capped.ruleset()).isNull();
        assertThat(capped.errors()).hasSize(3).allSatisfy(e -> assertThat(e.path()).endsWith(".velocity.threshold"));
    }

    @Test
    void aCapBelowOneIsRefused() {
        assertThatThrownBy(() -> Rulesets.load(new byte[0], RulesetFormat.YAML, null, null, 0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("distinct-cap must be at least 1, got 0");
    }
}
