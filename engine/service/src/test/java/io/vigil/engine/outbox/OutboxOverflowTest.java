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

/** A stalled outbox never touches the AUTH answer: every request is answered as usual, drops are counted exactly. */
@QuarkusTest
@TestProfile(StalledOutboxProfile.class)
class OutboxOverflowTest {

    @Test
    void auth_answers_are_unaffected_and_dropped_equals_offered_minus_accepted() {
        int n = 60;
        for (int i = 0; i < n; i++) {
            boolean highValue = i % 3 == 0;
            String body = "{\"transaction_id\":\"ovf-" + i + "\",\"card_hash\":\"card-" + i + "\",\"amount\":"
                    + (highValue ? "2500.00" : "20.00") + ",\"card_present\":false}";
            JsonPath a = given().contentType(ContentType.JSON).body(body)
                    .when().post("/v1/evaluate/auth")
                    .then().statusCode(200).extract().jsonPath();
            assertThat(a.getString("transaction_id")).isEqualTo("ovf-" + i);
            assertThat(a.getString("engine_mode")).isEqualTo("NORMAL");
            assertThat(a.getString("decision")).isEqualTo(highValue ? "DECLINE" : "APPROVE");
            assertThat(a.getString("decision_id")).isNotBlank();
        }
        String metrics = Management.given().get("/q/metrics").then().statusCode(200).extract().asString();
        double offered = sample(metrics, "vigil_outbox_offered_total");
        double ok = sample(metrics, "vigil_outbox_enqueue_total{result=\"ok\"");
        double dropped = sample(metrics, "vigil_outbox_enqueue_total{result=\"dropped\"");
        assertThat(offered).isEqualTo(n);
        assertThat(dropped).isEqualTo(offered - ok);
        assertThat(ok).isLessThanOrEqualTo(StalledOutboxProfile.CAPACITY + StalledOutboxProfile.BATCH);
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
