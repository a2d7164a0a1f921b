package io.vigil.operator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.Size;

/** A ruleset an engine must serve: the FraudRuleset with this key and version. */
public class RulesetRef {

    @Required
    @Pattern("^[A-Z][A-Z0-9_]*$")
    @Size(max = 63)
    @JsonPropertyDescription("Ruleset key, e.g. CARD_AUTH.")
    public String key;

    @Required
    @Min(1)
    @JsonPropertyDescription("Ruleset version (positive).")
    public Integer version;

    public RulesetRef() {
    }

    public RulesetRef(String key, int version) {
        this.key = key;
        this.version = version;
    }
}
