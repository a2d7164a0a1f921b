package io.vigil.rules.model;

/** ACTIVE rules decide; SHADOW rules are evaluated and reported but never decide. */
public enum RuleMode {
    ACTIVE, SHADOW
}
