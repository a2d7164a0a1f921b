package io.vigil.rules.model;

/**
 * One rule of a ruleset.
 *
 * @param condition null means "always" (a rule that only has a scope)
 * @param velocity  null for plain rules
 */
public record Rule(String ruleId, int ruleVersion, boolean enabled, int priority, RuleMode mode, Scope scope,
                   Condition condition, Velocity velocity, Action action, String description) {
}
