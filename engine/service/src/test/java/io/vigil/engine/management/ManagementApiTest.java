package io.vigil.engine.management;

import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.equalTo;

import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.restassured.http.ContentType;
import io.restassured.path.json.JsonPath;
import io.vigil.engine.testing.CapturingDecisionSink;
import io.vigil.engine.testing.Management;
import io.vigil.engine.testing.Profiles;
import io.vigil.engine.testing.ScriptedVelocityStore;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The management port's ruleset API, health and documents, against the test fixtures. */
@QuarkusTest
@TestProfile(Profiles.Fixtures.class)
class ManagementApiTest {
    static final String INLINE_RULESET = """
            {"ruleset_key":"CARD_AUTH","ruleset_version":9,"execution_mode":"FIRST_MATCH",
             "rules":[
               {"rule_id":"big","priority":10,"condition":{"field":"amount","op":"gt","value":100},
                "action":{"decision":"DECLINE","reason_code":"BIG"}},
               {"rule_id":"card-velocity","priority":5,"condition":{"field":"card_hash","op":"exists"},
                "velocity":{"dimension":"card_hash","window_seconds":60,"aggregate":"count","threshold":2},
                "action":{"decision":"REVIEW","reason_code":"VEL"}}]}
            """;

    @BeforeEach
    void reset() {
        ScriptedVelocityStore.reset();
        CapturingDecisionSink.reset();
    }

    @Test
    void listsActiveRulesetsWithChecksums() {
        JsonPath list = Management.given().when().get("/rulesets").then().statusCode(200).extract().jsonPath();
        List<Map<String, Object>> rows = list.getList("rulesets");
        assertThat(rows).extracting(r -> r.get("key") + "/" + r.get("country") + "/v" + r.get("version"))
                .containsExactly("CARD_AUTH/global/v1", "CARD_AUTH/FR/v1", "CARD_MONITORING/global/v1");
        assertThat(rows).allSatisfy(r -> {
            assertThat((String) r.get("checksum")).matches("[0-9a-f]{64}");
            assertThat((Integer) r.get("rule_count")).isPositive();
            assertThat(r.get("loaded_at")).isNotNull();
            assertThat((String) r.get("source")).contains("rulesets");
        });
        assertThat(rows.get(0).get("rule_count")).isEqualTo(4);
        assertThat(list.getList("failures")).isEmpty();
    }

    @Test
    void validateReportsEveryErrorWithItsPath() {
        String bad = """
                {"ruleset_key":"CARD_AUTH","ruleset_version":3,"execution_mode":"FIRST_MATCH",
                 "rules":[
                   {"rule_id":"a","condition":{"field":"amount","op":"neq","value":1},"action":"DECLINE"},
                   {"rule_id":"a","condition":{"field":"no_such_field","op":"eq","value":1},"action":"DECLINE"},
                   {"rule_id":"c","condition":{"field":"email","op":"regex","value":"(["},"action":"DECLINE"}]}
                """;
        JsonPath v = Management.given().contentType(ContentType.JSON).body(bad)
                .when().post("/rulesets/validate").then().statusCode(200).extract().jsonPath();
        assertThat(v.getBoolean("valid")).isFalse();
        List<String> paths = v.getList("errors.path");
        assertThat(paths).hasSizeGreaterThanOrEqualTo(4)
                .contains("rules[0].condition.op", "rules[2].condition.value")
                .anySatisfy(p -> assertThat(p).startsWith("rules[1]"));
        assertThat(v.getList("errors.message", String.class)).anySatisfy(m -> assertThat(m).contains("neq"));
    }

    @Test
    void validateAcceptsYamlAndDescribesAValidRuleset() {
        String yaml = """
                ruleset_key: CARD_MONITORING
                ruleset_version: 4
                execution_mode: ALL_MATCHING
                country: DE
                rules:
                  - rule_id: x
                    condition: {field: amount, op: gt, value: 1}
                    action: {decision: REVIEW, reason_code: X}
                """;
        Management.given().contentType("application/yaml").body(yaml.getBytes(java.nio.charset.StandardCharsets.UTF_8))
                .when().post("/rulesets/validate")
                .then().statusCode(200)
                .body("valid", equalTo(true))
                .body("ruleset_key", equalTo("CARD_MONITORING"))
                .body("ruleset_version", equalTo(4))
                .body("country", equalTo("DE"))
                .body("rule_count", equalTo(1));
        Management.given().contentType(ContentType.JSON).body("")
                .when().post("/rulesets/validate").then().statusCode(400).body("code", equalTo("INVALID_REQUEST"));
    }

    @Test
    void simulateExplainsAnInlineRulesetWithReadOnlyVelocityAndNoSideEffects() {
        ScriptedVelocityStore.answer(5);
        String body = "{\"ruleset\":" + INLINE_RULESET + ",\"transaction\":{\"transaction_id\":\"sim-1\",\"card_hash\":\"c-9\",\"amount\":50}}";
        JsonPath s = Management.given().contentType(ContentType.JSON).body(body)
                .when().post("/simulate").then().statusCode(200).extract().jsonPath();
        assertThat(s.getString("ruleset_source")).isEqualTo("inline");
        assertThat(s.getString("result.decision")).isEqualTo("REVIEW");
        assertThat(s.getString("result.rule_id")).isEqualTo("card-velocity");
        assertThat(s.getInt("result.ruleset_version")).isEqualTo(9);
        assertThat(s.getList("result.velocity_results")).hasSize(1);
        assertThat(s.getMap("result.timing")).containsKey("total_us");
        assertThat(ScriptedVelocityStore.requests()).singleElement().satisfies(r -> assertThat(r.readOnly()).isTrue());
        assertThat(CapturingDecisionSink.of("sim-1")).isNull();
    }

    @Test
    void simulateAgainstTheActiveRuleset() {
        Management.given().contentType(ContentType.JSON)
                .body("{\"transaction\":{\"transaction_id\":\"sim-2\",\"amount\":150,\"country_code\":\"FR\"}}")
                .when().post("/simulate")
                .then().statusCode(200)
                .body("result.rule_id", equalTo("fr-review-over-100"))
                .body("result.decision", equalTo("REVIEW"));
    }

    @Test
    void simulateRejectsABadRulesetOrTransactionWithPaths() {
        Management.given().contentType(ContentType.JSON)
                .body("{\"ruleset\":{\"ruleset_key\":\"X\",\"ruleset_version\":1,\"execution_mode\":\"FIRST_MATCH\",\"rules\":[{\"rule_id\":\"r\",\"condition\":{\"field\":\"amount\",\"op\":\"bogus\",\"value\":1},\"action\":\"DECLINE\"}]},"
                        + "\"transaction\":{\"transaction_id\":\"sim-3\"}}")
                .when().post("/simulate")
                .then().statusCode(422).body("code", equalTo("RULESET_INVALID"))
                .body("errors[0].path", equalTo("ruleset.rules[0].condition.op"));
        Management.given().contentType(ContentType.JSON)
                .body("{\"ruleset\":" + INLINE_RULESET + ",\"transaction\":{\"transaction_id\":\"sim-4\",\"amount\":\"lots\"}}")
                .when().post("/simulate")
                .then().statusCode(400).body("code", equalTo("INVALID_REQUEST")).body("field", equalTo("transaction.amount"));
        Management.given().contentType(ContentType.JSON).body("not json")
                .when().post("/simulate").then().statusCode(400).body("code", equalTo("INVALID_REQUEST"));
    }

    @Test
    void replayEvaluatesStoredTransactionsAgainstAVersion() {
        String body = """
                {"ruleset_key":"CARD_AUTH","version":1,"transactions":[
                  {"transaction_id":"r-1","amount":10},
                  {"transaction_id":"r-2","amount":5000,"card_present":false},
                  {"transaction_id":"r-3","amount":150,"country_code":"FR"},
                  {"amount":1}
                ]}""";
        JsonPath r = Management.given().contentType(ContentType.JSON).body(body)
                .when().post("/replay").then().statusCode(200).extract().jsonPath();
        assertThat(r.getInt("ruleset_version")).isEqualTo(1);
        assertThat(r.getInt("count")).isEqualTo(4);
        assertThat(r.getList("results.decision")).containsExactly("APPROVE", "DECLINE", "REVIEW", null);
        assertThat(r.getString("results[3].error.field")).isEqualTo("transactions[3].transaction_id");
        assertThat(r.getInt("summary.APPROVE")).isEqualTo(1);
        assertThat(r.getInt("summary.DECLINE")).isEqualTo(1);
        assertThat(r.getInt("summary.REVIEW")).isEqualTo(1);
        assertThat(r.getInt("summary.errors")).isEqualTo(1);
        assertThat(CapturingDecisionSink.records()).noneMatch(d -> d.transactionId().startsWith("r-"));

        Management.given().contentType(ContentType.JSON).body("{\"ruleset_key\":\"CARD_AUTH\",\"version\":42,\"transactions\":[]}")
                .when().post("/replay").then().statusCode(404).body("code", equalTo("RULESET_NOT_FOUND"));
        Management.given().contentType(ContentType.JSON).body("{\"ruleset_key\":\"CARD_AUTH\",\"transactions\":{}}")
                .when().post("/replay").then().statusCode(400).body("field", equalTo("transactions"));
    }

    @Test
    void readyWithTheAuthRulesetLoaded() {
        JsonPath h = Management.given().when().get("/q/health/ready").then().extract().jsonPath();
        Map<String, Object> rulesets = h.getMap("checks.find { it.name == 'rulesets' }");
        assertThat(rulesets).containsEntry("status", "UP");
        Management.given().when().get("/q/health/live").then().statusCode(200);
    }

    @Test
    void servesTheOpenApiDocument() {
        String doc = Management.given().when().get("/q/openapi").then().statusCode(200).extract().asString();
        assertThat(doc).contains("/v1/evaluate/auth", "/v1/evaluate/monitoring", "/rulesets/validate", "/simulate", "/replay");
    }
}
