package io.vigil.rules.model;

/** FIRST_MATCH: the first matching ACTIVE rule decides (AUTH). ALL_MATCHING: every matching rule is reported (MONITORING). */
public enum ExecutionMode {
    FIRST_MATCH, ALL_MATCHING
}
