package io.vigil.rules.model;

import io.vigil.rules.eval.Outcome;
import io.vigil.rules.velocity.Aggregate;
import java.math.BigDecimal;

/**
 * A rule's velocity clause: the rule matches only when its condition holds AND {@code aggregate}
 * over the last {@code windowSeconds} for the transaction's {@code dimension} value reaches
 * {@code threshold}.
 *
 * @param dimension     canonical field name (e.g. card_hash)
 * @param of            for SUM and DISTINCT: the canonical field aggregated; null for COUNT
 * @param legacyAction  legacy format only: the decision when the threshold is reached (overrides the rule's action)
 */
public record Velocity(String dimension, int windowSeconds, Aggregate aggregate, String of, BigDecimal threshold,
                       Outcome legacyAction) {
    /** Longest window: 7 days. */
    public static final int MAX_WINDOW_SECONDS = 7 * 24 * 3600;
}
