package io.vigil.operator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import java.util.ArrayList;
import java.util.List;

@JsonInclude(JsonInclude.Include.NON_NULL)
public class FraudRulesetStatus {

    public Long observedGeneration;

    @JsonPropertyDescription("True when the rules library accepted the document.")
    public Boolean valid;

    public Integer ruleCount;

    @JsonPropertyDescription("SHA-256 of the canonical ruleset (the engine reports the same value).")
    public String checksum;

    @JsonPropertyDescription("Every validation error with the path of the offending node.")
    public List<Error> errors = new ArrayList<>();

    public static class Error {
        @JsonPropertyDescription("Path in the document, e.g. rules[3].condition.args[1].op.")
        public String path;
        public String message;

        public Error() {
        }

        public Error(String path, String message) {
            this.path = path;
            this.message = message;
        }
    }
}
