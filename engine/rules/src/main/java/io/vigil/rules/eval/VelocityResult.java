package io.vigil.rules.eval;

import io.vigil.rules.velocity.Aggregate;

/**
 * One velocity check's outcome, for explanations and the decision event.
 *
 * @param value    the aggregate including this transaction; NaN when the store was unavailable
 * @param exceeded value reached the threshold (or the EXCEEDED failure policy applied)
 */
public record VelocityResult(String ruleId, String dimension, String dimensionValue, int windowSeconds,
                             Aggregate aggregate, double value, double threshold, boolean exceeded,
                             boolean available) {
}
