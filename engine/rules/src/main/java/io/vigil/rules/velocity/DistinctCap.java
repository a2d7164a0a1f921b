package io.vigil.rules.velocity;

import java.math.BigDecimal;

/**
 * A velocity store's distinct cap: a store keeps at most {@code cap} members per distinct check and
 * dimension value, so a distinct count saturates there, and a distinct rule whose threshold is above
 * the cap could never match (a threshold equal to the cap still can). Ruleset validation therefore
 * rejects such a threshold, with its path (the velocity checker, {@code parse.check.VelocityRules}),
 * against the cap of the engine that loads the ruleset ({@code vigil.velocity.distinct-cap}), or
 * {@link #DEFAULT} where no engine is known (the operator's FraudRuleset validation). docs/velocity.md.
 */
public final class DistinctCap {
    /** The engine's cap when none is configured ({@code vigil.velocity.distinct-cap}). */
    public static final int DEFAULT = 1000;

    /** Whether a distinct count capped at {@code cap} can never reach {@code threshold}. */
    public static boolean unreachable(BigDecimal threshold, int cap) {
        return threshold.compareTo(BigDecimal.valueOf(cap)) > 0;
    }

    /** A cap must keep at least one member. */
    public static int requireValid(int cap) {
        if (cap < 1) {
            throw new IllegalArgumentException("vigil.velocity.distinct-cap must be at least 1, got " + cap);
        }
        return cap;
    }

    private DistinctCap() {
    }
}
