package io.vigil.rules.eval;

/** Why an answer is not NORMAL (contract §3). */
public enum EngineErrorCode {
    RULESET_NOT_LOADED, VELOCITY_UNAVAILABLE, DEADLINE_EXCEEDED, LOAD_SHED, EVALUATION_ERROR
}
