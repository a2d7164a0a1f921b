package io.vigil.rules;

import static io.vigil.rules.TestRulesets.compiled;
import static io.vigil.rules.TestRulesets.eval;
import static io.vigil.rules.TestRulesets.evalWithVelocity;
import static io.vigil.rules.TestRulesets.txn;
import static io.vigil.rules.TestRulesets.yaml;
import static org.assertj.core.api.Assertions.assertThat;

import io.vigil.rules.eval.CompiledRuleset;
import io.vigil.rules.eval.EngineErrorCode;
import io.vigil.rules.eval.EngineMode;
import io.vigil.rules.eval.Evaluation;
import io.vigil.rules.eval.EvaluationType;
import io.vigil.rules.eval.MatchedRule;
import io.vigil.rules.eval.Outcome;
import io.vigil.rules.eval.VelocityFailurePolicy;
import io.vigil.rules.eval.VelocityResult;
import io.vigil.rules.parse.RulesetFormat;
import io.vigil.rules.parse.Rulesets;
import io.vigil.rules.velocity.Aggregate;
import io.vigil.rules.velocity.VelocityCheck;
import io.vigil.rules.velocity.VelocityResults;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** Ordering, scopes, modes, shadow rules, velocity semantics and policies, checksums. */
class EvaluationTest {

    private static final String SCOPED = """
            ruleset_key: S
            ruleset_version: 3
            execution_mode: %s
            rules:
              - {rule_id: global-high, priority: 1000, action: {decision: REVIEW, reason_code: GLOBAL}}
              - {rule_id: visa, priority: 1, scope: {network: [VISA]}, action: {decision: DECLINE, reason_code: VISA}}
              - {rule_id: bin-4147, priority: 5, scope: {bin: ["4147"]}, action: {decision: DECLINE, reason_code: BIN_4147}}
              - {rule_id: bin-41472, priority: 4, scope: {bin: ["41472"]}, action: {decision: DECLINE, reason_code: BIN_41472}}
              - {rule_id: visa-us, priority: 1, scope: {network: [VISA], country: [US]}, action: {decision: DECLINE, reason_code: VISA_US}}
              - {rule_id: visa-us-5411, priority: 1, scope: {network: [VISA], country: [US], mcc: ["5411"]}, action: {decision: DECLINE, reason_code: VISA_US_5411}}
              - {rule_id: gold-de, priority: 2, scope: {logo: [GOLD], country: [DE, AT]}, action: {decision: DECLINE, reason_code: GOLD_DE}}
              - {rule_id: amex-or-mc, priority: 9, scope: {network: [AMEX, MASTERCARD]}, action: {decision: DECLINE, reason_code: AMEX_MC}}
            """;

    @Test
    void specificityThenPriority() {
        CompiledRuleset rs = yaml(SCOPED.formatted("FIRST_MATCH"));
        // All three dimensions match: the most specific rule decides, ahead of a priority-1000 global rule.
        assertThat(eval(rs, tx("VISA", "US", "5411", "414720", null)).ruleId()).isEqualTo("visa-us-5411");
        assertThat(eval(rs, tx("VISA", "US", "5999", "414720", null)).ruleId()).isEqualTo("visa-us");
        // Same specificity (1): priority decides - bin-4147 (5) before bin-41472 (4) before visa (1).
        assertThat(eval(rs, tx("VISA", "FR", "5999", "414720", null)).ruleId()).isEqualTo("bin-4147");
        assertThat(eval(rs, tx("VISA", "FR", "5999", "999999", null)).ruleId()).isEqualTo("visa");
        assertThat(eval(rs, tx("DISCOVER", "FR", "5999", "999999", null)).ruleId()).isEqualTo("global-high");
        assertThat(eval(rs, tx("MASTERCARD", "FR", null, null, null)).ruleId()).isEqualTo("amex-or-mc");
    }

    @Test
    void combinedScopesNeedEveryDimension() {
        CompiledRuleset rs = yaml(SCOPED.formatted("ALL_MATCHING"));
        assertThat(ids(eval(rs, tx("VISA", "US", "5411", "414720", null)))).containsExactly(
                "visa-us-5411", "visa-us", "bin-4147", "bin-41472", "visa", "global-high");
        // country AT but logo missing: gold-de must not apply (the old engine never checked the second dimension).
        assertThat(ids(eval(rs, tx("DISCOVER", "AT", null, null, null)))).containsExactly("global-high");
        assertThat(ids(eval(rs, tx("DISCOVER", "AT", null, null, "GOLD")))).containsExactly("gold-de", "global-high");
        assertThat(ids(eval(rs, tx("DISCOVER", "FR", null, null, "GOLD")))).containsExactly("global-high");
        // A BIN prefix matches only as a prefix.
        assertThat(ids(eval(rs, tx(null, null, null, "414799", null)))).containsExactly("bin-4147", "global-high");
        assertThat(ids(eval(rs, tx(null, null, null, "441470", null)))).containsExactly("global-high");
        Evaluation all = eval(rs, tx("VISA", "US", "5411", "414720", null));
        assertThat(all.candidateRules()).isEqualTo(6);
        assertThat(all.ruleId()).as("ALL_MATCHING reports the first match as the decider").isEqualTo("visa-us-5411");
    }

    private static String tx(String network, String country, String mcc, String bin, String logo) {
        StringBuilder sb = new StringBuilder("{\"transaction_id\":\"t\"");
        if (network != null) {
            sb.append(",\"card_network\":\"").append(network).append('"');
        }
        if (country != null) {
            sb.append(",\"country_code\":\"").append(country).append('"');
        }
        if (mcc != null) {
            sb.append(",\"merchant_category_code\":\"").append(mcc).append('"');
        }
        if (bin != null) {
            sb.append(",\"card_bin\":\"").append(bin).append('"');
        }
        if (logo != null) {
            sb.append(",\"card_logo\":\"").append(logo).append('"');
        }
        return sb.append('}').toString();
    }

    private static java.util.List<String> ids(Evaluation e) {
        return e.matchedRules().stream().map(MatchedRule::ruleId).toList();
    }

    private static final String MODES = """
            ruleset_key: M
            ruleset_version: 1
            execution_mode: %s
            default_action: {decision: APPROVE, reason_code: NOTHING_MATCHED}
            rules:
              - {rule_id: shadow-big, priority: 100, mode: SHADOW, condition: {field: amount, op: gt, value: 100}, action: DECLINE}
              - {rule_id: big, priority: 50, condition: {field: amount, op: gt, value: 500}, action: {decision: REVIEW, reason_code: BIG}}
              - {rule_id: huge, priority: 40, condition: {field: amount, op: gt, value: 1000}, action: {decision: DECLINE, reason_code: HUGE}}
              - {rule_id: shadow-late, priority: 1, mode: SHADOW, condition: {field: amount, op: gt, value: 2000}, action: REVIEW}
              - {rule_id: off, priority: 200, enabled: false, condition: {field: amount, op: exists}, action: DECLINE}
            """;

    @Test
    void firstMatchDecidesWithTheFirstActiveMatchAndReportsShadowMatches() {
        CompiledRuleset rs = yaml(MODES.formatted("FIRST_MATCH"));
        assertThat(rs.ruleCount()).isEqualTo(4);
        Evaluation e = eval(rs, "{\"transaction_id\":\"t\",\"amount\":5000}");
        assertThat(e.decision()).isEqualTo(Outcome.REVIEW);
        assertThat(e.ruleId()).isEqualTo("big");
        assertThat(e.reasonCode()).isEqualTo("BIG");
        assertThat(e.matchedRules()).extracting(MatchedRule::ruleId, MatchedRule::shadow).containsExactly(
                org.assertj.core.groups.Tuple.tuple("shadow-big", true), org.assertj.core.groups.Tuple.tuple("big", false),
                org.assertj.core.groups.Tuple.tuple("shadow-late", true));
        assertThat(e.matchedRules().get(1)).isEqualTo(new MatchedRule("big", 1, 50, Outcome.REVIEW, "BIG", false));
        assertThat(e.mode()).isEqualTo(EngineMode.NORMAL);
        assertThat(e.rulesetKey()).isEqualTo("M");
        assertThat(e.rulesetVersion()).isEqualTo(1);
        assertThat(e.evaluationNanos()).isPositive();
    }

    @Test
    void shadowRulesNeverDecide() {
        CompiledRuleset rs = yaml(MODES.formatted("FIRST_MATCH"));
        Evaluation e = eval(rs, "{\"transaction_id\":\"t\",\"amount\":200}");
        assertThat(e.decision()).isEqualTo(Outcome.APPROVE);
        assertThat(e.ruleId()).isNull();
        assertThat(e.reasonCode()).isEqualTo("NOTHING_MATCHED");
        assertThat(ids(e)).containsExactly("shadow-big");
    }

    @Test
    void allMatchingReportsEveryMatchInOrder() {
        CompiledRuleset rs = yaml(MODES.formatted("ALL_MATCHING"));
        Evaluation e = eval(rs, "{\"transaction_id\":\"t\",\"amount\":5000}");
        assertThat(ids(e)).containsExactly("shadow-big", "big", "huge", "shadow-late");
        assertThat(e.decision()).isEqualTo(Outcome.REVIEW);
        assertThat(eval(rs, "{\"transaction_id\":\"t\",\"amount\":5}").matchedRules()).isEmpty();
    }

    private static final String VELOCITY = """
            ruleset_key: V
            ruleset_version: 1
            execution_mode: FIRST_MATCH
            %s
            rules:
              - rule_id: card-5m
                priority: 100
                condition: {field: card_present, op: eq, value: false}
                velocity: {dimension: card_hash, window_seconds: 300, threshold: 5}
                action: {decision: DECLINE, reason_code: CARD_5M}
              - rule_id: spend-24h
                priority: 90
                velocity: {dimension: card_hash, window_seconds: 86400, aggregate: sum, of: amount, threshold: 1000.50}
                action: {decision: REVIEW, reason_code: SPEND}
              - rule_id: merchants-1h
                priority: 80
                mode: SHADOW
                velocity: {dimension: card_hash, window_seconds: 3600, aggregate: distinct, of: merchant_id, threshold: 3}
                action: REVIEW
              - rule_id: plain
                priority: 50
                condition: {field: amount, op: gt, value: 10}
                action: {decision: REVIEW, reason_code: PLAIN}
              - rule_id: device-after-decider
                priority: 10
                velocity: {dimension: device_id, window_seconds: 600, threshold: 2}
                action: DECLINE
            """;

    private static final String CNP = "{\"transaction_id\":\"t9\",\"card_hash\":\"c\",\"device_id\":\"d\",\"amount\":250.25,"
            + "\"merchant_id\":\"m7\",\"card_present\":false}";

    @Test
    void velocityChecksCoverEveryApplicableVelocityRule() {
        CompiledRuleset.Pending p = yaml(VELOCITY.formatted("")).prepare(txn(CNP), EvaluationType.AUTH);
        assertThat(p.velocityRequest().checks()).containsExactly(
                new VelocityCheck("V", "card-5m", "card_hash", "c", 300, Aggregate.COUNT, 0, null, 5),
                new VelocityCheck("V", "spend-24h", "card_hash", "c", 86400, Aggregate.SUM, 250.25, null, 1000.5),
                new VelocityCheck("V", "merchants-1h", "card_hash", "c", 3600, Aggregate.DISTINCT, 0, "m7", 3),
                // after the plain decider, but still counted: counters see every matching transaction
                new VelocityCheck("V", "device-after-decider", "device_id", "d", 600, Aggregate.COUNT, 0, null, 2));
    }

    @Test
    void velocityRulesMatchOnlyAtTheirThreshold() {
        CompiledRuleset rs = yaml(VELOCITY.formatted(""));
        Evaluation below = decide(rs, CNP, 4, 1000, 2, 9);
        assertThat(below.ruleId()).isEqualTo("plain");
        assertThat(below.velocityResults()).extracting(VelocityResult::exceeded).containsExactly(false, false, false, true);
        assertThat(ids(below)).as("an ACTIVE velocity match after the decider is not reported").containsExactly("plain");

        Evaluation atThreshold = decide(rs, CNP, 5, 0, 0, 0);
        assertThat(atThreshold.ruleId()).isEqualTo("card-5m");
        assertThat(atThreshold.decision()).isEqualTo(Outcome.DECLINE);
        assertThat(atThreshold.velocityResults().get(0)).isEqualTo(
                new VelocityResult("card-5m", "card_hash", "c", 300, Aggregate.COUNT, 5, 5, true, true));

        Evaluation spend = decide(rs, CNP, 1, 1000.5, 3, 0);
        assertThat(spend.ruleId()).isEqualTo("spend-24h");
        assertThat(spend.matchedRules()).extracting(MatchedRule::ruleId, MatchedRule::shadow).containsExactly(
                org.assertj.core.groups.Tuple.tuple("spend-24h", false),
                org.assertj.core.groups.Tuple.tuple("merchants-1h", true));
    }

    @Test
    void missingDimensionMeansNoCheckAndNoMatch() {
        CompiledRuleset rs = yaml(VELOCITY.formatted(""));
        CompiledRuleset.Pending p = rs.prepare(txn("{\"transaction_id\":\"t\",\"amount\":5,\"card_present\":false}"),
                EvaluationType.AUTH);
        assertThat(p.velocityRequest()).isNull();
        Evaluation e = p.decide(null, VelocityFailurePolicy.EXCEEDED);
        assertThat(e.decision()).isEqualTo(Outcome.APPROVE);
        assertThat(e.mode()).isEqualTo(EngineMode.NORMAL);
        assertThat(e.velocityResults()).isEmpty();
    }

    @Test
    void failurePolicies() {
        CompiledRuleset rs = yaml(VELOCITY.formatted(""));
        Evaluation skip = rs.prepare(txn(CNP), EvaluationType.AUTH).decide(VelocityResults.unavailable("timeout"),
                VelocityFailurePolicy.SKIP);
        assertThat(skip.mode()).isEqualTo(EngineMode.DEGRADED);
        assertThat(skip.errorCode()).isEqualTo(EngineErrorCode.VELOCITY_UNAVAILABLE);
        assertThat(skip.ruleId()).isEqualTo("plain");
        assertThat(skip.velocityResults()).allSatisfy(v -> {
            assertThat(v.available()).isFalse();
            assertThat(v.exceeded()).isFalse();
        });

        Evaluation exceeded = rs.prepare(txn(CNP), EvaluationType.AUTH).decide(VelocityResults.unavailable("timeout"),
                VelocityFailurePolicy.EXCEEDED);
        assertThat(exceeded.mode()).isEqualTo(EngineMode.DEGRADED);
        assertThat(exceeded.ruleId()).isEqualTo("card-5m");
        assertThat(exceeded.velocityResults()).allSatisfy(v -> assertThat(v.exceeded()).isTrue());

        Evaluation nullResults = rs.prepare(txn(CNP), EvaluationType.AUTH).decide(null, null);
        assertThat(nullResults.mode()).as("checks without results are never a silent zero").isEqualTo(EngineMode.DEGRADED);
        assertThat(nullResults.ruleId()).isEqualTo("plain");

        Evaluation shortAnswer = rs.prepare(txn(CNP), EvaluationType.AUTH).decide(VelocityResults.of(new double[] {9}),
                VelocityFailurePolicy.SKIP);
        assertThat(shortAnswer.mode()).isEqualTo(EngineMode.DEGRADED);

        // The ruleset's own policy overrides the engine's.
        CompiledRuleset strict = yaml(VELOCITY.formatted("velocity_failure_policy: EXCEEDED"));
        assertThat(strict.velocityFailurePolicy()).isEqualTo(VelocityFailurePolicy.EXCEEDED);
        assertThat(strict.prepare(txn(CNP), EvaluationType.AUTH).decide(VelocityResults.unavailable("down"),
                VelocityFailurePolicy.SKIP).ruleId()).isEqualTo("card-5m");
        CompiledRuleset lenient = yaml(VELOCITY.formatted("velocity_failure_policy: skip"));
        assertThat(lenient.prepare(txn(CNP), EvaluationType.AUTH).decide(VelocityResults.unavailable("down"),
                VelocityFailurePolicy.EXCEEDED).ruleId()).isEqualTo("plain");
    }

    @Test
    void readOnlyRequestForSimulation() {
        CompiledRuleset.Pending p = yaml(VELOCITY.formatted("")).prepare(txn(CNP), EvaluationType.MONITORING);
        assertThat(p.readOnlyVelocityRequest().readOnly()).isTrue();
        assertThat(p.readOnlyVelocityRequest().checks()).isEqualTo(p.velocityRequest().checks());
        assertThat(p.velocityRequest().transactionId()).isEqualTo("t9");
    }

    private static Evaluation decide(CompiledRuleset rs, String json, double... values) {
        return rs.prepare(txn(json), EvaluationType.AUTH).decide(VelocityResults.of(values), VelocityFailurePolicy.SKIP);
    }

    @Test
    void numbersInTheRulesetCompareByValueWhateverTheSpelling() {
        for (String spelling : new String[] {"100", "100.0", "1e2", "100.000", "1.0E+2"}) {
            CompiledRuleset rs = TestRulesets.json("{\"ruleset_key\":\"N\",\"ruleset_version\":1,\"execution_mode\":\"FIRST_MATCH\","
                    + "\"rules\":[{\"rule_id\":\"r\",\"condition\":{\"field\":\"amount\",\"op\":\"in\",\"values\":[" + spelling
                    + ", 12.34]},\"action\":\"DECLINE\"}]}");
            assertThat(eval(rs, "{\"transaction_id\":\"t\",\"amount\":100}").decision()).as(spelling).isEqualTo(Outcome.DECLINE);
            assertThat(eval(rs, "{\"transaction_id\":\"t\",\"amount\":12.340}").decision()).as(spelling).isEqualTo(Outcome.DECLINE);
            assertThat(eval(rs, "{\"transaction_id\":\"t\",\"amount\":100.01}").decision()).as(spelling).isEqualTo(Outcome.APPROVE);
        }
    }

    @Test
    void checksumIgnoresFormattingKeyOrderAndSerialisation() {
        String json = "{\"ruleset_key\":\"K\",\"ruleset_version\":1,\"execution_mode\":\"FIRST_MATCH\",\"rules\":[{\"rule_id\":\"r\","
                + "\"condition\":{\"field\":\"amount\",\"op\":\"gt\",\"value\":100.0},\"action\":\"DECLINE\"}]}";
        String yaml = """
                rules:
                  - action: DECLINE
                    condition: {op: gt, field: amount, value: 100}
                    rule_id: r
                execution_mode: FIRST_MATCH
                ruleset_version: 1
                ruleset_key: K
                """;
        String a = compiled(json, RulesetFormat.JSON).checksum();
        assertThat(a).hasSize(64);
        assertThat(compiled(yaml, RulesetFormat.YAML).checksum()).isEqualTo(a);
        assertThat(compiled(json.replace("100.0", "101"), RulesetFormat.JSON).checksum()).isNotEqualTo(a);
        assertThat(Rulesets.read(json.getBytes(StandardCharsets.UTF_8), RulesetFormat.JSON).checksum()).isEqualTo(a);
    }

    @Test
    void yamlDoesNotTurnCountryCodesIntoBooleans() {
        CompiledRuleset rs = yaml("""
                ruleset_key: Y
                ruleset_version: 1
                execution_mode: FIRST_MATCH
                rules:
                  - rule_id: norway
                    scope: {country: [NO]}
                    condition: {field: billing_address.country, op: in, values: [NO, ON, YES]}
                    action: DECLINE
                """);
        assertThat(eval(rs, "{\"transaction_id\":\"t\",\"country_code\":\"NO\",\"billing_address\":{\"country\":\"NO\"}}")
                .decision()).isEqualTo(Outcome.DECLINE);
    }

    @Test
    void ruleWithoutConditionAppliesToItsWholeScope() {
        CompiledRuleset rs = yaml("""
                ruleset_key: C
                ruleset_version: 1
                execution_mode: FIRST_MATCH
                country: DE
                default_action: REVIEW
                rules:
                  - {rule_id: crypto, scope: {mcc: ["6051"]}, action: DECLINE}
                """);
        assertThat(rs.country()).isEqualTo("DE");
        assertThat(eval(rs, "{\"transaction_id\":\"t\",\"merchant_category_code\":\"6051\"}").decision()).isEqualTo(Outcome.DECLINE);
        assertThat(eval(rs, "{\"transaction_id\":\"t\"}").decision()).isEqualTo(Outcome.REVIEW);
    }

    @Test
    void traceExplainsEveryRule() {
        CompiledRuleset rs = yaml(SCOPED.formatted("FIRST_MATCH").replace(
                "- {rule_id: global-high, priority: 1000, action:",
                "- {rule_id: global-high, priority: 1000, condition: {and: [{field: email, op: exists}, "
                        + "{field: custom_fields.score, op: gt, value: 1}]}, action:"));
        java.util.List<io.vigil.rules.eval.RuleTrace> trace = rs.trace(txn(tx("VISA", "US", "5999", "999999", null)));
        assertThat(trace).extracting(io.vigil.rules.eval.RuleTrace::ruleId).containsExactly(
                "visa-us-5411", "gold-de", "visa-us", "amex-or-mc", "bin-4147", "bin-41472", "visa", "global-high");
        assertThat(trace.get(0).inScope()).isFalse();
        assertThat(trace.get(1).inScope()).isFalse();
        assertThat(trace.get(2).holds()).isTrue();
        assertThat(trace.get(2).position()).isEqualTo(2);
        assertThat(trace.get(0).specificity()).isEqualTo(3);
        io.vigil.rules.eval.RuleTrace global = trace.get(7);
        assertThat(global.inScope()).isTrue();
        assertThat(global.condition()).isEqualTo("FALSE");
        assertThat(global.missingFields()).containsExactly("email", "custom_fields");
    }

    @Test
    void manyRulesSpanSeveralBitsetWords() {
        StringBuilder sb = new StringBuilder("{\"ruleset_key\":\"W\",\"ruleset_version\":1,\"execution_mode\":\"ALL_MATCHING\",\"rules\":[");
        for (int i = 0; i < 150; i++) {
            sb.append(i == 0 ? "" : ",").append("{\"rule_id\":\"r").append(i).append("\",\"priority\":").append(-i)
                    .append(i % 2 == 0 ? ",\"scope\":{\"mcc\":[\"" + (1000 + i % 7) + "\"]}" : "")
                    .append(",\"condition\":{\"field\":\"amount\",\"op\":\"gte\",\"value\":").append(i).append("},\"action\":\"REVIEW\"}");
        }
        CompiledRuleset rs = TestRulesets.json(sb.append("]}").toString());
        Evaluation e = eval(rs, "{\"transaction_id\":\"t\",\"amount\":140,\"merchant_category_code\":\"1003\"}");
        // odd rules 1..139 (70) are global; even rules with mcc 1003 are i % 7 == 3 and even: 10, 24, ..., 136 (10 of them)
        long expectedScoped = java.util.stream.IntStream.rangeClosed(0, 140).filter(i -> i % 2 == 0 && i % 7 == 3).count();
        assertThat(e.matchedRules()).hasSize((int) (70 + expectedScoped));
        assertThat(e.matchedRules().get(0).ruleId()).isEqualTo("r10");
        assertThat(e.candidateRules()).isEqualTo(75 + (int) java.util.stream.IntStream.range(0, 150)
                .filter(i -> i % 2 == 0 && i % 7 == 3).count());
    }
}
