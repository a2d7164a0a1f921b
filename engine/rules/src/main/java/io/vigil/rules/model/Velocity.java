package io.vigil.rules.model;

import io.vigil.rules.txn.Field;
import io.vigil.rules.velocity.Aggregate;
import java.math.BigDecimal;

/**
 * A rule's velocity clause: the rule matches only when its condition holds AND {@code aggregate}
 * over the last {@code windowSeconds} for the transaction's {@code dimension} value reaches
 * {@code threshold}.
 *
 * @param dimension a text field that identifies something (card_hash, device_id...)
 * @param of        for SUM and DISTINCT: the field aggregated; null for COUNT
 */
public record Velocity(Field dimension, int windowSeconds, Aggregate aggregate, FieldRef of, BigDecimal threshold) {
    /** Longest window: 7 days. */
    public static final int MAX_WINDOW_SECONDS = 7 * 24 * 3600;
}
