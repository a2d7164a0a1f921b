package io.vigil.rules.velocity;

/**
 * One velocity rule's question about one transaction: "what is {@code aggregate} over the last
 * {@code windowSeconds} for this {@code dimension}={@code dimensionValue}, counting this transaction?"
 *
 * @param rulesetKey     keys carry the ruleset and the rule so rules never share counters
 * @param ruleId         the rule asking
 * @param dimension      field name of the dimension (e.g. card_hash)
 * @param dimensionValue its value in this transaction (never null: a missing dimension means no check)
 * @param windowSeconds  window length
 * @param aggregate      count, sum or distinct
 * @param sumValue       for SUM: the amount this transaction adds (0 otherwise)
 * @param distinctValue  for DISTINCT: the value this transaction adds (null otherwise)
 * @param threshold      the rule matches when the aggregate reaches this value
 */
public record VelocityCheck(
        String rulesetKey,
        String ruleId,
        String dimension,
        String dimensionValue,
        int windowSeconds,
        Aggregate aggregate,
        double sumValue,
        String distinctValue,
        double threshold) {
}
