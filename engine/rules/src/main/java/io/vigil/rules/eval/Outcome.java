package io.vigil.rules.eval;

/** The decision a rule (or the engine's policy) gives. */
public enum Outcome {
    APPROVE, DECLINE, REVIEW
}
