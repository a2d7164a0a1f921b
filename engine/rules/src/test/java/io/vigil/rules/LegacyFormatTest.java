package io.vigil.rules;

import static io.vigil.rules.TestRulesets.errors;
import static io.vigil.rules.TestRulesets.eval;
import static io.vigil.rules.TestRulesets.evalWithVelocity;
import static io.vigil.rules.TestRulesets.json;
import static io.vigil.rules.TestRulesets.txn;
import static org.assertj.core.api.Assertions.assertThat;

import io.vigil.rules.eval.CompiledRuleset;
import io.vigil.rules.eval.Evaluation;
import io.vigil.rules.eval.EvaluationType;
import io.vigil.rules.eval.Outcome;
import io.vigil.rules.model.ExecutionMode;
import io.vigil.rules.parse.ParseResult;
import io.vigil.rules.parse.RulesetFormat;
import io.vigil.rules.parse.Rulesets;
import io.vigil.rules.parse.ValidationError;
import io.vigil.rules.velocity.VelocityCheck;
import io.vigil.rules.velocity.VelocityRequest;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * One test per entry of docs/ruleset-language.md, "Legacy compiled format" (L1..L26): every shape the
 * old engine's loader accepted loads with the old meaning; what it silently misread is refused with its
 * path. The fixtures are written here in those shapes.
 */
class LegacyFormatTest {

    private static final String HEAD = "\"schema_version\":1,\"ruleset_key\":\"CARD_AUTH\",\"ruleset_version\":1,"
            + "\"execution_mode\":\"FIRST_MATCH\"";

    /** A legacy document with these rules. */
    private static String doc(String rules) {
        return "{" + HEAD + ",\"rules\":[" + rules + "]}";
    }

    /** One rule that declines when {@code condition} holds. */
    private static CompiledRuleset declineWhen(String condition) {
        return json(doc("{\"rule_id\":\"r\",\"condition\":" + condition + ",\"action\":\"DECLINE\"}"));
    }

    private static List<String> refused(String document) {
        return errors(document, RulesetFormat.JSON).stream().map(ValidationError::toString).toList();
    }

    private static Outcome decide(CompiledRuleset rs, String txn) {
        return eval(rs, txn).decision();
    }

    // ---- recognition ---------------------------------------------------------------------------------

    @Test
    void l01_legacyIsRecognisedBySchemaVersionOrAnyKeyOnlyTheOldEngineWrote() {
        assertThat(json(doc("{\"rule_id\":\"r\",\"action\":\"APPROVE\"}")).document().legacy()).isTrue();
        // No schema_version: a legacy-only key at the top, in a rule, or a legacy node is enough.
        assertThat(json("{\"rulesetKey\":\"CARD_AUTH\",\"rulesetVersion\":1,\"rules\":[{\"rule_id\":\"r\",\"action\":\"APPROVE\"}]}")
                .document().legacy()).isTrue();
        assertThat(json("{\"ruleset_key\":\"CARD_AUTH\",\"ruleset_version\":1,\"execution_mode\":\"FIRST_MATCH\","
                + "\"rules\":[{\"ruleId\":\"r\",\"action\":\"APPROVE\"}]}").document().legacy()).isTrue();
        assertThat(json("{\"ruleset_key\":\"CARD_AUTH\",\"ruleset_version\":1,\"execution_mode\":\"FIRST_MATCH\","
                + "\"rules\":[{\"rule_id\":\"r\",\"condition\":{\"type\":\"condition\",\"field\":\"amount\",\"operator\":\"gt\","
                + "\"value\":1},\"action\":\"APPROVE\"}]}").document().legacy()).isTrue();
        assertThat(json("{\"ruleset_key\":\"CARD_AUTH\",\"ruleset_version\":1,\"execution_mode\":\"FIRST_MATCH\","
                + "\"rules\":[{\"rule_id\":\"r\",\"action\":\"APPROVE\"}]}").document().legacy()).isFalse();
        assertThat(refused(doc("{\"rule_id\":\"r\",\"action\":\"APPROVE\"}").replace("\"schema_version\":1", "\"schema_version\":3")))
                .containsExactly("schema_version: unsupported schema_version 3 (the legacy format is version 1)");
    }

    // ---- document ------------------------------------------------------------------------------------

    @Test
    void l02_keyIsRulesetKeyOrRulesetKeyCamelElseTheStorageKey() {
        String rules = "\"rules\":[{\"rule_id\":\"r\",\"action\":\"APPROVE\"}]";
        assertThat(json("{\"schema_version\":1,\"rulesetKey\":\"CARD_AUTH\",\"version\":2," + rules + "}").key())
                .isEqualTo("CARD_AUTH");
        byte[] keyless = ("{\"schema_version\":1," + rules + "}").getBytes(StandardCharsets.UTF_8);
        ParseResult hinted = Rulesets.load(keyless, RulesetFormat.JSON, "CARD_AUTH", 4);
        assertThat(hinted.errors()).isEmpty();
        assertThat(hinted.ruleset().key()).isEqualTo("CARD_AUTH");
        assertThat(hinted.ruleset().version()).isEqualTo(4);
        assertThat(refused("{\"schema_version\":1," + rules + "}"))
                .containsExactly("ruleset_key: is required", "ruleset_version: is required");
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "\"ruleset_version\":3|3",
            "\"rulesetVersion\":3|3",
            "\"version\":3|3",
            "\"version\":\"v3\"|3",
            "\"version\":\"3\"|3",
    })
    void l03_versionIsAnyOfItsThreeKeysAndMayBeWrittenV3(String version, int expected) {
        String d = "{\"schema_version\":1,\"ruleset_key\":\"CARD_AUTH\"," + version
                + ",\"rules\":[{\"rule_id\":\"r\",\"action\":\"APPROVE\"}]}";
        assertThat(json(d).version()).isEqualTo(expected);
    }

    @Test
    void l03_aVersionThatIsNotAPositiveIntegerIsRefused() {
        assertThat(refused("{\"schema_version\":1,\"ruleset_key\":\"CARD_AUTH\",\"version\":\"three\","
                + "\"rules\":[{\"rule_id\":\"r\",\"action\":\"APPROVE\"}]}"))
                .containsExactly("version: expected a positive integer (or \"v<integer>\")");
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "CARD_AUTH|\"execution_mode\":\"all_matching\"|ALL_MATCHING",
            "CARD_AUTH|\"evaluation\":{\"mode\":\"ALL_MATCHING\"}|ALL_MATCHING",
            "CARD_MONITORING|\"evaluation\":{\"mode\":\"first_match\"}|FIRST_MATCH",
            "CARD_AUTH|\"rule_type\":\"MONITORING_RULES\"|ALL_MATCHING",
            "CARD_AUTH|\"ruleType\":\"monitoring\"|ALL_MATCHING",
            "CARD_MONITORING|\"generated_at\":\"2026-01-01T00:00:00Z\"|ALL_MATCHING",
            "CARD_AUTH|\"generated_at\":\"2026-01-01T00:00:00Z\"|FIRST_MATCH",
    })
    void l04_modeFromExecutionModeOrEvaluationModeElseFromRuleTypeOrKey(String key, String mode, ExecutionMode expected) {
        String d = "{\"schema_version\":1,\"ruleset_key\":\"" + key + "\",\"ruleset_version\":1," + mode
                + ",\"rules\":[{\"rule_id\":\"r\",\"action\":\"APPROVE\"}]}";
        assertThat(json(d).executionMode()).isEqualTo(expected);
    }

    @Test
    void l04_anUnknownModeIsRefusedNotGuessed() {
        assertThat(refused(doc("{\"rule_id\":\"r\",\"action\":\"APPROVE\"}").replace("FIRST_MATCH", "LAST_MATCH")))
                .containsExactly("execution_mode: unknown value \"LAST_MATCH\" (expected one of FIRST_MATCH, ALL_MATCHING)");
        assertThat(refused("{\"schema_version\":1,\"ruleset_key\":\"CARD_AUTH\",\"ruleset_version\":1,"
                + "\"evaluation\":{\"mode\":\"SOME\"},\"rules\":[{\"rule_id\":\"r\",\"action\":\"APPROVE\"}]}"))
                .containsExactly("evaluation.mode: unknown value \"SOME\" (expected one of FIRST_MATCH, ALL_MATCHING)");
    }

    @Test
    void l05_otherTopLevelKeysAreIgnoredButADescriptionMustBeText() {
        String extra = "\"$schema\":\"x\",\"generated_at\":\"2026-01-28T12:00:00Z\",\"ruleset_id\":\"id-1\","
                + "\"rulesetId\":\"id-1\",\"checksum\":\"sha256:00\",\"description\":\"AUTH rules\",";
        assertThat(json("{" + extra + HEAD + ",\"rules\":[{\"rule_id\":\"r\",\"action\":\"APPROVE\"}]}").ruleCount()).isEqualTo(1);
        assertThat(refused("{\"description\":{\"text\":\"x\"}," + HEAD + ",\"rules\":[{\"rule_id\":\"r\",\"action\":\"APPROVE\"}]}"))
                .containsExactly("description: expected a string");
        // The native format likewise (it used to accept any type at the top while refusing it in a rule).
        assertThat(refused("{\"ruleset_key\":\"K\",\"ruleset_version\":1,\"execution_mode\":\"FIRST_MATCH\",\"description\":5,"
                + "\"rules\":[{\"rule_id\":\"r\",\"action\":\"APPROVE\",\"description\":5}]}"))
                .containsExactly("description: expected a string", "rules[0].description: expected a string");
    }

    @Test
    void l06_anEmptyRuleListLoadsAndEveryTransactionGetsTheDefault() {
        CompiledRuleset rs = json("{" + HEAD + ",\"rules\":[]}");
        assertThat(rs.ruleCount()).isZero();
        Evaluation e = eval(rs, "{\"transaction_id\":\"t\",\"amount\":5}");
        assertThat(e.decision()).isEqualTo(Outcome.APPROVE);
        assertThat(e.ruleId()).isNull();
        assertThat(refused("{" + HEAD + "}")).containsExactly("rules: is required");
        assertThat(refused(doc("\"r1\""))).containsExactly("rules[0]: expected an object (a rule)");
    }

    // ---- rule ----------------------------------------------------------------------------------------

    @Test
    void l07_ruleIdOrRuleIdCamelAndARuleWithoutIdIsRefusedNotDropped() {
        CompiledRuleset rs = json(doc("{\"ruleId\":\"camel\",\"action\":\"DECLINE\"}"));
        assertThat(eval(rs, "{\"transaction_id\":\"t\"}").ruleId()).isEqualTo("camel");
        assertThat(refused(doc("{\"ruleId\":\"a\",\"action\":\"DECLINE\"},{\"ruleId\":\"a\",\"action\":\"DECLINE\"}")))
                .containsExactly("rules[1].ruleId: duplicate rule_id \"a\" (first used at rules[0])");
        assertThat(refused(doc("{\"name\":\"no id\",\"action\":\"DECLINE\"}"))).containsExactly("rules[0].rule_id: is required");
    }

    @Test
    void l08_ruleVersionOrRuleVersionCamelAndOtherRuleKeysAreIgnored() {
        CompiledRuleset rs = json(doc("{\"rule_id\":\"a\",\"ruleVersion\":7,\"rule_version_id\":\"uuid-1\",\"ruleVersionId\":\"u\","
                + "\"name\":\"A\",\"created_by\":\"ops\",\"action\":\"DECLINE\"},{\"rule_id\":\"b\",\"rule_version\":0,\"action\":\"APPROVE\"}"));
        assertThat(rs.document().rules()).extracting(r -> r.ruleVersion()).containsExactly(7, 0);
        assertThat(refused(doc("{\"rule_id\":\"a\",\"rule_version\":-1,\"action\":\"DECLINE\"}")))
                .containsExactly("rules[0].rule_version: must not be negative");
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "true|DECLINE", "false|APPROVE", "\"true\"|DECLINE", "\" false \"|APPROVE", "1|DECLINE", "0|APPROVE",
            "null|DECLINE",
    })
    void l09_enabledIsABooleanOrItsTextOrAnInteger(String enabled, Outcome expected) {
        CompiledRuleset rs = json(doc("{\"rule_id\":\"r\",\"enabled\":" + enabled + ",\"action\":\"DECLINE\"}"));
        assertThat(decide(rs, "{\"transaction_id\":\"t\"}")).isEqualTo(expected);
    }

    @Test
    void l09_otherEnabledValuesAreRefused() {
        assertThat(refused(doc("{\"rule_id\":\"r\",\"enabled\":\"yes\",\"action\":\"DECLINE\"}")))
                .containsExactly("rules[0].enabled: expected a boolean (the legacy format also takes \"true\", \"false\" and integers)");
    }

    @Test
    void l10_priorityIsAnIntegerDefaultZeroAndTextIsRefused() {
        CompiledRuleset rs = json(doc("{\"rule_id\":\"low\",\"action\":\"APPROVE\"},{\"rule_id\":\"high\",\"priority\":5,\"action\":\"DECLINE\"}"));
        assertThat(rs.document().rules()).extracting(r -> r.priority()).containsExactly(0, 5);
        assertThat(eval(rs, "{\"transaction_id\":\"t\"}").ruleId()).isEqualTo("high");
        // The old engine read "10" as 0 and 1.5 as 1 without a word.
        assertThat(refused(doc("{\"rule_id\":\"r\",\"priority\":\"10\",\"action\":\"DECLINE\"},"
                + "{\"rule_id\":\"s\",\"priority\":1.5,\"action\":\"DECLINE\"}")))
                .containsExactly("rules[0].priority: expected an integer", "rules[1].priority: expected an integer");
    }

    @Test
    void l11_theConditionMayBeCalledWhenAndAbsentMeansAlways() {
        CompiledRuleset rs = json(doc("{\"rule_id\":\"w\",\"when\":{\"field\":\"amount\",\"op\":\"gt\",\"value\":100},\"action\":\"DECLINE\"},"
                + "{\"rule_id\":\"always\",\"priority\":-1,\"condition\":null,\"action\":\"REVIEW\"}"));
        assertThat(eval(rs, "{\"transaction_id\":\"t\",\"amount\":150}").ruleId()).isEqualTo("w");
        assertThat(eval(rs, "{\"transaction_id\":\"t\",\"amount\":50}").ruleId()).isEqualTo("always");
        assertThat(refused(doc("{\"rule_id\":\"w\",\"when\":{\"field\":\"amount\",\"op\":\"gt\"},\"action\":\"DECLINE\"}")))
                .containsExactly("rules[0].when.value: gt needs \"value\"");
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "\"decline\"|DECLINE",
            "\" Declined \"|DECLINE",
            "\"BLOCK\"|DECLINE",
            "\"allow\"|APPROVE",
            "\"approved\"|APPROVE",
            "\"flag\"|REVIEW",
            "{\"decision\":\"review\"}|REVIEW",
            "{\"action\":\"block\"}|DECLINE",
            "{\"decision\":\"DECLINE\",\"action\":\"APPROVE\"}|DECLINE",
            "{\"severity\":\"HIGH\"}|APPROVE",
            "null|APPROVE",
    })
    void l12_actionShapesAndSynonyms(String action, Outcome expected) {
        CompiledRuleset rs = json(doc("{\"rule_id\":\"r\",\"action\":" + action + "}"));
        Evaluation e = eval(rs, "{\"transaction_id\":\"t\"}");
        assertThat(e.decision()).isEqualTo(expected);
        assertThat(e.ruleId()).isEqualTo("r");
    }

    @Test
    void l12_aMissingActionApprovesAReasonCodeIsKeptAndAnUnknownDecisionIsRefused() {
        CompiledRuleset rs = json(doc("{\"rule_id\":\"r\"}"));
        assertThat(eval(rs, "{\"transaction_id\":\"t\"}").ruleId()).isEqualTo("r");
        CompiledRuleset monitoring = json("{\"schema_version\":1,\"ruleset_key\":\"CARD_MONITORING\",\"ruleset_version\":1,"
                + "\"rules\":[{\"rule_id\":\"m\",\"action\":{\"severity\":\"HIGH\",\"reason_code\":\"BIG\"}}]}");
        Evaluation e = monitoring.prepare(txn("{\"transaction_id\":\"t\",\"decision\":\"APPROVE\"}"), EvaluationType.MONITORING)
                .decide(null, io.vigil.rules.eval.VelocityFailurePolicy.SKIP);
        assertThat(e.matchedRules()).extracting(m -> m.ruleId() + "/" + m.decision() + "/" + m.reasonCode())
                .containsExactly("m/APPROVE/BIG");
        // The old engine approved on any word it did not know.
        assertThat(refused(doc("{\"rule_id\":\"r\",\"action\":{\"action\":\"ESCALATE\"}},{\"rule_id\":\"s\",\"action\":\"HOLD\"}")))
                .containsExactly("rules[0].action.action: unknown decision \"ESCALATE\" (expected APPROVE, DECLINE or REVIEW)",
                        "rules[1].action: unknown decision \"HOLD\" (expected APPROVE, DECLINE or REVIEW)");
    }

    // ---- conditions ------------------------------------------------------------------------------------

    private static final String BIG = "{\"field\":\"amount\",\"op\":\"gt\",\"value\":100}";
    private static final String US = "{\"field\":\"country_code\",\"op\":\"eq\",\"value\":\"US\"}";

    /** Decisions for (amount 150, US), (amount 150, FR), (amount 50, US), (amount 50, FR). */
    private static String truthTable(CompiledRuleset rs) {
        StringBuilder sb = new StringBuilder();
        for (String t : List.of("\"amount\":150,\"country_code\":\"US\"", "\"amount\":150,\"country_code\":\"FR\"",
                "\"amount\":50,\"country_code\":\"US\"", "\"amount\":50,\"country_code\":\"FR\"")) {
            sb.append(decide(rs, "{\"transaction_id\":\"t\"," + t + "}") == Outcome.DECLINE ? 'T' : 'F');
        }
        return sb.toString();
    }

    @Test
    void l13_keyStyleLogicalNodes() {
        assertThat(truthTable(declineWhen("{\"and\":[" + BIG + "," + US + "]}"))).isEqualTo("TFFF");
        assertThat(truthTable(declineWhen("{\"or\":[" + BIG + "," + US + "]}"))).isEqualTo("TTTF");
        assertThat(truthTable(declineWhen("{\"not\":" + US + "}"))).isEqualTo("FTFT");
        assertThat(truthTable(declineWhen("{\"not\":[" + US + "]}"))).isEqualTo("FTFT");
    }

    @Test
    void l14_opStyleLogicalNodesWithArgsOrConditionsInAnyCase() {
        assertThat(truthTable(declineWhen("{\"op\":\"AND\",\"args\":[" + BIG + "," + US + "]}"))).isEqualTo("TFFF");
        assertThat(truthTable(declineWhen("{\"operator\":\"or\",\"conditions\":[" + BIG + "," + US + "]}"))).isEqualTo("TTTF");
        assertThat(truthTable(declineWhen("{\"op\":\" Not \",\"args\":" + US + "}"))).isEqualTo("FTFT");
        assertThat(truthTable(declineWhen("{\"op\":\"not\",\"conditions\":[" + US + "]}"))).isEqualTo("FTFT");
    }

    @Test
    void l15_typeStyleNodes() {
        String big = "{\"type\":\"condition\",\"field\":\"amount\",\"operator\":\"gt\",\"value\":100}";
        String us = "{\"type\":\"Condition\",\"field\":\"country_code\",\"op\":\"eq\",\"value\":\"US\"}";
        assertThat(truthTable(declineWhen("{\"type\":\"AND\",\"conditions\":[" + big + "," + us + "]}"))).isEqualTo("TFFF");
        assertThat(truthTable(declineWhen("{\"type\":\"or\",\"conditions\":[" + big + "," + us + "]}"))).isEqualTo("TTTF");
        assertThat(truthTable(declineWhen("{\"type\":\"not\",\"conditions\":[" + us + "]}"))).isEqualTo("FTFT");
        assertThat(truthTable(declineWhen("{\"type\":\"not\",\"conditions\":" + us + "}"))).isEqualTo("FTFT");
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            // spelling | field | operand | matching transaction field | non-matching
            "gt|amount|\"value\":100|\"amount\":101|\"amount\":100",
            ">|amount|\"value\":100|\"amount\":101|\"amount\":100",
            "gte|amount|\"value\":100|\"amount\":100|\"amount\":99",
            ">=|amount|\"value\":100|\"amount\":100|\"amount\":99",
            "lt|amount|\"value\":100|\"amount\":99|\"amount\":100",
            "<|amount|\"value\":100|\"amount\":99|\"amount\":100",
            "lte|amount|\"value\":100|\"amount\":100|\"amount\":101",
            "<=|amount|\"value\":100|\"amount\":100|\"amount\":101",
            "eq|currency|\"value\":\"USD\"|\"currency\":\"USD\"|\"currency\":\"EUR\"",
            "EQ|currency|\"value\":\"USD\"|\"currency\":\"USD\"|\"currency\":\"EUR\"",
            " equals |currency|\"value\":\"USD\"|\"currency\":\"USD\"|\"currency\":\"EUR\"",
            "=|currency|\"value\":\"USD\"|\"currency\":\"USD\"|\"currency\":\"EUR\"",
            "==|currency|\"value\":\"USD\"|\"currency\":\"USD\"|\"currency\":\"EUR\"",
            "ne|currency|\"value\":\"USD\"|\"currency\":\"EUR\"|\"currency\":\"USD\"",
            "not_equals|currency|\"value\":\"USD\"|\"currency\":\"EUR\"|\"currency\":\"USD\"",
            "!=|currency|\"value\":\"USD\"|\"currency\":\"EUR\"|\"currency\":\"USD\"",
            "neq|currency|\"value\":\"USD\"|\"currency\":\"EUR\"|\"currency\":\"USD\"",
            "in|currency|\"values\":[\"USD\",\"CAD\"]|\"currency\":\"CAD\"|\"currency\":\"EUR\"",
            "IN|currency|\"value\":[\"USD\",\"CAD\"]|\"currency\":\"CAD\"|\"currency\":\"EUR\"",
            "not_in|currency|\"values\":[\"USD\",\"CAD\"]|\"currency\":\"EUR\"|\"currency\":\"USD\"",
            "between|amount|\"values\":[10,20]|\"amount\":20|\"amount\":21",
            "contains|merchant_name|\"value\":\"casino\"|\"merchant_name\":\"big casino ltd\"|\"merchant_name\":\"shop\"",
            "starts_with|card_bin|\"value\":\"4111\"|\"card_bin\":\"411111\"|\"card_bin\":\"511111\"",
            "ends_with|email|\"value\":\"@x.ru\"|\"email\":\"a@x.ru\"|\"email\":\"a@x.com\"",
            "regex|email|\"value\":\"[a-z]+@x\\\\.ru\"|\"email\":\"ab@x.ru\"|\"email\":\"ab@x.rus\"",
            "matches|email|\"value\":\"[a-z]+@x\\\\.ru\"|\"email\":\"ab@x.ru\"|\"email\":\"1ab@x.ru\"",
            "exists|email||\"email\":\"a@b.c\"|\"phone\":\"1\"",
    })
    void l16_everyOperatorSpellingOfTheOldEngineMeansWhatItMeantThere(String op, String field, String operand,
                                                                      String matching, String notMatching) {
        String leaf = "{\"field\":\"" + field + "\",\"op\":\"" + op + "\"" + (operand == null ? "" : "," + operand) + "}";
        CompiledRuleset rs = declineWhen(leaf);
        assertThat(decide(rs, "{\"transaction_id\":\"t\"," + matching + "}")).isEqualTo(Outcome.DECLINE);
        assertThat(decide(rs, "{\"transaction_id\":\"t\"," + notMatching + "}")).isEqualTo(Outcome.APPROVE);
        // "operator" is the other key for the same thing.
        CompiledRuleset viaOperator = declineWhen(leaf.replace("\"op\":", "\"operator\":"));
        assertThat(decide(viaOperator, "{\"transaction_id\":\"t\"," + matching + "}")).isEqualTo(Outcome.DECLINE);
    }

    @Test
    void l16_anUnknownOperatorIsRefusedNotReadAsEq() {
        assertThat(refused(doc("{\"rule_id\":\"r\",\"condition\":{\"field\":\"email\",\"operator\":\"like\",\"value\":\"x\"},"
                + "\"action\":\"DECLINE\"}")))
                .containsExactly("rules[0].condition.operator: unknown operator \"like\" (did you mean \"regex\"?)");
        assertThat(refused(doc("{\"rule_id\":\"r\",\"condition\":{\"field\":\"email\",\"op\":\"eq\",\"operator\":\"ne\",\"value\":\"x\"},"
                + "\"action\":\"DECLINE\"}")))
                .containsExactly("rules[0].condition: has both \"op\" and \"operator\"; use one");
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "txn_id|\"transaction_id\":\"X\"||",
            "card|\"card_hash\":\"X\"||",
            "merch_id|\"merchant_id\":\"X\"||",
            "merch_category|\"merchant_category\":\"X\"||",
            "mcc|\"merchant_category_code\":\"5411\"|5411|5412",
            "ip|\"ip_address\":\"X\"||",
            "device|\"device_id\":\"X\"||",
            "network|\"card_network\":\"X\"||",
            "bin|\"card_bin\":\"41111111\"|41111111|51111111",
            "logo|\"card_logo\":\"X\"||",
            "billing_city|\"billing_address\":{\"city\":\"X\"}||",
            "billing_country|\"billing_address\":{\"country\":\"FR\"}|FR|DE",
            "billing_postal_code|\"billing_address\":{\"postal_code\":\"X\"}||",
            "shipping_city|\"shipping_address\":{\"city\":\"X\"}||",
            "shipping_country|\"shipping_address\":{\"country\":\"FR\"}|FR|DE",
            "shipping_postal_code|\"shipping_address\":{\"postal_code\":\"X\"}||",
            "Merchant_ID|\"merchant_id\":\"X\"||",
            "loyalty_tier|\"custom_fields\":{\"loyalty_tier\":\"X\"}||",
    })
    void l17_everyNameOfTheOldFieldRegistryAndBareCustomNames(String name, String matching, String value, String other) {
        String v = value == null ? "X" : value;
        CompiledRuleset rs = declineWhen("{\"field\":\"" + name + "\",\"op\":\"eq\",\"value\":\"" + v + "\"}");
        // the transaction id is the matched field itself for txn_id: a request names it once (duplicate keys are refused)
        String id = matching.contains("\"transaction_id\"") ? "" : "\"transaction_id\":\"t0\",";
        assertThat(decide(rs, "{" + id + matching + "}")).isEqualTo(Outcome.DECLINE);
        String otherTxn = matching.replace("\"" + v + "\"", "\"" + (other == null ? "Y" : other) + "\"");
        assertThat(decide(rs, "{" + id + otherTxn + "}")).isEqualTo(Outcome.APPROVE);
    }

    @Test
    void l17_registryNamesWorkInTheNativeFormatTooAndNearMissesAreRefused() {
        CompiledRuleset rs = TestRulesets.yaml("""
                ruleset_key: K
                ruleset_version: 1
                execution_mode: FIRST_MATCH
                rules:
                  - rule_id: r
                    condition: {and: [{field: billing_country, op: ne, value: US}, {field: merch_category, op: eq, value: gambling}]}
                    action: DECLINE
                """);
        assertThat(decide(rs, "{\"transaction_id\":\"t\",\"billing_address\":{\"country\":\"FR\"},\"merchant_category\":\"gambling\"}"))
                .isEqualTo(Outcome.DECLINE);
        assertThat(refused(doc("{\"rule_id\":\"r\",\"condition\":{\"field\":\"amout\",\"op\":\"gt\",\"value\":1},\"action\":\"DECLINE\"}")))
                .containsExactly("rules[0].condition.field: unknown field \"amout\" (did you mean \"amount\"?)");
    }

    @Test
    void l18_inWithASingleValueIsAListOfOne() {
        CompiledRuleset rs = declineWhen("{\"field\":\"currency\",\"op\":\"in\",\"value\":\"USD\"}");
        assertThat(decide(rs, "{\"transaction_id\":\"t\",\"currency\":\"USD\"}")).isEqualTo(Outcome.DECLINE);
        assertThat(decide(rs, "{\"transaction_id\":\"t\",\"currency\":\"EUR\"}")).isEqualTo(Outcome.APPROVE);
        CompiledRuleset notIn = declineWhen("{\"field\":\"amount\",\"op\":\"not_in\",\"value\":5}");
        assertThat(decide(notIn, "{\"transaction_id\":\"t\",\"amount\":6}")).isEqualTo(Outcome.DECLINE);
        assertThat(decide(notIn, "{\"transaction_id\":\"t\",\"amount\":5.0}")).isEqualTo(Outcome.APPROVE);
    }

    @Test
    void l19_betweenTakesItsBoundsInEitherOrder() {
        CompiledRuleset rs = declineWhen("{\"field\":\"amount\",\"op\":\"between\",\"values\":[500,100]}");
        assertThat(decide(rs, "{\"transaction_id\":\"t\",\"amount\":100}")).isEqualTo(Outcome.DECLINE);
        assertThat(decide(rs, "{\"transaction_id\":\"t\",\"amount\":500}")).isEqualTo(Outcome.DECLINE);
        assertThat(decide(rs, "{\"transaction_id\":\"t\",\"amount\":501}")).isEqualTo(Outcome.APPROVE);
    }

    @Test
    void l20_existsIgnoresAValueOfTrueOrNullAndRefusesAnyOther() {
        for (String v : List.of("true", "null")) {
            CompiledRuleset rs = declineWhen("{\"field\":\"email\",\"op\":\"exists\",\"value\":" + v + "}");
            assertThat(decide(rs, "{\"transaction_id\":\"t\",\"email\":\"a@b.c\"}")).isEqualTo(Outcome.DECLINE);
            assertThat(decide(rs, "{\"transaction_id\":\"t\"}")).isEqualTo(Outcome.APPROVE);
        }
        // "value": false reads like "does not exist", which the old engine ignored: refuse rather than guess.
        assertThat(refused(doc("{\"rule_id\":\"r\",\"condition\":{\"field\":\"email\",\"op\":\"exists\",\"value\":false},"
                + "\"action\":\"DECLINE\"}"))).containsExactly("rules[0].condition.value: exists takes no value");
    }

    @Test
    void l20_eqNullMeansMissingAndNeNullPresent() {
        CompiledRuleset eqNull = declineWhen("{\"field\":\"email\",\"op\":\"eq\",\"value\":null}");
        assertThat(decide(eqNull, "{\"transaction_id\":\"t\"}")).isEqualTo(Outcome.DECLINE);
        assertThat(decide(eqNull, "{\"transaction_id\":\"t\",\"email\":null}")).isEqualTo(Outcome.DECLINE);
        assertThat(decide(eqNull, "{\"transaction_id\":\"t\",\"email\":\"a@b.c\"}")).isEqualTo(Outcome.APPROVE);
        CompiledRuleset neNull = declineWhen("{\"field\":\"email\",\"op\":\"!=\",\"value\":null}");
        assertThat(decide(neNull, "{\"transaction_id\":\"t\"}")).isEqualTo(Outcome.APPROVE);
        assertThat(decide(neNull, "{\"transaction_id\":\"t\",\"email\":\"a@b.c\"}")).isEqualTo(Outcome.DECLINE);
        // Without a value at all it is malformed, as before; a custom field's "null" was ambiguous there (refused).
        assertThat(refused(doc("{\"rule_id\":\"r\",\"condition\":{\"field\":\"email\",\"op\":\"eq\"},\"action\":\"DECLINE\"},"
                + "{\"rule_id\":\"s\",\"condition\":{\"field\":\"custom_fields.tier\",\"op\":\"eq\",\"value\":null},\"action\":\"DECLINE\"}")))
                .containsExactly("rules[0].condition.value: eq needs \"value\"",
                        "rules[1].condition.value: expected a single value");
    }

    @Test
    void l21_textOperatorsTakeAnIntegerOperandAsItsDecimalText() {
        CompiledRuleset rs = declineWhen("{\"field\":\"card_bin\",\"op\":\"starts_with\",\"value\":4111}");
        assertThat(decide(rs, "{\"transaction_id\":\"t\",\"card_bin\":\"41119999\"}")).isEqualTo(Outcome.DECLINE);
        assertThat(decide(rs, "{\"transaction_id\":\"t\",\"card_bin\":\"51119999\"}")).isEqualTo(Outcome.APPROVE);
        assertThat(refused(doc("{\"rule_id\":\"r\",\"condition\":{\"field\":\"card_bin\",\"op\":\"contains\",\"value\":4.5},"
                + "\"action\":\"DECLINE\"}"))).containsExactly("rules[0].condition.value: expected a string");
    }

    @Test
    void l22_aLegacyRegexMustMatchTheWholeValueANativeOneIsFound() {
        String leaf = "{\"field\":\"merchant_name\",\"op\":\"regex\",\"value\":\"casino|bet\"}";
        CompiledRuleset legacy = declineWhen(leaf);
        assertThat(decide(legacy, "{\"transaction_id\":\"t\",\"merchant_name\":\"bet\"}")).isEqualTo(Outcome.DECLINE);
        assertThat(decide(legacy, "{\"transaction_id\":\"t\",\"merchant_name\":\"casino\"}")).isEqualTo(Outcome.DECLINE);
        assertThat(decide(legacy, "{\"transaction_id\":\"t\",\"merchant_name\":\"big casino\"}")).isEqualTo(Outcome.APPROVE);
        CompiledRuleset nativeFind = json("{\"ruleset_key\":\"K\",\"ruleset_version\":1,\"execution_mode\":\"FIRST_MATCH\","
                + "\"rules\":[{\"rule_id\":\"r\",\"condition\":" + leaf + ",\"action\":\"DECLINE\"}]}");
        assertThat(decide(nativeFind, "{\"transaction_id\":\"t\",\"merchant_name\":\"big casino\"}")).isEqualTo(Outcome.DECLINE);
        // RE2 syntax: lookaround and backreferences need backtracking and are refused with the path.
        assertThat(refused(doc("{\"rule_id\":\"r\",\"condition\":{\"field\":\"email\",\"op\":\"regex\",\"value\":\"(a)\\\\1\"},"
                + "\"action\":\"DECLINE\"}"))).hasSize(1).first().asString()
                .startsWith("rules[0].condition.value: invalid regex: ");
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "{\"op\":\"and\",\"args\":[]}|rules[0].condition.args: and needs at least one condition",
            "{\"type\":\"or\"}|rules[0].condition.conditions: or needs \"conditions\"",
            "{\"op\":\"not\",\"args\":[{\"field\":\"email\",\"op\":\"exists\"},{\"field\":\"phone\",\"op\":\"exists\"}]}"
                    + "|rules[0].condition.args: not takes exactly one condition",
            "{\"op\":\"gt\",\"value\":1}|rules[0].condition.field: is required",
            "{\"type\":\"leaf\",\"field\":\"amount\"}|rules[0].condition.type: unknown node type \"leaf\" (expected and, or, not or condition)",
            "{\"op\":\"and\",\"args\":[{\"field\":\"email\",\"op\":\"exists\"}],\"note\":\"x\"}"
                    + "|rules[0].condition.note: unknown key \"note\" (a logical node has \"op\" and \"args\")",
            "{\"field\":\"email\",\"op\":\"exists\",\"args\":[]}"
                    + "|rules[0].condition.args: unknown key \"args\" (a leaf has field, op and value or values)",
            "{}|rules[0].condition: expected a condition: a leaf {field, op, value} or one of and/or/not (the node is empty)",
    })
    void l23_malformedNodesTheOldEngineReadAsTrueAreRefusedWithTheirPath(String condition, String expected) {
        assertThat(refused(doc("{\"rule_id\":\"r\",\"condition\":" + condition + ",\"action\":\"DECLINE\"}")))
                .containsExactly(expected);
    }

    @Test
    void l23_extraKeysOfALeafAreIgnored() {
        CompiledRuleset rs = declineWhen("{\"field\":\"amount\",\"op\":\"gt\",\"value\":100,\"field_id\":3,\"label\":\"big\"}");
        assertThat(decide(rs, "{\"transaction_id\":\"t\",\"amount\":150}")).isEqualTo(Outcome.DECLINE);
    }

    // ---- velocity --------------------------------------------------------------------------------------

    private static VelocityCheck onlyCheck(CompiledRuleset rs) {
        VelocityRequest req = rs.prepare(txn("{\"transaction_id\":\"t\",\"card_hash\":\"c\"}"), EvaluationType.AUTH).velocityRequest();
        assertThat(req.checks()).hasSize(1);
        return req.checks().get(0);
    }

    @Test
    void l24_velocityDefaultsTextNumbersAndItsOwnAction() {
        VelocityCheck defaults = onlyCheck(json(doc("{\"rule_id\":\"v\",\"velocity\":{\"dimension\":\"card_hash\"},\"action\":\"DECLINE\"}")));
        assertThat(defaults.windowSeconds()).isEqualTo(3600);
        assertThat(defaults.threshold()).isEqualTo(10);
        VelocityCheck text = onlyCheck(json(doc("{\"rule_id\":\"v\",\"velocity\":{\"dimension\":\"card_hash\",\"window_seconds\":\"300\","
                + "\"threshold\":\" 4 \",\"comparison\":\">=\"},\"action\":\"DECLINE\"}")));
        assertThat(text.windowSeconds()).isEqualTo(300);
        assertThat(text.threshold()).isEqualTo(4);
        CompiledRuleset own = json(doc("{\"rule_id\":\"v\",\"velocity\":{\"dimension\":\"card_hash\",\"window_seconds\":60,"
                + "\"threshold\":3,\"action\":\"block\"},\"action\":\"APPROVE\"}"));
        assertThat(evalWithVelocity(own, "{\"transaction_id\":\"t\",\"card_hash\":\"c\"}", 3).decision()).isEqualTo(Outcome.DECLINE);
        assertThat(evalWithVelocity(own, "{\"transaction_id\":\"t\",\"card_hash\":\"c\"}", 2).ruleId()).isNull();
    }

    @Test
    void l24_velocityValuesTheOldEngineMisreadAreRefused() {
        // 2.5 was truncated to 2 (count >= 2), and 0 silently became the engine's default.
        assertThat(refused(doc("{\"rule_id\":\"v\",\"velocity\":{\"dimension\":\"card_hash\",\"threshold\":2.5},\"action\":\"DECLINE\"},"
                + "{\"rule_id\":\"w\",\"velocity\":{\"dimension\":\"card_hash\",\"window_seconds\":0},\"action\":\"DECLINE\"},"
                + "{\"rule_id\":\"x\",\"velocity\":{\"window_seconds\":60},\"action\":\"DECLINE\"},"
                + "{\"rule_id\":\"y\",\"velocity\":{\"dimension\":\"card_hash\",\"comparison\":\">\"},\"action\":\"DECLINE\"}")))
                .containsExactly("rules[0].velocity.threshold: expected an integer",
                        "rules[1].velocity.window_seconds: must be between 1 and 604800 seconds (7 days), got 0",
                        "rules[2].velocity.dimension: is required",
                        "rules[3].velocity.comparison: only \">=\" is supported (the rule matches when the count reaches the threshold)");
        // The old engine looked an unknown dimension up in custom_fields; Vigil's velocity keys are registry fields.
        assertThat(refused(doc("{\"rule_id\":\"v\",\"velocity\":{\"dimension\":\"loyalty_id\"},\"action\":\"DECLINE\"}")))
                .containsExactly("rules[0].velocity.dimension: unknown dimension \"loyalty_id\" (use a transaction field that"
                        + " identifies something, e.g. card_hash, device_id, ip_address, email, merchant_id)");
    }

    // ---- scope -----------------------------------------------------------------------------------------

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {"\"GLOBAL\"", "\"global\"", "{}", "[]", "null", "{\"network\":[]}"})
    void l25_globalScopeShapes(String scope) {
        CompiledRuleset rs = json(doc("{\"rule_id\":\"r\",\"scope\":" + scope + ",\"action\":\"DECLINE\"}"));
        assertThat(decide(rs, "{\"transaction_id\":\"t\",\"card_network\":\"AMEX\"}")).isEqualTo(Outcome.DECLINE);
        assertThat(decide(rs, "{\"transaction_id\":\"t\"}")).isEqualTo(Outcome.DECLINE);
    }

    @Test
    void l25_scopeValuesAreAStringOrAListAndNetworkAndLogoIgnoreCase() {
        CompiledRuleset rs = json(doc("{\"rule_id\":\"r\",\"scope\":{\"network\":\"visa\",\"logo\":[\"Platinum\",\"GOLD\"],"
                + "\"bin\":[\"4111\"],\"mcc\":\"5411\"},\"action\":\"DECLINE\"}"));
        String in = "{\"transaction_id\":\"t\",\"card_network\":\"VISA\",\"card_logo\":\"gold\",\"card_bin\":\"41112222\","
                + "\"merchant_category_code\":\"5411\"}";
        assertThat(decide(rs, in)).isEqualTo(Outcome.DECLINE);
        assertThat(decide(rs, in.replace("\"VISA\"", "\"Visa\""))).isEqualTo(Outcome.DECLINE);
        assertThat(decide(rs, in.replace("\"VISA\"", "\"AMEX\""))).isEqualTo(Outcome.APPROVE);
        assertThat(decide(rs, in.replace("41112222", "51112222"))).isEqualTo(Outcome.APPROVE);
        assertThat(decide(rs, in.replace("5411", "5412"))).isEqualTo(Outcome.APPROVE);
    }

    @Test
    void l25_scopeShapesTheOldEngineMisreadAsGlobalAreRefused() {
        assertThat(refused(doc("{\"rule_id\":\"r\",\"scope\":{\"type\":\"NETWORK\",\"value\":\"VISA\"},\"action\":\"DECLINE\"},"
                + "{\"rule_id\":\"s\",\"scope\":\"VISA\",\"action\":\"DECLINE\"}")))
                .containsExactly("rules[0].scope.type: unknown key \"type\"", "rules[0].scope.value: unknown key \"value\"",
                        "rules[1].scope: expected an object with any of network, bin, mcc, logo, country");
    }

    // ---- the old engine's YAML format ---------------------------------------------------------------

    private static final String YAML_FORMAT = """
            key: CARD_AUTH
            version: 1
            name: Test ruleset
            description: written in the old engine's YAML format
            evaluation_type: AUTH
            created_by: ops
            rules:
              - id: big-foreign
                name: Amount over 100 in USD or EUR
                priority: 100
                enabled: true
                action: REVIEW
                conditions:
                  - {field: amount, operator: gt, value: 100}
                  - {field: currency, operator: in, values: [USD, EUR]}
              - id: visa-any
                priority: 50
                action: DECLINE
                scope: {type: NETWORK, value: visa}
                conditions: []
              - id: mastercard-gambling
                action: DECLINE
                scope: {type: COMBINED, dimensions: {network: [MASTERCARD], mcc: ["7995"]}}
              - id: bins
                action: DECLINE
                scope: {type: bin, values: ["5555"]}
            """;

    @Test
    void l26_theOldEnginesYamlFormat() {
        CompiledRuleset rs = TestRulesets.yaml(YAML_FORMAT);
        assertThat(rs.document().legacy()).isTrue();
        assertThat(rs.key()).isEqualTo("CARD_AUTH");
        assertThat(rs.executionMode()).isEqualTo(ExecutionMode.FIRST_MATCH);
        String base = "{\"transaction_id\":\"t\",\"amount\":150,\"currency\":\"USD\",\"card_network\":\"AMEX\"";
        assertThat(eval(rs, base + "}").ruleId()).isEqualTo("big-foreign");
        assertThat(eval(rs, base.replace("USD", "GBP") + "}").ruleId()).isNull();
        assertThat(eval(rs, base.replace("AMEX", "VISA") + "}").ruleId()).isEqualTo("visa-any");
        assertThat(eval(rs, base.replace("150", "10").replace("AMEX", "MASTERCARD") + ",\"merchant_category_code\":\"7995\"}")
                .ruleId()).isEqualTo("mastercard-gambling");
        assertThat(eval(rs, base.replace("150", "10").replace("AMEX", "MASTERCARD") + ",\"merchant_category_code\":\"5411\"}")
                .ruleId()).isNull();
        assertThat(eval(rs, base.replace("150", "10") + ",\"card_bin\":\"55551234\"}").ruleId()).isEqualTo("bins");
        assertThat(TestRulesets.yaml(YAML_FORMAT.replace("evaluation_type: AUTH", "evaluation_type: MONITORING")).executionMode())
                .isEqualTo(ExecutionMode.ALL_MATCHING);
        assertThat(errors(YAML_FORMAT.replace("id: bins", "id: visa-any"), RulesetFormat.YAML)).extracting(ValidationError::toString)
                .containsExactly("rules[3].id: duplicate rule_id \"visa-any\" (first used at rules[1])");
    }

    @Test
    void l26_whatTheYamlFormatMisreadIsRefused() {
        String bad = YAML_FORMAT.replace("evaluation_type: AUTH", "evaluation_type: FRAUD")
                .replace("operator: gt", "operator: more_than")
                .replace("{type: NETWORK, value: visa}", "{type: CARD, value: visa}")
                .replace("{type: bin, values: [\"5555\"]}", "{type: BIN, values: [\"55-55\"]}");
        assertThat(errors(bad, RulesetFormat.YAML).stream().map(ValidationError::toString).toList()).containsExactly(
                "evaluation_type: unknown value \"FRAUD\" (expected AUTH or MONITORING)",
                "rules[0].conditions[0].operator: unknown operator \"more_than\"",
                "rules[1].scope.type: unknown scope type \"CARD\" (expected GLOBAL, NETWORK, BIN, MCC, LOGO or COMBINED)",
                "rules[3].scope.values[0]: a BIN prefix is 1 to 8 digits, got \"55-55\"");
    }
}
