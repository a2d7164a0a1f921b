package io.vigil.operator.rulesets;

import io.vigil.operator.api.v1alpha1.FraudRulesetStatus;
import java.util.List;

/**
 * What the rules library said about a FraudRuleset.
 *
 * @param content the ruleset file the engine will read (JSON, ruleset_key/ruleset_version filled in);
 *                null when the document could not be rendered
 */
public record RulesetValidation(String key, int version, boolean valid, String checksum, int ruleCount,
                                List<FraudRulesetStatus.Error> errors, String content) {
}
