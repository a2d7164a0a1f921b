package io.vigil.engine.outbox;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;

import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.restassured.http.ContentType;
import io.restassured.path.json.JsonPath;
import io.vigil.engine.testing.Management;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/**
 * A stalled outbox (Redis frozen, a queue of 5) never costs an answered decision: the engine decides while
 * the queue has room for the decision's event, then sheds before deciding (LOAD_SHED, counted). Every
 * evaluated decision is accepted into the queue; only shed answers' events are dropped, and counted.
 */
@QuarkusTest
@TestProfile(StalledOutboxProfile.class)
class OutboxOverflowTest {

    @Test
    void decisionsAreMadeOnlyWithRoomForTheirEventAndTheRestIsShedAndCounted() {
        int n = 60;
        int evaluated = 0;
        int shed = 0;
        for (int i = 0; i < n; i++) {
            boolean highValue = i % 3 == 0;
            String body = "{\"transaction_id\":\"ovf-" + i + "\",\"card_hash\":\"card-" + i + "\",\"amount\":"
                    + (highValue ? "2500.00" : "20.00") + ",\"card_present\":false}";
            JsonPath a = given().contentType(ContentType.JSON).body(body)
                    .when().post("/v1/evaluate/auth")
                    .then().statusCode(200).extract().jsonPath();
            assertThat(a.getString("transaction_id")).isEqualTo("ovf-" + i);
            assertThat(a.getString("decision_id")).isNotBlank();
            if ("NORMAL".equals(a.getString("engine_mode"))) {
                assertThat(shed).as("no decision once shedding started: the queue never drains").isZero();
                assertThat(a.getString("decision")).isEqualTo(highValue ? "DECLINE" : "APPROVE");
                evaluated++;
            } else {
                assertThat(a.getString("engine_mode")).isEqualTo("DEGRADED");
                assertThat(a.getString("engine_error_code")).isEqualTo("LOAD_SHED");
                assertThat(a.getString("decision")).as("the shed decision").isEqualTo("APPROVE");
                assertThat(a.getString("ruleset_key")).as("nothing evaluated").isNull();
                shed++;
            }
        }
        String metrics = Management.given().get("/q/metrics").then().statusCode(200).extract().asString();
        double offered = sample(metrics, "vigil_outbox_offered_total");
        double ok = sample(metrics, "vigil_outbox_enqueue_total{result=\"ok\"");
        double dropped = sample(metrics, "vigil_outbox_enqueue_total{result=\"dropped\"");
        assertThat(evaluated).as("the queue's capacity, plus the batch the writer holds")
                .isBetween(StalledOutboxProfile.CAPACITY, StalledOutboxProfile.CAPACITY + StalledOutboxProfile.BATCH);
        assertThat(shed).isEqualTo(n - evaluated);
        assertThat(offered).isEqualTo(n);
        assertThat(ok).as("every evaluated decision is in the queue").isEqualTo(evaluated);
        assertThat(dropped).as("only shed answers lost their event").isEqualTo(shed).isEqualTo(offered - ok);
        assertThat(sample(metrics, "vigil_engine_load_shed_outbox_total")).isEqualTo(shed);
        assertThat(sample(metrics, "vigil_outbox_queue_capacity")).isEqualTo(StalledOutboxProfile.CAPACITY);
        assertThat(sample(metrics, "vigil_outbox_queue_depth")).isLessThanOrEqualTo(StalledOutboxProfile.CAPACITY);
    }

    static double sample(String metrics, String prefix) {
        return Arrays.stream(metrics.split("\n"))
                .filter(l -> !l.startsWith("#"))
                .filter(l -> l.startsWith(prefix.contains("{") ? prefix : prefix + "{") || l.startsWith(prefix + " "))
                .mapToDouble(l -> Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1)))
                .sum();
    }
}
