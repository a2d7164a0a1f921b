package io.vigil.rules.eval;

/** How complete an answer is (contract §3). */
public enum EngineMode {
    /** Every applicable rule and velocity check was evaluated. */
    NORMAL,
    /** Answered, but something was skipped; {@link EngineErrorCode} says what. */
    DEGRADED,
    /** No ruleset could be evaluated; the policy's default decision. */
    FAIL_OPEN
}
