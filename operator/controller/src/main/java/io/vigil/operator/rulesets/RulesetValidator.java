package io.vigil.operator.rulesets;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import io.vigil.operator.api.v1alpha1.FraudRuleset;
import io.vigil.operator.api.v1alpha1.FraudRulesetStatus;
import io.vigil.rules.parse.ParseResult;
import io.vigil.rules.parse.RulesetFormat;
import io.vigil.rules.parse.Rulesets;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Validates a FraudRuleset with the shared rules library, so a ruleset the operator accepts is exactly
 * one the engine can run. The engine file is rendered here too: the document with its identity
 * (ruleset_key, ruleset_version) taken from the spec.
 */
public final class RulesetValidator {

    /**
     * The engine file is JSON: lossless for every value (a YAML re-rendering can turn the string "10001"
     * into a number), and the engine reads ruleset.json as readily as ruleset.yaml.
     */
    private static final ObjectMapper JSON = JsonMapper.builder().enable(SerializationFeature.INDENT_OUTPUT).build();

    private RulesetValidator() {
    }

    public static RulesetValidation validate(FraudRuleset ruleset) {
        var spec = ruleset.getSpec();
        String key = spec == null ? null : spec.key;
        int version = spec == null || spec.version == null ? 0 : spec.version;
        List<FraudRulesetStatus.Error> errors = new ArrayList<>();
        if (spec == null || spec.document == null || !spec.document.isObject()) {
            errors.add(new FraudRulesetStatus.Error("spec.document", "must be an object (the ruleset document)"));
            return new RulesetValidation(key, version, false, null, 0, errors, null);
        }
        ObjectNode doc = spec.document.deepCopy();
        checkIdentity(doc, "ruleset_key", key, errors);
        checkIdentity(doc, "ruleset_version", version, errors);
        // Identity first so the file reads naturally; then the document in its own order.
        ObjectNode file = JSON.createObjectNode();
        file.put("ruleset_key", key);
        file.put("ruleset_version", version);
        doc.remove("ruleset_key");
        doc.remove("ruleset_version");
        file.setAll(doc);
        String content;
        try {
            content = JSON.writeValueAsString(file) + "\n";
        } catch (JsonProcessingException e) {
            errors.add(new FraudRulesetStatus.Error("spec.document", "cannot be written as JSON: " + e.getOriginalMessage()));
            return new RulesetValidation(key, version, false, null, 0, errors, null);
        }
        ParseResult result = Rulesets.load(content.getBytes(StandardCharsets.UTF_8), RulesetFormat.JSON);
        result.errors().forEach(e -> errors.add(new FraudRulesetStatus.Error(documentPath(e.path()), e.message())));
        if (!errors.isEmpty()) {
            return new RulesetValidation(key, version, false, null, 0, errors, content);
        }
        return new RulesetValidation(key, version, true, result.ruleset().checksum(), result.ruleset().ruleCount(),
                List.of(), content);
    }

    private static void checkIdentity(ObjectNode doc, String field, Object expected, List<FraudRulesetStatus.Error> errors) {
        JsonNode given = doc.get(field);
        if (given != null && !given.isNull() && !given.asText().equals(String.valueOf(expected))) {
            errors.add(new FraudRulesetStatus.Error("spec.document." + field,
                    "is " + given.asText() + " but spec says " + expected + " (omit it or make them equal)"));
        }
    }

    /** Library paths are relative to the document ("rules[3].condition.op", "$" for the root). */
    static String documentPath(String libraryPath) {
        if (libraryPath == null || libraryPath.isEmpty() || libraryPath.equals("$")) {
            return "spec.document";
        }
        String p = libraryPath.startsWith("$.") ? libraryPath.substring(2) : libraryPath.startsWith("$") ? libraryPath.substring(1) : libraryPath;
        return p.startsWith("[") ? "spec.document" + p : "spec.document." + p;
    }
}
