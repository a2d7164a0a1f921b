package io.vigil.rules.velocity;

/** What a velocity window aggregates. */
public enum Aggregate {
    COUNT, SUM, DISTINCT
}
