package io.vigil.engine.decision;

import io.vigil.rules.eval.EngineErrorCode;
import io.vigil.rules.eval.EngineMode;
import io.vigil.rules.eval.Evaluation;
import io.vigil.rules.eval.EvaluationType;
import io.vigil.rules.eval.MatchedRule;
import io.vigil.rules.eval.Outcome;
import io.vigil.rules.eval.VelocityResult;
import io.vigil.rules.txn.Transaction;
import java.util.List;

/**
 * One answered request: what the caller got and everything needed to explain it downstream. Built
 * once per request from references only (no copying), answered from, then offered to the
 * {@link DecisionSink}.
 *
 * <p>{@code decision}, {@code mode} and {@code errorCode} are the answer as sent; they differ from
 * {@code evaluation}'s when the engine overrode it (MONITORING echoes the caller's decision, a blown
 * deadline turns VELOCITY_UNAVAILABLE into DEADLINE_EXCEEDED). {@code evaluation} is null when nothing
 * was evaluated (FAIL_OPEN, LOAD_SHED); then {@code rulesetKey} may still name the ruleset that failed.
 *
 * @param rulesetVersion 0 when no ruleset was evaluated
 * @param parseNanos     reading the body into the transaction
 * @param velocityNanos  the velocity round trip (0 when none was needed)
 * @param processingNanos from the first byte handled to the answer
 */
public record DecisionRecord(
        String decisionId,
        EvaluationType type,
        Transaction transaction,
        Outcome decision,
        EngineMode mode,
        EngineErrorCode errorCode,
        String rulesetKey,
        int rulesetVersion,
        Evaluation evaluation,
        long receivedAtEpochMillis,
        long parseNanos,
        long velocityNanos,
        long processingNanos) {

    public String transactionId() {
        return transaction.transactionId();
    }

    public String ruleId() {
        return evaluation == null ? null : evaluation.ruleId();
    }

    public String reasonCode() {
        return evaluation == null ? null : evaluation.reasonCode();
    }

    public List<MatchedRule> matchedRules() {
        return evaluation == null || evaluation.matchedRules() == null ? List.of() : evaluation.matchedRules();
    }

    public List<VelocityResult> velocityResults() {
        return evaluation == null || evaluation.velocityResults() == null ? List.of() : evaluation.velocityResults();
    }

    public long evaluationNanos() {
        return evaluation == null ? 0 : evaluation.evaluationNanos();
    }
}
