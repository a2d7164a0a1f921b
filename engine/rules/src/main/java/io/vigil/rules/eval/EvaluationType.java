package io.vigil.rules.eval;

/** AUTH evaluates first-match on the caller's budget; MONITORING evaluates all matching rules after the fact. */
public enum EvaluationType {
    AUTH, MONITORING
}
