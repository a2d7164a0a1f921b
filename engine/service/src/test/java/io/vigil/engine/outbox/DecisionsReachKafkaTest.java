package io.vigil.engine.outbox;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.restassured.http.ContentType;
import io.restassured.path.json.JsonPath;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.Test;

/**
 * Every answered decision arrives in Kafka through Redis Streams and the relay: counted by event_id
 * (= the decision_id the caller got), keyed by card_hash, embedding the request as sent, valid
 * against the committed schema.
 */
@QuarkusTest
@TestProfile(KafkaChainProfile.class)
class DecisionsReachKafkaTest {

    @Test
    void every_answered_decision_reaches_kafka_and_validates_against_the_schema() throws Exception {
        Map<String, String> requestByDecisionId = new HashMap<>();
        Map<String, String> answerByDecisionId = new HashMap<>();
        int n = 400;
        for (int i = 0; i < n; i++) {
            String amount = i % 4 == 0 ? "1500.00" : i % 4 == 1 ? "600" : "25.10";
            String body = "{\"transaction_id\":\"chain-" + i + "\",\"card_hash\":\"card-" + (i % 37) + "\","
                    + "\"amount\":" + amount + ",\"card_present\":false,\"currency\":\"EUR\","
                    + "\"country_code\":\"" + (i % 5 == 0 ? "FR" : "US") + "\",\"custom_fields\":{\"seq\":" + i + "}}";
            String path = i % 10 == 9 ? "/v1/evaluate/monitoring" : "/v1/evaluate/auth";
            if (path.endsWith("monitoring")) {
                body = body.substring(0, body.length() - 1) + ",\"decision\":\"APPROVE\"}";
            }
            JsonPath a = given().contentType(ContentType.JSON).body(body).when().post(path)
                    .then().statusCode(200).extract().jsonPath();
            requestByDecisionId.put(a.getString("decision_id"), body);
            answerByDecisionId.put(a.getString("decision_id"), a.getString("decision"));
        }

        Map<String, JsonNode> events = new HashMap<>();
        Map<String, String> keys = new HashMap<>();
        try (var consumer = new KafkaConsumer<String, byte[]>(Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, KafkaChainProfile.Chain.kafka.bootstrapServers(),
                ConsumerConfig.GROUP_ID_CONFIG, "chain-" + UUID.randomUUID(),
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest"),
                new StringDeserializer(), new ByteArrayDeserializer())) {
            consumer.subscribe(List.of(KafkaChainProfile.TOPIC));
            long deadline = System.nanoTime() + Duration.ofSeconds(90).toNanos();
            while (events.size() < n && System.nanoTime() < deadline) {
                for (ConsumerRecord<String, byte[]> r : consumer.poll(Duration.ofMillis(300))) {
                    assertThat(Decisions.violations(r.value())).as("schema violations").isEmpty();
                    JsonNode e = Decisions.tree(r.value());
                    events.put(e.get("event_id").asText(), e);
                    keys.put(e.get("event_id").asText(), r.key());
                }
            }
        }
        Set<String> missing = new HashSet<>(requestByDecisionId.keySet());
        missing.removeAll(events.keySet());
        assertThat(missing).as("decisions missing from Kafka").isEmpty();
        assertThat(events.keySet()).isEqualTo(requestByDecisionId.keySet());
        for (var entry : events.entrySet()) {
            JsonNode e = entry.getValue();
            JsonNode request = Decisions.JSON.readTree(requestByDecisionId.get(entry.getKey()));
            assertThat(e.get("transaction")).isEqualTo(request);
            assertThat(keys.get(entry.getKey())).isEqualTo(request.get("card_hash").asText());
            assertThat(e.get("decision").asText()).isEqualTo(answerByDecisionId.get(entry.getKey()));
            assertThat(e.get("transaction_id").asText()).isEqualTo(request.get("transaction_id").asText());
            assertThat(e.get("evaluation_type").asText())
                    .isEqualTo(request.has("decision") ? "MONITORING" : "AUTH");
        }
    }
}
