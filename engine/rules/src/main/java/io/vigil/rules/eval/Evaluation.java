package io.vigil.rules.eval;

import java.util.List;

/**
 * The result of evaluating one transaction against one ruleset.
 *
 * @param decision       the decision (for MONITORING: the caller's decision is echoed by the service)
 * @param mode           NORMAL or DEGRADED (FAIL_OPEN is produced by the service when no ruleset exists)
 * @param errorCode      null when NORMAL
 * @param rulesetKey     evaluated ruleset
 * @param rulesetVersion its version
 * @param ruleId         the deciding rule (FIRST_MATCH); null when the default decision applied
 * @param reasonCode     the deciding rule's reason code; when the default decision applied, the ruleset's
 *                       {@code default_action} reason code (usually null)
 * @param matchedRules   FIRST_MATCH: the decider plus shadow matches; ALL_MATCHING: every match, in order
 * @param velocityResults every velocity check made for this transaction
 * @param evaluationNanos time spent in rule evaluation (excluding the velocity round trip)
 * @param candidateRules  enabled rules whose scope applied to the transaction (for explanations); -1 unknown
 */
public record Evaluation(
        Outcome decision,
        EngineMode mode,
        EngineErrorCode errorCode,
        String rulesetKey,
        int rulesetVersion,
        String ruleId,
        String reasonCode,
        List<MatchedRule> matchedRules,
        List<VelocityResult> velocityResults,
        long evaluationNanos,
        int candidateRules) {

    /** Without the explanation details (e.g. answers the service builds itself, such as FAIL_OPEN). */
    public Evaluation(Outcome decision, EngineMode mode, EngineErrorCode errorCode, String rulesetKey,
                      int rulesetVersion, String ruleId, String reasonCode, List<MatchedRule> matchedRules,
                      List<VelocityResult> velocityResults, long evaluationNanos) {
        this(decision, mode, errorCode, rulesetKey, rulesetVersion, ruleId, reasonCode, matchedRules,
                velocityResults, evaluationNanos, -1);
    }
}
