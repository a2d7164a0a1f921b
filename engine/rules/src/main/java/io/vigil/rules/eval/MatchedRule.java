package io.vigil.rules.eval;

/**
 * A rule that matched, for the explanation, MONITORING answers and the decision event.
 *
 * @param shadow true for SHADOW rules: reported, never decide
 */
public record MatchedRule(String ruleId, int ruleVersion, int priority, Outcome decision, String reasonCode,
                          boolean shadow) {
}
