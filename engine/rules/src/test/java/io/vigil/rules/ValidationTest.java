package io.vigil.rules;

import static io.vigil.rules.TestRulesets.errors;
import static org.assertj.core.api.Assertions.assertThat;

import io.vigil.rules.parse.RulesetFormat;
import io.vigil.rules.parse.ValidationError;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Every class of validation error, with its exact path and message; all errors at once; never half-loaded. */
class ValidationTest {

    /** A native JSON ruleset with one rule whose body (without rule_id) is {@code ruleBody}. */
    private static String nativeRule(String ruleBody) {
        return """
                {"ruleset_key":"T","ruleset_version":1,"execution_mode":"FIRST_MATCH",
                 "lists":{"block":["a"],"allow":["b"]},
                 "rules":[{"rule_id":"ok","condition":{"field":"amount","op":"gt","value":1},"action":"DECLINE"},
                          {"rule_id":"r",%s}]}""".formatted(ruleBody);
    }

    private static String legacyRule(String ruleBody) {
        return """
                {"schema_version":1,"ruleset_key":"T","ruleset_version":1,"execution_mode":"FIRST_MATCH",
                 "generated_at":"2026-01-28T12:00:00Z","ruleset_id":"x",
                 "rules":[{"rule_id":"r","rule_version":1,"enabled":true,"priority":1,%s}]}""".formatted(ruleBody);
    }

    private static List<String> nativeErrors(String ruleBody) {
        return strings(errors(nativeRule(ruleBody), RulesetFormat.JSON));
    }

    private static List<String> strings(List<ValidationError> errors) {
        return errors.stream().map(ValidationError::toString).toList();
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', quoteCharacter = '`', value = {
            // operators
            "\"condition\":{\"field\":\"amount\",\"op\":\"neq\",\"value\":1},\"action\":\"DECLINE\""
                    + "|rules[1].condition.op: unknown operator \"neq\" (did you mean \"ne\"?)",
            "\"condition\":{\"field\":\"amount\",\"op\":\"greater\",\"value\":1},\"action\":\"DECLINE\""
                    + "|rules[1].condition.op: unknown operator \"greater\"",
            "\"condition\":{\"field\":\"amount\",\"op\":\"GT\",\"value\":1},\"action\":\"DECLINE\""
                    + "|rules[1].condition.op: unknown operator \"GT\" (did you mean \"gt\"?)",
            "\"condition\":{\"field\":\"amount\",\"op\":5,\"value\":1},\"action\":\"DECLINE\""
                    + "|rules[1].condition.op: expected a string",
            // fields
            "\"condition\":{\"field\":\"amout\",\"op\":\"gt\",\"value\":1},\"action\":\"DECLINE\""
                    + "|rules[1].condition.field: unknown field \"amout\" (did you mean \"amount\"?)",
            "\"condition\":{\"field\":\"custom_fields.\",\"op\":\"eq\",\"value\":1},\"action\":\"DECLINE\""
                    + "|rules[1].condition.field: a custom field is custom_fields.<name> with a name of letters, digits, '_', '.' or '-'",
            // malformed nodes
            "\"condition\":{\"op\":\"eq\",\"value\":1},\"action\":\"DECLINE\"|rules[1].condition.field: is required",
            "\"condition\":{\"field\":\"amount\",\"value\":1},\"action\":\"DECLINE\"|rules[1].condition.op: is required",
            "\"condition\":{},\"action\":\"DECLINE\""
                    + "|rules[1].condition: expected a condition: a leaf {field, op, value} or one of and/or/not (the node is empty)",
            "\"condition\":{\"and\":[]},\"action\":\"DECLINE\"|rules[1].condition.and: and needs at least one condition",
            "\"condition\":{\"or\":{\"field\":\"amount\",\"op\":\"exists\"}},\"action\":\"DECLINE\""
                    + "|rules[1].condition.or: or needs an array of conditions",
            "\"condition\":{\"and\":[{\"field\":\"amount\",\"op\":\"exists\"}],\"field\":\"amount\"},\"action\":\"DECLINE\""
                    + "|rules[1].condition: a condition node is either one of and/or/not or a leaf {field, op, value}, not both (keys: and, field)",
            "\"condition\":[1],\"action\":\"DECLINE\""
                    + "|rules[1].condition: expected an object (a condition: a leaf {field, op, value} or and/or/not)",
            "\"condition\":{\"field\":\"amount\",\"op\":\"eq\",\"value\":1,\"values\":[1]},\"action\":\"DECLINE\""
                    + "|rules[1].condition: has both \"value\" and \"values\"; use one",
            "\"condition\":{\"field\":\"amount\",\"op\":\"eq\",\"value\":1,\"negate\":true},\"action\":\"DECLINE\""
                    + "|rules[1].condition.negate: unknown key \"negate\" (a leaf has field, op and value or values)",
            "\"condition\":{\"field\":\"amount\",\"op\":\"eq\"},\"action\":\"DECLINE\"|rules[1].condition.value: eq needs \"value\"",
            "\"condition\":{\"field\":\"amount\",\"op\":\"eq\",\"values\":[1]},\"action\":\"DECLINE\""
                    + "|rules[1].condition.values: eq takes \"value\", not \"values\"",
            "\"condition\":{\"field\":\"amount\",\"op\":\"exists\",\"value\":1},\"action\":\"DECLINE\""
                    + "|rules[1].condition.value: exists takes no value",
            "\"condition\":{\"field\":\"amount\",\"op\":\"in\"},\"action\":\"DECLINE\""
                    + "|rules[1].condition.values: in needs \"values\": a non-empty array",
            "\"condition\":{\"field\":\"amount\",\"op\":\"in\",\"values\":[]},\"action\":\"DECLINE\""
                    + "|rules[1].condition.values: needs at least one value",
            "\"condition\":{\"field\":\"amount\",\"op\":\"eq\",\"value\":[1]},\"action\":\"DECLINE\""
                    + "|rules[1].condition.value: expected a single number",
            // value types
            "\"condition\":{\"field\":\"amount\",\"op\":\"contains\",\"value\":\"1\"},\"action\":\"DECLINE\""
                    + "|rules[1].condition.op: contains applies to text; amount is a number field",
            "\"condition\":{\"field\":\"amount\",\"op\":\"eq\",\"value\":\"100\"},\"action\":\"DECLINE\""
                    + "|rules[1].condition.value: expected a number (amount is a number field)",
            "\"condition\":{\"field\":\"amount\",\"op\":\"in\",\"values\":[1,\"2\"]},\"action\":\"DECLINE\""
                    + "|rules[1].condition.values[1]: expected a number (amount is a number field)",
            "\"condition\":{\"field\":\"mcc\",\"op\":\"eq\",\"value\":5411},\"action\":\"DECLINE\""
                    + "|rules[1].condition.value: expected a string (mcc is a text field)",
            "\"condition\":{\"field\":\"mcc\",\"op\":\"gt\",\"value\":5000},\"action\":\"DECLINE\""
                    + "|rules[1].condition.op: gt compares numbers; mcc is a text field",
            "\"condition\":{\"field\":\"amount\",\"op\":\"gt\",\"value\":\"5\"},\"action\":\"DECLINE\""
                    + "|rules[1].condition.value: expected a number",
            "\"condition\":{\"field\":\"card_present\",\"op\":\"eq\",\"value\":\"true\"},\"action\":\"DECLINE\""
                    + "|rules[1].condition.value: expected a boolean (card_present is a boolean field)",
            "\"condition\":{\"field\":\"card_present\",\"op\":\"in\",\"values\":[true]},\"action\":\"DECLINE\""
                    + "|rules[1].condition.op: in does not apply to booleans; card_present is a boolean field (use eq)",
            "\"condition\":{\"field\":\"email\",\"op\":\"contains\",\"value\":7},\"action\":\"DECLINE\""
                    + "|rules[1].condition.value: expected a string",
            "\"condition\":{\"field\":\"amount\",\"op\":\"between\",\"values\":[1]},\"action\":\"DECLINE\""
                    + "|rules[1].condition.values: between needs exactly 2 numbers: [low, high]",
            "\"condition\":{\"field\":\"amount\",\"op\":\"between\",\"values\":[1,\"2\"]},\"action\":\"DECLINE\""
                    + "|rules[1].condition.values: between needs exactly 2 numbers: [low, high]",
            "\"condition\":{\"field\":\"amount\",\"op\":\"between\",\"values\":[5,1]},\"action\":\"DECLINE\""
                    + "|rules[1].condition.values: between needs low <= high, got [5, 1]",
            "\"condition\":{\"field\":\"email\",\"op\":\"between\",\"values\":[1,2]},\"action\":\"DECLINE\""
                    + "|rules[1].condition.op: between compares numbers; email is a text field",
            "\"condition\":{\"field\":\"email\",\"op\":\"in_list\",\"value\":\"blocked\"},\"action\":\"DECLINE\""
                    + "|rules[1].condition.value: unknown list \"blocked\" (lists: allow, block)",
            "\"condition\":{\"field\":\"email\",\"op\":\"in_list\",\"values\":[\"block\"]},\"action\":\"DECLINE\""
                    + "|rules[1].condition.values: in_list takes \"value\": the name of a list",
            "\"condition\":{\"field\":\"amount\",\"op\":\"in_list\",\"value\":\"block\"},\"action\":\"DECLINE\""
                    + "|rules[1].condition.op: in_list compares text; amount is a number field",
            "\"condition\":{\"field\":\"email\",\"op\":\"regex\",\"value\":\"([a-z\"},\"action\":\"DECLINE\""
                    + "|rules[1].condition.value: invalid regex: missing closing ]: `[a-z` (RE2 syntax: no backreferences or lookaround)",
            // rule keys
            "\"condition\":{\"field\":\"amount\",\"op\":\"exists\"},\"action\":\"DECLINE\",\"prority\":5"
                    + "|rules[1].prority: unknown key \"prority\" (did you mean \"priority\"?)",
            "\"condition\":{\"field\":\"amount\",\"op\":\"exists\"}|rules[1].action: is required",
            "\"action\":\"BLOCK\"|rules[1].action: unknown decision \"BLOCK\" (expected APPROVE, DECLINE or REVIEW)",
            "\"action\":{\"decision\":\"DECLINE\",\"reason\":\"X\"}|rules[1].action.reason: unknown key \"reason\"",
            "\"action\":{\"reason_code\":\"X\"}|rules[1].action.decision: is required",
            "\"action\":{\"decision\":\"DECLINE\",\"reason_code\":\"has space\"}"
                    + "|rules[1].action.reason_code: must be 1 to 64 letters, digits, '_', '.', ':' or '-'",
            "\"action\":\"DECLINE\",\"mode\":\"DRY_RUN\"|rules[1].mode: unknown value \"DRY_RUN\" (expected one of ACTIVE, SHADOW)",
            "\"action\":\"DECLINE\",\"priority\":1.5|rules[1].priority: expected an integer",
            "\"action\":\"DECLINE\",\"rule_version\":0|rules[1].rule_version: must be a positive integer",
            "\"action\":\"DECLINE\",\"enabled\":\"yes\"|rules[1].enabled: expected a boolean",
            // scopes
            "\"action\":\"DECLINE\",\"scope\":{\"bin\":[\"4\",\"4111111111\"]}|rules[1].scope.bin[1]: a BIN prefix is 1 to 8 digits, got \"4111111111\"",
            "\"action\":\"DECLINE\",\"scope\":{\"bin\":[\"41a\"]}|rules[1].scope.bin[0]: a BIN prefix is 1 to 8 digits, got \"41a\"",
            "\"action\":\"DECLINE\",\"scope\":{\"mcc\":[\"541\"]}|rules[1].scope.mcc[0]: an MCC is 4 digits, got \"541\"",
            "\"action\":\"DECLINE\",\"scope\":{\"country\":[\"usa\"]}"
                    + "|rules[1].scope.country[0]: expected an ISO 3166 alpha-2 code (e.g. \"US\"), got \"usa\"",
            "\"action\":\"DECLINE\",\"scope\":{\"network\":[]}|rules[1].scope.network: needs at least one value (leave network out to match any)",
            "\"action\":\"DECLINE\",\"scope\":{\"network\":[\"\"]}|rules[1].scope.network[0]: must not be empty",
            "\"action\":\"DECLINE\",\"scope\":{\"brand\":[\"VISA\"]}|rules[1].scope.brand: unknown key \"brand\"",
            "\"action\":\"DECLINE\",\"scope\":[\"VISA\"]|rules[1].scope: expected an object with any of network, bin, mcc, logo, country",
            // velocity
            "\"action\":\"DECLINE\",\"velocity\":{\"dimension\":\"pan\",\"window_seconds\":60,\"threshold\":3}"
                    + "|rules[1].velocity.dimension: unknown dimension \"pan\" (use a transaction field that identifies something, e.g. card_hash, device_id, ip_address, email, merchant_id)",
            "\"action\":\"DECLINE\",\"velocity\":{\"dimension\":\"amount\",\"window_seconds\":60,\"threshold\":3}"
                    + "|rules[1].velocity.dimension: unknown dimension \"amount\" (use a transaction field that identifies something, e.g. card_hash, device_id, ip_address, email, merchant_id)",
            "\"action\":\"DECLINE\",\"velocity\":{\"dimension\":\"card_hash\",\"window_seconds\":0,\"threshold\":3}"
                    + "|rules[1].velocity.window_seconds: must be between 1 and 604800 seconds (7 days), got 0",
            "\"action\":\"DECLINE\",\"velocity\":{\"dimension\":\"card_hash\",\"window_seconds\":604801,\"threshold\":3}"
                    + "|rules[1].velocity.window_seconds: must be between 1 and 604800 seconds (7 days), got 604801",
            "\"action\":\"DECLINE\",\"velocity\":{\"dimension\":\"card_hash\",\"window_seconds\":60}|rules[1].velocity.threshold: is required",
            "\"action\":\"DECLINE\",\"velocity\":{\"dimension\":\"card_hash\",\"window_seconds\":60,\"threshold\":0}"
                    + "|rules[1].velocity.threshold: must be greater than 0",
            "\"action\":\"DECLINE\",\"velocity\":{\"dimension\":\"card_hash\",\"window_seconds\":60,\"threshold\":-1}"
                    + "|rules[1].velocity.threshold: must be greater than 0",
            "\"action\":\"DECLINE\",\"velocity\":{\"dimension\":\"card_hash\",\"window_seconds\":60,\"threshold\":3,\"aggregate\":\"sum\"}"
                    + "|rules[1].velocity.of: sum needs \"of\": a numeric field (amount or custom_fields.<name>)",
            "\"action\":\"DECLINE\",\"velocity\":{\"dimension\":\"card_hash\",\"window_seconds\":60,\"threshold\":3,\"aggregate\":\"sum\",\"of\":\"email\"}"
                    + "|rules[1].velocity.of: sum needs a numeric field (amount or custom_fields.<name>), got \"email\"",
            "\"action\":\"DECLINE\",\"velocity\":{\"dimension\":\"card_hash\",\"window_seconds\":60,\"threshold\":3,\"aggregate\":\"distinct\"}"
                    + "|rules[1].velocity.of: distinct needs \"of\": the field whose distinct values are counted",
            "\"action\":\"DECLINE\",\"velocity\":{\"dimension\":\"card_hash\",\"window_seconds\":60,\"threshold\":3,\"of\":\"amount\"}"
                    + "|rules[1].velocity.of: only sum and distinct take \"of\"",
            "\"action\":\"DECLINE\",\"velocity\":{\"dimension\":\"card_hash\",\"window_seconds\":60,\"threshold\":3,\"aggregate\":\"avg\"}"
                    + "|rules[1].velocity.aggregate: unknown value \"avg\" (expected one of COUNT, SUM, DISTINCT)",
            "\"action\":\"DECLINE\",\"velocity\":{\"dimension\":\"card_hash\",\"window_seconds\":60,\"threshold\":3,\"action\":\"DECLINE\"}"
                    + "|rules[1].velocity.action: unknown key \"action\"",
    })
    void nativeError(String ruleBody, String expected) {
        assertThat(nativeErrors(ruleBody)).containsExactly(expected);
    }

    @Test
    void nestedPathsFollowTheDocument() {
        assertThat(nativeErrors("""
                "condition":{"and":[{"field":"amount","op":"gt","value":1},
                  {"or":[{"field":"email","op":"exists"},{"not":{"field":"emial","op":"exists"}}]},
                  {"field":"amount","op":"neq","value":2}]},"action":"DECLINE"
                """)).containsExactly(
                "rules[1].condition.and[1].or[1].not.field: unknown field \"emial\" (did you mean \"email\"?)",
                "rules[1].condition.and[2].op: unknown operator \"neq\" (did you mean \"ne\"?)");
    }

    @Test
    void everyErrorIsReportedAtOnce() {
        List<ValidationError> errors = errors("""
                {"ruleset_key":"","ruleset_version":0,"execution_mode":"FASTEST","colour":"red",
                 "rules":[
                   {"rule_id":"a","condition":{"field":"x","op":"eq","value":1},"action":"DECLINE"},
                   {"rule_id":"a","condition":{"field":"amount","op":"zz","value":1},"action":"NOPE"},
                   {"rule_id":"b","action":"APPROVE","velocity":{"dimension":"card_hash","window_seconds":-5,"threshold":1}}
                 ]}""", RulesetFormat.JSON);
        assertThat(strings(errors)).containsExactly(
                "colour: unknown key \"colour\"",
                "ruleset_key: must not be empty",
                "ruleset_version: must be a positive integer",
                "execution_mode: unknown value \"FASTEST\" (expected one of FIRST_MATCH, ALL_MATCHING)",
                "rules[0].condition.field: unknown field \"x\" (known: the transaction fields of the contract, their aliases, or custom_fields.<name>)",
                "rules[1].condition.op: unknown operator \"zz\"",
                "rules[1].action: unknown decision \"NOPE\" (expected APPROVE, DECLINE or REVIEW)",
                "rules[1].rule_id: duplicate rule_id \"a\" (first used at rules[0])",
                "rules[2].velocity.window_seconds: must be between 1 and 604800 seconds (7 days), got -5");
    }

    @Test
    void emptyAndMissingRules() {
        String head = "{\"ruleset_key\":\"T\",\"ruleset_version\":1,\"execution_mode\":\"FIRST_MATCH\"";
        assertThat(strings(errors(head + ",\"rules\":[]}", RulesetFormat.JSON)))
                .containsExactly("rules: a ruleset needs at least one rule");
        assertThat(strings(errors(head + "}", RulesetFormat.JSON))).containsExactly("rules: is required");
        assertThat(strings(errors(head + ",\"rules\":{}}", RulesetFormat.JSON))).containsExactly("rules: expected an array");
        assertThat(strings(errors("{}", RulesetFormat.JSON))).containsExactly("ruleset_key: is required",
                "ruleset_version: is required", "execution_mode: is required", "rules: is required");
    }

    @Test
    void topLevelErrors() {
        String rules = ",\"rules\":[{\"rule_id\":\"r\",\"action\":\"APPROVE\"}]}";
        assertThat(strings(errors("{\"ruleset_key\":\"has space\",\"ruleset_version\":\"1\",\"execution_mode\":\"FIRST_MATCH\","
                + "\"country\":\"usa\",\"default_action\":\"MAYBE\",\"velocity_failure_policy\":\"RETRY\","
                + "\"lists\":{\"bad name\":[\"a\"],\"ok\":[\"a\",{}]}" + rules, RulesetFormat.JSON))).containsExactly(
                "ruleset_key: must be 1 to 64 letters, digits, '_', '.' or '-'",
                "ruleset_version: expected an integer",
                "country: expected an ISO 3166 alpha-2 code (e.g. \"US\") or \"global\"",
                "default_action: unknown decision \"MAYBE\" (expected APPROVE, DECLINE or REVIEW)",
                "velocity_failure_policy: unknown value \"RETRY\" (expected one of SKIP, EXCEEDED)",
                "lists.bad name: a list name is 1 to 64 letters, digits, '_', '.' or '-'",
                "lists.ok[1]: expected a string");
    }

    @Test
    void syntaxErrorsCarryTheLocation() {
        assertThat(strings(errors("{\"ruleset_key\": \"T\",,}", RulesetFormat.JSON)))
                .singleElement().asString().startsWith("$: not valid JSON: ").contains("line 1, column 21");
        assertThat(strings(errors("ruleset_key: T\n  bad: [", RulesetFormat.YAML)))
                .singleElement().asString().startsWith("$: not valid YAML: ");
        assertThat(strings(errors("", RulesetFormat.JSON))).containsExactly("$: the document is empty");
        assertThat(strings(errors("[1]", RulesetFormat.JSON))).containsExactly("$: expected an object (a ruleset document)");
        assertThat(strings(errors("{\"ruleset_key\":\"A\",\"ruleset_key\":\"B\"}", RulesetFormat.JSON)))
                .singleElement().asString().contains("Duplicate field 'ruleset_key'");
    }

    @Test
    void numbersBeyondDoubleRangeAreRejected() {
        assertThat(nativeErrors("\"condition\":{\"field\":\"amount\",\"op\":\"gt\",\"value\":1e999999999},\"action\":\"DECLINE\""))
                .containsExactly("rules[1].condition.value: number out of range");
        assertThat(nativeErrors("\"condition\":{\"field\":\"amount\",\"op\":\"in\",\"values\":[1,-2e400]},\"action\":\"DECLINE\""))
                .containsExactly("rules[1].condition.values[1]: number out of range");
    }

    @Test
    void disabledRulesAreValidatedToo() {
        assertThat(nativeErrors("\"enabled\":false,\"condition\":{\"field\":\"amount\",\"op\":\"neq\",\"value\":1},"
                + "\"action\":\"DECLINE\"")).containsExactly("rules[1].condition.op: unknown operator \"neq\" (did you mean \"ne\"?)");
    }

    // ---- legacy format -------------------------------------------------------------------------

    @Test
    void legacyToleratesItsExtraKeysButNotBadConditions() {
        assertThat(errors(legacyRule("\"created_by\":\"ops\",\"condition\":{\"op\":\"neq\",\"field\":\"amount\",\"value\":1},"
                + "\"action\":{\"decision\":\"DECLINE\"}"), RulesetFormat.JSON)).isEmpty();
        assertThat(strings(errors(legacyRule("\"condition\":{\"op\":\"and\",\"args\":[{\"op\":\"exists\",\"field\":\"amount\"},"
                + "{\"op\":\"like\",\"field\":\"email\",\"value\":\"x\"}]},\"action\":{\"decision\":\"DECLINE\"}"), RulesetFormat.JSON)))
                .containsExactly("rules[0].condition.args[1].op: unknown operator \"like\" (did you mean \"regex\"?)");
        assertThat(strings(errors(legacyRule("\"condition\":{\"op\":\"and\"},\"action\":{\"decision\":\"DECLINE\"}"),
                RulesetFormat.JSON))).containsExactly("rules[0].condition.args: and needs \"args\"");
        assertThat(strings(errors(legacyRule("\"condition\":{\"op\":\"or\",\"args\":[]},\"action\":{\"decision\":\"DECLINE\"}"),
                RulesetFormat.JSON))).containsExactly("rules[0].condition.args: or needs at least one condition");
        assertThat(strings(errors(legacyRule("\"condition\":{\"op\":\"not\",\"args\":[{\"op\":\"exists\",\"field\":\"a\"},"
                + "{\"op\":\"exists\",\"field\":\"b\"}]},\"action\":{\"decision\":\"DECLINE\"}"), RulesetFormat.JSON)))
                .containsExactly("rules[0].condition.args: not takes exactly one condition");
        assertThat(strings(errors(legacyRule("\"condition\":{\"op\":\"and\",\"args\":[{\"field\":\"amount\"}]},"
                + "\"action\":{\"decision\":\"DECLINE\"}"), RulesetFormat.JSON)))
                .containsExactly("rules[0].condition.args[0].op: is required");
        assertThat(strings(errors(legacyRule("\"condition\":{\"op\":\"exists\",\"field\":\"transaction_id\"},"
                + "\"velocity\":{\"dimension\":\"card_hash\",\"window_seconds\":60,\"threshold\":3,\"comparison\":\">\",\"action\":\"DECLINE\"},"
                + "\"action\":{\"decision\":\"APPROVE\"}"), RulesetFormat.JSON)))
                .containsExactly("rules[0].velocity.comparison: only \">=\" is supported (the rule matches when the count reaches the threshold)");
        assertThat(strings(errors(legacyRule("\"action\":{\"decision\":\"APPROVE\"}").replace("\"schema_version\":1", "\"schema_version\":2"),
                RulesetFormat.JSON))).containsExactly("schema_version: unsupported schema_version 2 (the legacy format is version 1)");
    }

    @Test
    void opStyleNodesMarkTheLegacyFormatWithoutSchemaVersion() {
        String doc = """
                {"ruleset_key":"T","ruleset_version":1,"execution_mode":"FIRST_MATCH","ruleset_id":"x",
                 "rules":[{"rule_id":"r","owner":"team","condition":{"op":"or","args":[{"op":"neq","field":"amount","value":1}]},
                 "action":{"decision":"DECLINE"}}]}""";
        assertThat(errors(doc, RulesetFormat.JSON)).isEmpty();
    }
}
