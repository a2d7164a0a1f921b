package io.vigil.rules.eval;

import io.vigil.rules.txn.Field;
import io.vigil.rules.velocity.Aggregate;

/** One enabled rule, ready to evaluate: everything resolved at compile time. */
final class CompiledRule {
    final int index;
    final String id;
    final int version;
    final int priority;
    final int specificity;
    final boolean shadow;
    /** null: the rule has no condition (scope only) and always holds. */
    final Node condition;
    /** Presence bits the transaction must have for this rule to possibly match (condition and dimension). */
    final long required;
    final Outcome decision;
    final String reasonCode;
    /** Built once: the same immutable object is reported every time the rule matches. */
    final MatchedRule matched;

    final boolean velocity;
    final Field dimension;
    final String dimensionName;
    final int windowSeconds;
    final Aggregate aggregate;
    final Field of;
    final String ofCustom;
    final double threshold;

    CompiledRule(int index, String id, int version, int priority, int specificity, boolean shadow, Node condition,
                 Outcome decision, String reasonCode, Field dimension, int windowSeconds, Aggregate aggregate,
                 Field of, String ofCustom, double threshold) {
        this.index = index;
        this.id = id;
        this.version = version;
        this.priority = priority;
        this.specificity = specificity;
        this.shadow = shadow;
        this.condition = condition;
        this.required = (condition == null ? 0 : condition.requiredForTrue())
                | (dimension == null ? 0 : 1L << dimension.ordinal());
        this.decision = decision;
        this.reasonCode = reasonCode;
        this.matched = new MatchedRule(id, version, priority, decision, reasonCode, shadow);
        this.velocity = dimension != null;
        this.dimension = dimension;
        this.dimensionName = dimension == null ? null : dimension.jsonName();
        this.windowSeconds = windowSeconds;
        this.aggregate = aggregate;
        this.of = of;
        this.ofCustom = ofCustom;
        this.threshold = threshold;
    }
}
