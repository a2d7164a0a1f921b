package io.vigil.rules.eval;

/** What velocity rules do when the store cannot answer in time. */
public enum VelocityFailurePolicy {
    /** Velocity rules do not match (fail open on velocity); the default. */
    SKIP,
    /** Velocity rules whose condition holds match as if their threshold was reached (fail closed). */
    EXCEEDED
}
