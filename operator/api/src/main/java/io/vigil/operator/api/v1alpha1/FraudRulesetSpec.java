package io.vigil.operator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.crd.generator.annotation.PreserveUnknownFields;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.Size;
import io.fabric8.generator.annotation.ValidationRule;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * The ruleset document of the engine contract (§4) plus its identity. The document is free-form in the
 * schema on purpose: its one validator is the rules library, so the API server and the engine cannot
 * disagree on what a valid ruleset is.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class FraudRulesetSpec {

    @Required
    @Pattern("^[A-Z][A-Z0-9_]*$")
    @Size(max = 63)
    @ValidationRule(value = "self == oldSelf", message = "key is immutable")
    @JsonPropertyDescription("Ruleset key, e.g. CARD_AUTH (the document's ruleset_key).")
    public String key;

    @Required
    @Min(1)
    @ValidationRule(value = "self == oldSelf",
            message = "version is immutable: create a new FraudRuleset for a new version")
    @JsonPropertyDescription("Ruleset version (the document's ruleset_version).")
    public Integer version;

    @JsonPropertyDescription("Free text shown to operators (what changed in this version).")
    public String description;

    @Required
    @PreserveUnknownFields
    @JsonPropertyDescription("The ruleset document (engine contract §4): execution_mode, country, lists, rules[]. "
            + "ruleset_key/ruleset_version may be omitted; when present they must equal key/version.")
    public ObjectNode document = JsonNodeFactory.instance.objectNode();
}
