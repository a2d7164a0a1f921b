package io.vigil.images;

import static io.vigil.testing.LocalProcesses.freePort;
import static org.assertj.core.api.Assertions.assertThat;

import io.vigil.testing.kafka.KafkaBroker;
import io.vigil.testing.redis.RedisServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The engine and relay images, run as the operator's Deployments run them (the env names and paths of
 * EngineWorkload/RelayWorkload, the rulesets mounted read-only at /etc/vigil/rulesets, the restricted
 * security settings), against a real redis-server and a real KRaft Kafka broker: both answer their
 * startup, liveness and readiness endpoints, a decision asked of the engine container reaches Kafka
 * through the relay container, and each stops on SIGTERM within its pods' grace period (30 s, 60 s).
 * Ports: the images' defaults (8081/9081, 9091) belong to `make run`, so the test moves them with
 * QUARKUS_HTTP_PORT / QUARKUS_MANAGEMENT_PORT to free ones.
 */
class DataPlaneImagesTest {
    static final String TOPIC = "fraud.card.decisions.v1";
    static RedisServer redis;
    static KafkaBroker kafka;

    @BeforeAll
    static void parts() {
        Images.ensureBuilt();
        redis = RedisServer.start();
        kafka = KafkaBroker.builder().maxHeap("384m").start();
        kafka.createTopic(TOPIC, 1);
    }

    @AfterAll
    static void stopParts() {
        if (kafka != null) {
            kafka.close();
        }
        if (redis != null) {
            redis.close();
        }
    }

    /** The operator's engine env (EngineWorkload.engineEnv) for a standalone Redis, with test ports. */
    static Map<String, String> engineEnv(int data, int management) {
        Map<String, String> env = new LinkedHashMap<>();
        env.put("VIGIL_RULESETS_DIR", "/etc/vigil/rulesets");
        env.put("QUARKUS_REDIS_HOSTS", redis.uri());
        env.put("QUARKUS_REDIS_CLIENT_TYPE", "standalone");
        env.put("QUARKUS_REDIS_OUTBOX_HOSTS", redis.uri());
        env.put("QUARKUS_REDIS_OUTBOX_CLIENT_TYPE", "standalone");
        env.put("VIGIL_OUTBOX_STREAM", "vigil:decisions");
        env.put("VIGIL_OUTBOX_STREAMS", "1");
        env.put("JAVA_TOOL_OPTIONS", "-XX:MaxRAMPercentage=75 -XX:+UseParallelGC -XX:MetaspaceSize=64m");
        env.put("QUARKUS_HTTP_PORT", Integer.toString(data));
        env.put("QUARKUS_MANAGEMENT_PORT", Integer.toString(management));
        return env;
    }

    /** The operator's relay env (RelayWorkload.relayEnv), with a test port. */
    static Map<String, String> relayEnv(int management) {
        Map<String, String> env = new LinkedHashMap<>();
        env.put("QUARKUS_REDIS_HOSTS", redis.uri());
        env.put("QUARKUS_REDIS_CLIENT_TYPE", "standalone");
        env.put("VIGIL_RELAY_STREAM", "vigil:decisions");
        env.put("VIGIL_RELAY_STREAMS", "1");
        env.put("VIGIL_RELAY_GROUP", "vigil-relay");
        env.put("VIGIL_RELAY_BATCH_SIZE", "1000");
        env.put("VIGIL_RELAY_ENTRIES_PER_COMMAND", "100");
        env.put("VIGIL_RELAY_TOPIC", TOPIC);
        env.put("VIGIL_RELAY_BOOTSTRAP_SERVERS", kafka.bootstrapServers());
        env.put("QUARKUS_MANAGEMENT_PORT", Integer.toString(management));
        return env;
    }

    @Test
    void engineAndRelayServeUnderTheRestrictedProfileAndStopOnSigterm() {
        int data = freePort("127.0.0.1");
        int engineManagement = freePort("127.0.0.1");
        int relayManagement = freePort("127.0.0.1");
        String rulesets = Images.ROOT.resolve("engine/rulesets") + ":/etc/vigil/rulesets:ro";
        try (RestrictedContainer engine = RestrictedContainer.start(Images.ref("engine"), 10001, engineEnv(data, engineManagement),
                List.of("--volume", rulesets));
             RestrictedContainer relay = RestrictedContainer.start(Images.ref("relay"), 10001, relayEnv(relayManagement), List.of())) {
            Http.await200(engineManagement, "/q/health/started", 180, engine);
            Http.await200(engineManagement, "/q/health/live", 30, engine);
            Http.Answer ready = Http.await200(engineManagement, "/q/health/ready", 120, engine);
            assertThat(ready.body()).as("engine readiness").contains("CARD_AUTH");
            Http.await200(relayManagement, "/q/health/started", 180, relay);
            Http.await200(relayManagement, "/q/health/live", 30, relay);
            Http.await200(relayManagement, "/q/health/ready", 120, relay);

            String txn = "img-" + UUID.randomUUID();
            Http.Answer decision = Http.postJson(data, "/v1/evaluate/auth", "{\"transaction_id\":\"" + txn
                    + "\",\"card_hash\":\"c-image-test\",\"amount\":42.5,\"merchant_category_code\":\"5411\",\"card_present\":true}");
            assertThat(decision.status()).as("decision: " + decision.body()).isEqualTo(200);
            assertThat(decision.body()).contains("\"transaction_id\":\"" + txn + "\"").contains("\"ruleset_key\":\"CARD_AUTH\"");

            assertThat(eventsFor(txn, Duration.ofSeconds(60))).as("the decision's event in Kafka (engine -> Redis stream -> relay)")
                    .isNotEmpty();

            RestrictedContainer.Stopped engineStopped = engine.stop(30);
            engineStopped.assertCleanWithin(30);
            assertThat(engineStopped.logs()).contains("stopped in");
            RestrictedContainer.Stopped relayStopped = relay.stop(60);
            relayStopped.assertCleanWithin(60);
            assertThat(relayStopped.logs()).contains("stopped in");
            System.out.printf("engine stopped in %.1f s, relay in %.1f s after SIGTERM%n", engineStopped.seconds(), relayStopped.seconds());
        }
    }

    static List<String> eventsFor(String txn, Duration patience) {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
        p.put(ConsumerConfig.GROUP_ID_CONFIG, "images-test-" + UUID.randomUUID());
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        List<String> found = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(p)) {
            consumer.subscribe(List.of(TOPIC));
            long deadline = System.nanoTime() + patience.toNanos();
            while (found.isEmpty() && System.nanoTime() < deadline) {
                for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(500))) {
                    if (r.value() != null && r.value().contains(txn)) {
                        found.add(r.value());
                    }
                }
            }
        }
        return found;
    }
}
