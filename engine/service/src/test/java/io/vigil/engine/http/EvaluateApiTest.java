package io.vigil.engine.http;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasSize;
import static org.hamcrest.Matchers.notNullValue;

import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.restassured.http.ContentType;
import io.restassured.path.json.JsonPath;
import io.vigil.engine.decision.DecisionRecord;
import io.vigil.engine.testing.CapturingDecisionSink;
import io.vigil.engine.testing.Management;
import io.vigil.engine.testing.Profiles;
import io.vigil.engine.testing.ScriptedVelocityStore;
import io.vigil.rules.eval.EngineMode;
import io.vigil.rules.eval.EvaluationType;
import io.vigil.rules.eval.Outcome;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.eclipse.microprofile.config.ConfigProvider;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The data port against the test fixtures (CARD_AUTH v1 global + FR, CARD_MONITORING v1). */
@QuarkusTest
@TestProfile(Profiles.Fixtures.class)
class EvaluateApiTest {
    static final List<String> SLIM_KEYS = List.of("transaction_id", "decision", "engine_mode", "engine_error_code",
            "ruleset_key", "ruleset_version", "rule_id", "reason_code", "decision_id");

    @BeforeEach
    void reset() {
        ScriptedVelocityStore.reset();
        CapturingDecisionSink.reset();
    }

    static JsonPath auth(String body) {
        return given().contentType(ContentType.JSON).body(body)
                .when().post("/v1/evaluate/auth")
                .then().statusCode(200).contentType(ContentType.JSON).extract().jsonPath();
    }

    @Test
    void approvesWhenNoRuleMatchesWithTheSlimAnswer() {
        JsonPath a = auth("{\"transaction_id\":\"t-approve\",\"card_hash\":\"c-1\",\"amount\":12.50,\"card_present\":true}");
        assertThat(a.getMap("").keySet()).containsExactlyElementsOf(SLIM_KEYS);
        assertThat(a.getString("transaction_id")).isEqualTo("t-approve");
        assertThat(a.getString("decision")).isEqualTo("APPROVE");
        assertThat(a.getString("engine_mode")).isEqualTo("NORMAL");
        assertThat(a.getString("engine_error_code")).isNull();
        assertThat(a.getString("ruleset_key")).isEqualTo("CARD_AUTH");
        assertThat(a.getInt("ruleset_version")).isEqualTo(1);
        assertThat(a.getString("rule_id")).isNull();
        assertThat(a.getString("reason_code")).isNull();
        assertThat(a.getString("decision_id")).matches("[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}");
    }

    @Test
    void declinesByTheFirstMatchingRule() {
        JsonPath a = auth("{\"transaction_id\":\"t-decline\",\"card_hash\":\"c-2\",\"amount\":1500,\"card_present\":false}");
        assertThat(a.getString("decision")).isEqualTo("DECLINE");
        assertThat(a.getString("engine_mode")).isEqualTo("NORMAL");
        assertThat(a.getString("rule_id")).isEqualTo("high-value-cnp");
        assertThat(a.getString("reason_code")).isEqualTo("HIGH_VALUE_CNP");

        JsonPath blocked = auth("{\"transaction_id\":\"t-blocked\",\"card_hash\":\"c-stolen\",\"amount\":1}");
        assertThat(blocked.getString("rule_id")).isEqualTo("blocked-card");
    }

    @Test
    void countryPartitionIsPreferredOverGlobal() {
        JsonPath fr = auth("{\"transaction_id\":\"t-fr\",\"card_hash\":\"c-3\",\"amount\":150,\"country_code\":\"FR\"}");
        assertThat(fr.getString("decision")).isEqualTo("REVIEW");
        assertThat(fr.getString("rule_id")).isEqualTo("fr-review-over-100");
        JsonPath de = auth("{\"transaction_id\":\"t-de\",\"card_hash\":\"c-3\",\"amount\":150,\"country_code\":\"DE\"}");
        assertThat(de.getString("decision")).isEqualTo("APPROVE");
    }

    @Test
    void explainAddsMatchedRulesVelocityAndTiming() {
        ScriptedVelocityStore.answer(4);
        String body = "{\"transaction_id\":\"t-explain\",\"card_hash\":\"c-4\",\"amount\":600,\"merchant_category_code\":\"7995\",\"card_present\":true}";
        JsonPath a = given().contentType(ContentType.JSON).body(body).queryParam("explain", "true")
                .when().post("/v1/evaluate/auth").then().statusCode(200).extract().jsonPath();
        assertThat(a.getString("decision")).isEqualTo("DECLINE");
        assertThat(a.getString("rule_id")).isEqualTo("gambling-card-velocity");
        assertThat(a.getString("reason_code")).isEqualTo("VELOCITY_GAMBLING_5M");
        List<Map<String, Object>> matched = a.getList("matched_rules");
        assertThat(matched).extracting(m -> m.get("rule_id")).contains("gambling-card-velocity", "watch-medium-amount");
        assertThat(matched).filteredOn(m -> m.get("rule_id").equals("watch-medium-amount"))
                .singleElement().satisfies(m -> assertThat(m.get("mode")).isEqualTo("SHADOW"));
        Map<String, Object> v = a.getMap("velocity_results[0]");
        assertThat(v).containsEntry("rule_id", "gambling-card-velocity").containsEntry("dimension", "card_hash")
                .containsEntry("value", "c-4").containsEntry("window_seconds", 300).containsEntry("aggregate", "count")
                .containsEntry("aggregate_value", 4).containsEntry("threshold", 3).containsEntry("exceeded", true)
                .containsEntry("available", true);
        assertThat(a.getMap("timing").keySet()).containsExactly("parse_us", "evaluate_us", "velocity_us", "total_us");
        assertThat(a.getLong("timing.total_us")).isGreaterThanOrEqualTo(a.getLong("timing.parse_us"));

        // the same through the header, and the one velocity round trip carried the rule's check
        JsonPath h = given().contentType(ContentType.JSON).header("X-Explain", "true").body(body.replace("t-explain", "t-explain-h"))
                .when().post("/v1/evaluate/auth").then().statusCode(200).extract().jsonPath();
        assertThat(h.getList("velocity_results")).hasSize(1);
        assertThat(ScriptedVelocityStore.requests()).hasSize(2);
        assertThat(ScriptedVelocityStore.requests().get(0).readOnly()).isFalse();
        assertThat(ScriptedVelocityStore.requests().get(0).transactionId()).isEqualTo("t-explain");
    }

    @Test
    void velocityBelowThresholdDoesNotDecide() {
        ScriptedVelocityStore.answer(2);
        JsonPath a = auth("{\"transaction_id\":\"t-vel-low\",\"card_hash\":\"c-5\",\"amount\":10,\"merchant_category_code\":\"7995\"}");
        assertThat(a.getString("decision")).isEqualTo("APPROVE");
        assertThat(a.getString("engine_mode")).isEqualTo("NORMAL");
    }

    @Test
    void velocityUnavailableIsDegradedNeverASilentZero() {
        ScriptedVelocityStore.behave(ScriptedVelocityStore.Behaviour.UNAVAILABLE);
        JsonPath a = auth("{\"transaction_id\":\"t-vel-down\",\"card_hash\":\"c-6\",\"amount\":10,\"merchant_category_code\":\"7995\"}");
        assertThat(a.getString("decision")).isEqualTo("APPROVE"); // policy skip
        assertThat(a.getString("engine_mode")).isEqualTo("DEGRADED");
        assertThat(a.getString("engine_error_code")).isEqualTo("VELOCITY_UNAVAILABLE");
    }

    @Test
    void monitoringEchoesTheCallersDecisionWithEveryMatchedRule() throws InterruptedException {
        JsonPath m = given().contentType(ContentType.JSON)
                .body("{\"transaction_id\":\"t-mon\",\"card_hash\":\"c-7\",\"amount\":2000,\"card_present\":false,\"decision\":\"APPROVE\"}")
                .when().post("/v1/evaluate/monitoring").then().statusCode(200).extract().jsonPath();
        assertThat(m.getString("decision")).isEqualTo("APPROVE");
        assertThat(m.getString("evaluation_type")).as("as the existing engine's answer").isEqualTo("MONITORING");
        assertThat(m.getString("ruleset_key")).isEqualTo("CARD_MONITORING");
        assertThat(m.getString("engine_mode")).isEqualTo("NORMAL");
        assertThat(m.getList("matched_rules.rule_id")).containsExactlyInAnyOrder("mon-high-amount", "mon-card-not-present");
        assertThat(m.getString("decision_id")).isNotBlank();
        DecisionRecord r = CapturingDecisionSink.await("t-mon");
        assertThat(r.type()).isEqualTo(EvaluationType.MONITORING);
        assertThat(r.decision()).isEqualTo(Outcome.APPROVE);
    }

    @Test
    void monitoringRequiresAValidDecision() {
        given().contentType(ContentType.JSON).body("{\"transaction_id\":\"t-mon-2\",\"amount\":1}")
                .when().post("/v1/evaluate/monitoring")
                .then().statusCode(400).body("code", equalTo("INVALID_REQUEST")).body("field", equalTo("decision"));
        given().contentType(ContentType.JSON).body("{\"transaction_id\":\"t-mon-3\",\"decision\":\"MAYBE\"}")
                .when().post("/v1/evaluate/monitoring")
                .then().statusCode(400).body("field", equalTo("decision")).body("message", containsString("MAYBE"));
    }

    @Test
    void everyAnswerGoesToTheSinkAfterwards() throws InterruptedException {
        auth("{\"transaction_id\":\"t-sink\",\"card_hash\":\"c-8\",\"amount\":1500,\"card_present\":false}");
        DecisionRecord r = CapturingDecisionSink.await("t-sink");
        assertThat(r).isNotNull();
        assertThat(r.type()).isEqualTo(EvaluationType.AUTH);
        assertThat(r.decision()).isEqualTo(Outcome.DECLINE);
        assertThat(r.mode()).isEqualTo(EngineMode.NORMAL);
        assertThat(r.evaluation().ruleId()).isEqualTo("high-value-cnp");
        assertThat(new String(r.transaction().raw())).contains("\"t-sink\"");
        assertThat(r.receivedAtEpochMillis()).isPositive();
        assertThat(r.processingNanos()).isPositive();
    }

    @Test
    void decisionIdsAreUnique() {
        Set<String> ids = new HashSet<>();
        for (int i = 0; i < 50; i++) {
            ids.add(auth("{\"transaction_id\":\"t-id-" + i + "\",\"amount\":1}").getString("decision_id"));
        }
        assertThat(ids).hasSize(50);
    }

    // ---- 4xx (engine contract §2): a code, the field when there is one, never a 500 ----

    @Test
    void notJsonIs400() {
        given().contentType(ContentType.JSON).body("{\"transaction_id\": oops")
                .when().post("/v1/evaluate/auth")
                .then().statusCode(400).body("code", equalTo("INVALID_REQUEST")).body("message", notNullValue());
    }

    @Test
    void notAnObjectIs400() {
        given().contentType(ContentType.JSON).body("[1,2,3]")
                .when().post("/v1/evaluate/auth")
                .then().statusCode(400).body("code", equalTo("INVALID_REQUEST"));
        given().contentType(ContentType.JSON).body("")
                .when().post("/v1/evaluate/auth")
                .then().statusCode(400).body("code", equalTo("INVALID_REQUEST"));
    }

    @Test
    void wrongTypeNamesTheField() {
        given().contentType(ContentType.JSON).body("{\"transaction_id\":\"t-bad\",\"amount\":\"12.50\"}")
                .when().post("/v1/evaluate/auth")
                .then().statusCode(400)
                .body("code", equalTo("INVALID_REQUEST"))
                .body("field", equalTo("amount"))
                .body("message", equalTo("amount: expected a number"));
        given().contentType(ContentType.JSON).body("{\"transaction_id\":\"t-bad\",\"card_present\":\"yes\"}")
                .when().post("/v1/evaluate/auth")
                .then().statusCode(400).body("field", equalTo("card_present"));
    }

    @Test
    void missingTransactionIdIs400() {
        given().contentType(ContentType.JSON).body("{\"amount\":1}")
                .when().post("/v1/evaluate/auth")
                .then().statusCode(400).body("code", equalTo("INVALID_REQUEST")).body("field", equalTo("transaction_id"));
    }

    @Test
    void bodyOverTheLimitIs413() {
        String big = "{\"transaction_id\":\"t-big\",\"merchant_name\":\"" + "x".repeat(70 * 1024) + "\"}";
        given().contentType(ContentType.JSON).body(big)
                .when().post("/v1/evaluate/auth")
                .then().statusCode(413).body("code", equalTo("PAYLOAD_TOO_LARGE"));
    }

    @Test
    void wrongContentTypeIs415() {
        given().contentType(ContentType.TEXT).body("{\"transaction_id\":\"t-415\"}")
                .when().post("/v1/evaluate/auth")
                .then().statusCode(415).body("code", equalTo("UNSUPPORTED_MEDIA_TYPE"));
        given().contentType("application/x-www-form-urlencoded").body("transaction_id=t")
                .when().post("/v1/evaluate/monitoring")
                .then().statusCode(415).body("code", equalTo("UNSUPPORTED_MEDIA_TYPE"));
        // parameters are fine
        given().contentType("application/json; charset=UTF-8").body("{\"transaction_id\":\"t-charset\"}")
                .when().post("/v1/evaluate/auth").then().statusCode(200);
    }

    @Test
    void wrongMethodIs405() {
        given().when().get("/v1/evaluate/auth")
                .then().statusCode(405).header("Allow", "POST").body("code", equalTo("METHOD_NOT_ALLOWED"));
        given().when().put("/v1/evaluate/monitoring").then().statusCode(405);
        given().when().post("/v1/evaluate/health").then().statusCode(405).header("Allow", "GET");
    }

    @Test
    void rejectionsAreCounted() {
        given().contentType(ContentType.TEXT).body("x").when().post("/v1/evaluate/auth").then().statusCode(415);
        String metrics = Management.given().when().get("/q/metrics").then().statusCode(200).extract().asString();
        assertThat(metrics).contains("vigil_evaluate_rejected_total{code=\"UNSUPPORTED_MEDIA_TYPE\",endpoint=\"auth\",status=\"415\"}");
    }

    @Test
    void healthOfTheExistingEngine() {
        given().when().get("/v1/evaluate/health")
                .then().statusCode(200)
                .body("status", equalTo("UP"))
                .body("rulesets_loaded", equalTo(3))
                .body("rulesets", hasSize(3))
                // this profile runs without a velocity store: nothing answered
                .body("storage_accessible", equalTo(false))
                .body("storageAccessible", equalTo(false));
    }

    @Test
    void managementIsNotOnTheDataPort() {
        given().when().get("/rulesets").then().statusCode(404);
        given().when().get("/q/metrics").then().statusCode(404);
        given().when().get("/q/health").then().statusCode(404);
        given().when().get("/v1/evaluate/nope").then().statusCode(404).body("code", equalTo("NOT_FOUND"));
    }

    @Test
    void latencyHistogramIsFineBelowOneMillisecond() {
        // a gauge left by an earlier test profile's application would read NaN once collected (MetersPerRun)
        System.gc();
        auth("{\"transaction_id\":\"t-hist\",\"amount\":1}");
        String metrics = Management.given().when().get("/q/metrics").then().statusCode(200).extract().asString();
        assertThat(metrics)
                .contains("vigil_evaluate_seconds_bucket{decision=\"APPROVE\",endpoint=\"auth\",mode=\"NORMAL\",le=\"1.0E-4\"}")
                .contains("vigil_evaluate_seconds_bucket{decision=\"APPROVE\",endpoint=\"auth\",mode=\"NORMAL\",le=\"5.0E-4\"}")
                .contains("vigil_engine_in_flight")
                .contains("vigil_ruleset_info{checksum=");
        assertThat(metrics).containsPattern("(?m)^vigil_engine_in_flight [0-9]");
        assertThat(metrics).containsPattern("vigil_evaluate_seconds_count\\{decision=\"APPROVE\",endpoint=\"auth\",mode=\"NORMAL\"\\} [1-9]");
    }

    @Test
    void speaksH2c() throws Exception {
        int port = ConfigProvider.getConfig().getValue("quarkus.http.test-port", Integer.class);
        HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_2).build();
        HttpResponse<String> r = client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/v1/evaluate/auth"))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"transaction_id\":\"t-h2c\",\"amount\":1}")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.version()).isEqualTo(HttpClient.Version.HTTP_2);
        assertThat(r.body()).contains("\"transaction_id\":\"t-h2c\"");
    }

}
