package io.vigil.engine.management;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;

import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.restassured.http.ContentType;
import io.vigil.engine.testing.Management;
import io.vigil.engine.testing.Profiles;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

/**
 * {@code /simulate} and {@code /replay} refuse a transaction exactly as the data port does (same
 * field, same message, the path of the transaction in front): a request simulate accepts is one the
 * data port accepts.
 */
@QuarkusTest
@TestProfile(Profiles.Fixtures.class)
class SimulateValidationTest {

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
            "\"amount\":5|decision",
            "\"decision\":\"MAYBE\"|decision",
            "\"decision\":null|decision",
            "\"decision\":\"APPROVE\",\"country_code\":\"USA\"|country_code",
            "\"decision\":\"APPROVE\",\"timestamp\":\"yesterday\"|timestamp",
            "\"decision\":\"APPROVE\",\"custom_fields\":{\"x\":1e400}|custom_fields.x",
            "\"decision\":\"APPROVE\",\"decision\":\"DECLINE\"|decision",
    })
    void monitoringSimulationValidatesLikeTheDataPort(String fields, String field) {
        String txn = "{\"transaction_id\":\"sim-mon\"," + fields + "}";
        String dataMessage = given().contentType(ContentType.JSON).body(txn)
                .when().post("/v1/evaluate/monitoring")
                .then().statusCode(400).body("field", equalTo(field)).extract().jsonPath().getString("message");
        Management.given().contentType(ContentType.JSON)
                .body("{\"ruleset_key\":\"CARD_MONITORING\",\"transaction\":" + txn + "}")
                .when().post("/simulate")
                .then().statusCode(400)
                .body("code", equalTo("INVALID_REQUEST"))
                .body("field", equalTo("transaction." + field))
                .body("message", equalTo("transaction." + dataMessage));
    }

    @Test
    void monitoringSimulationWithAValidDecisionEchoesIt() {
        Management.given().contentType(ContentType.JSON)
                .body("{\"ruleset_key\":\"CARD_MONITORING\",\"transaction\":{\"transaction_id\":\"sim-ok\",\"amount\":2000,"
                        + "\"card_present\":false,\"decision\":\"DECLINE\"}}")
                .when().post("/simulate")
                .then().statusCode(200)
                .body("evaluation_type", equalTo("MONITORING"))
                .body("result.evaluation_type", equalTo("MONITORING"))
                .body("result.decision", equalTo("DECLINE"));
    }

    @Test
    void replayOfMonitoringRefusesEachTransactionWithoutADecision() {
        Management.given().contentType(ContentType.JSON)
                .body("{\"ruleset_key\":\"CARD_MONITORING\",\"transactions\":[{\"transaction_id\":\"r-ok\",\"decision\":\"APPROVE\"},"
                        + "{\"transaction_id\":\"r-no\"}]}")
                .when().post("/replay")
                .then().statusCode(200)
                .body("summary.errors", equalTo(1))
                .body("results[0].decision", equalTo("APPROVE"))
                .body("results[1].error.field", equalTo("transactions[1].decision"));
    }

    @Test
    void illFormedUtf8AndDuplicateKeysInTheBodyAreRefusedWithTheField() {
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        body.writeBytes("{\"transaction\":{\"transaction_id\":\"sim-utf8\",\"merchant_name\":\"".getBytes(StandardCharsets.UTF_8));
        body.writeBytes(new byte[] {(byte) 0xED, (byte) 0xA0, (byte) 0x80});
        body.writeBytes("\"}}".getBytes(StandardCharsets.UTF_8));
        Management.given().contentType(ContentType.JSON).body(body.toByteArray())
                .when().post("/simulate")
                .then().statusCode(400).body("field", equalTo("transaction.merchant_name"))
                .body("message", containsString("invalid UTF-8"));
        Management.given().contentType(ContentType.JSON)
                .body("{\"transaction\":{\"transaction_id\":\"a\",\"transaction_id\":\"b\"}}")
                .when().post("/simulate")
                .then().statusCode(400).body("field", equalTo("transaction.transaction_id"))
                .body("message", equalTo("transaction.transaction_id: duplicate key"));
    }
}
