package io.vigil.rules.velocity;

import io.vigil.rules.TestRulesets;
import io.vigil.rules.model.Rule;
import io.vigil.rules.model.RulesetDocument;
import io.vigil.rules.parse.ParseResult;
import io.vigil.rules.parse.Rulesets;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** Distinct rules a store's cap makes unreachable. */
class DistinctCapTest {

    @Test
    void distinctRulesWithAThresholdAboveTheCapAreFound() throws Exception {
        // the sample CARD_AUTH v2: distinct thresholds 6 (card merchants), 4 (device cards), 5 (email cards)
        ParseResult parsed = Rulesets.load(TestRulesets.rulesetsDir().resolve("CARD_AUTH/v2/ruleset.yaml"));
        assertThat(parsed.errors()).isEmpty();
        RulesetDocument document = parsed.ruleset().document();

        assertThat(DistinctCap.unreachable(document, 1000)).isEmpty();
        assertThat(DistinctCap.unreachable(document, 6)).as("a threshold equal to the cap can match").isEmpty();
        assertThat(DistinctCap.unreachable(document, 5)).extracting(Rule::ruleId)
                .containsExactly("card-1h-distinct-merchants");
        assertThat(DistinctCap.unreachable(document, 3)).extracting(Rule::ruleId)
                .containsExactly("card-1h-distinct-merchants", "device-1h-distinct-cards", "email-24h-distinct-cards");
    }

    @Test
    void disabledRulesAndOtherAggregatesAreNotReported() {
        RulesetDocument document = TestRulesets.yaml("""
                ruleset_key: CARD_AUTH
                ruleset_version: 1
                execution_mode: FIRST_MATCH
                rules:
                  - rule_id: switched-off
                    enabled: false
                    velocity: {dimension: device_id, window_seconds: 60, aggregate: distinct, of: card_hash, threshold: 50}
                    action: {decision: DECLINE, reason_code: R1}
                  - rule_id: counts
                    velocity: {dimension: card_hash, window_seconds: 60, aggregate: count, threshold: 50}
                    action: {decision: DECLINE, reason_code: R2}
                  - rule_id: plain
                    condition: {field: amount, op: gt, value: 50}
                    action: {decision: DECLINE, reason_code: R3}
                """).document();
        assertThat(DistinctCap.unreachable(document, 10)).isEmpty();
    }
}
