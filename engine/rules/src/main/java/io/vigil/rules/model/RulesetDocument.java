package io.vigil.rules.model;

import io.vigil.rules.eval.VelocityFailurePolicy;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A validated ruleset document (native or legacy format), before compilation.
 *
 * @param legacy                true when it came in the existing engine's compiled-artifact format
 * @param country               the country partition (ISO alpha-2), or null for global
 * @param velocityFailurePolicy null to use the engine's
 * @param lists                 named string sets for in_list / not_in_list
 */
public record RulesetDocument(boolean legacy, String rulesetKey, int rulesetVersion, ExecutionMode executionMode,
                              String country, Action defaultAction, VelocityFailurePolicy velocityFailurePolicy,
                              Map<String, List<String>> lists, List<Rule> rules) {
    public RulesetDocument {
        lists = Collections.unmodifiableMap(new LinkedHashMap<>(lists));
        rules = List.copyOf(rules);
    }
}
