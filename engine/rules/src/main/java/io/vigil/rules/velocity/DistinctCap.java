package io.vigil.rules.velocity;

import io.vigil.rules.model.Rule;
import io.vigil.rules.model.RulesetDocument;
import io.vigil.rules.model.Velocity;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;

/**
 * The ruleset lint of a velocity store's distinct cap: a store keeps at most {@code cap} members per
 * distinct check and dimension value, so a distinct count saturates there and an enabled distinct rule
 * whose threshold is above the cap can never match (a threshold equal to the cap still can). Not an
 * error: the cap is the engine's setting, not the ruleset's, so the engine reports it when a ruleset
 * version activates (docs/velocity.md).
 */
public final class DistinctCap {

    /** Enabled distinct rules of {@code document} whose threshold is above {@code cap}, in document order. */
    public static List<Rule> unreachable(RulesetDocument document, int cap) {
        List<Rule> found = new ArrayList<>();
        BigDecimal limit = BigDecimal.valueOf(cap);
        for (Rule rule : document.rules()) {
            Velocity v = rule.velocity();
            if (rule.enabled() && v != null && v.aggregate() == Aggregate.DISTINCT && v.threshold() != null
                    && v.threshold().compareTo(limit) > 0) {
                found.add(rule);
            }
        }
        return found;
    }

    private DistinctCap() {
    }
}
