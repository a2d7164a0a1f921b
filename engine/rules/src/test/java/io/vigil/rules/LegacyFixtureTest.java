package io.vigil.rules;

import static io.vigil.rules.TestRulesets.file;
import static io.vigil.rules.TestRulesets.rulesetsDir;
import static io.vigil.rules.TestRulesets.txn;
import static org.assertj.core.api.Assertions.assertThat;

import io.vigil.rules.eval.CompiledRuleset;
import io.vigil.rules.eval.EngineErrorCode;
import io.vigil.rules.eval.EngineMode;
import io.vigil.rules.eval.Evaluation;
import io.vigil.rules.eval.EvaluationType;
import io.vigil.rules.eval.Outcome;
import io.vigil.rules.eval.VelocityFailurePolicy;
import io.vigil.rules.model.ExecutionMode;
import io.vigil.rules.velocity.Aggregate;
import io.vigil.rules.velocity.VelocityCheck;
import io.vigil.rules.velocity.VelocityResults;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The existing engine's e2e fixture (CARD_AUTH v1) loads unchanged and behaves as ADR 0003 says. */
class LegacyFixtureTest {
    static CompiledRuleset rs;

    @BeforeAll
    static void load() throws Exception {
        rs = file(rulesetsDir().resolve("CARD_AUTH/v1/ruleset.json"));
    }

    @Test
    void loadsUnchanged() {
        assertThat(rs.key()).isEqualTo("CARD_AUTH");
        assertThat(rs.version()).isEqualTo(1);
        assertThat(rs.executionMode()).isEqualTo(ExecutionMode.FIRST_MATCH);
        assertThat(rs.ruleCount()).isEqualTo(3);
        assertThat(rs.document().legacy()).isTrue();
        assertThat(rs.checksum()).hasSize(64).matches("[0-9a-f]+");
    }

    @Test
    void everyTransactionIsCheckedOnBothCardWindows() {
        CompiledRuleset.Pending p = rs.prepare(txn("{\"transaction_id\":\"t1\",\"card_hash\":\"c1\"}"), EvaluationType.AUTH);
        assertThat(p.velocityRequest()).isNotNull();
        assertThat(p.velocityRequest().transactionId()).isEqualTo("t1");
        assertThat(p.velocityRequest().readOnly()).isFalse();
        assertThat(p.readOnlyVelocityRequest().readOnly()).isTrue();
        // Evaluation order: priority 100 (5 min) before priority 50 (1 h).
        assertThat(p.velocityRequest().checks()).containsExactly(
                new VelocityCheck("CARD_AUTH", "card-5min-velocity", "card_hash", "c1", 300, Aggregate.COUNT, 0, null, 10),
                new VelocityCheck("CARD_AUTH", "card-1h-velocity", "card_hash", "c1", 3600, Aggregate.COUNT, 0, null, 20));
    }

    @Test
    void belowThresholdFallsThroughToAlwaysApprove() {
        Evaluation e = decide(9, 19);
        assertThat(e.decision()).isEqualTo(Outcome.APPROVE);
        assertThat(e.ruleId()).isEqualTo("always-approve");
        assertThat(e.mode()).isEqualTo(EngineMode.NORMAL);
        assertThat(e.errorCode()).isNull();
        assertThat(e.velocityResults()).extracting(v -> v.exceeded()).containsExactly(false, false);
        assertThat(e.velocityResults()).extracting(v -> v.value()).containsExactly(9.0, 19.0);
    }

    @Test
    void fiveMinuteThresholdReachedDeclines() {
        Evaluation e = decide(10, 10);
        assertThat(e.decision()).isEqualTo(Outcome.DECLINE);
        assertThat(e.ruleId()).isEqualTo("card-5min-velocity");
        assertThat(e.matchedRules()).extracting(m -> m.ruleId()).containsExactly("card-5min-velocity");
    }

    @Test
    void oneHourThresholdReachedDeclines() {
        Evaluation e = decide(3, 20);
        assertThat(e.decision()).isEqualTo(Outcome.DECLINE);
        assertThat(e.ruleId()).isEqualTo("card-1h-velocity");
    }

    @Test
    void noCardHashMeansNoCheckAndApprove() {
        CompiledRuleset.Pending p = rs.prepare(txn("{\"transaction_id\":\"t1\"}"), EvaluationType.AUTH);
        assertThat(p.velocityRequest()).isNull();
        Evaluation e = p.decide(null, VelocityFailurePolicy.SKIP);
        assertThat(e.decision()).isEqualTo(Outcome.APPROVE);
        assertThat(e.mode()).isEqualTo(EngineMode.NORMAL);
    }

    @Test
    void storeUnavailableIsDegradedNeverASilentZero() {
        CompiledRuleset.Pending p = rs.prepare(txn("{\"transaction_id\":\"t1\",\"card_hash\":\"c1\"}"), EvaluationType.AUTH);
        Evaluation skip = p.decide(VelocityResults.unavailable("down"), VelocityFailurePolicy.SKIP);
        assertThat(skip.mode()).isEqualTo(EngineMode.DEGRADED);
        assertThat(skip.errorCode()).isEqualTo(EngineErrorCode.VELOCITY_UNAVAILABLE);
        assertThat(skip.decision()).isEqualTo(Outcome.APPROVE);
        assertThat(skip.velocityResults()).allSatisfy(v -> {
            assertThat(v.available()).isFalse();
            assertThat(v.value()).isNaN();
        });
        CompiledRuleset.Pending p2 = rs.prepare(txn("{\"transaction_id\":\"t1\",\"card_hash\":\"c1\"}"), EvaluationType.AUTH);
        Evaluation exceeded = p2.decide(VelocityResults.unavailable("down"), VelocityFailurePolicy.EXCEEDED);
        assertThat(exceeded.mode()).isEqualTo(EngineMode.DEGRADED);
        assertThat(exceeded.decision()).isEqualTo(Outcome.DECLINE);
        assertThat(exceeded.ruleId()).isEqualTo("card-5min-velocity");
    }

    private static Evaluation decide(double fiveMin, double oneHour) {
        CompiledRuleset.Pending p = rs.prepare(txn("{\"transaction_id\":\"t1\",\"card_hash\":\"c1\"}"), EvaluationType.AUTH);
        return p.decide(VelocityResults.of(new double[] {fiveMin, oneHour}), VelocityFailurePolicy.SKIP);
    }
}
