package io.vigil.engine.outbox;

import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.vigil.testing.app.PackagedApp;
import io.vigil.testing.kafka.KafkaBroker;
import io.vigil.testing.redis.RedisServer;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * The whole durability chain with real parts: the engine (outbox on) → redis-server → the packaged
 * relay (engine/relay/target/quarkus-app, its own process) → a Kafka broker (its own process).
 */
public class KafkaChainProfile implements QuarkusTestProfile {

    static final String TOPIC = "fraud.card.decisions.v1";

    @Override
    public Map<String, String> getConfigOverrides() {
        Map<String, String> c = OutboxTestEngine.config();
        c.put("vigil.outbox.stream", "chain:decisions");
        c.put("vigil.outbox.streams", "2");
        return c;
    }

    @Override
    public List<TestResourceEntry> testResources() {
        return List.of(new TestResourceEntry(Chain.class));
    }

    public static class Chain implements QuarkusTestResourceLifecycleManager {
        static RedisServer redis;
        static KafkaBroker kafka;
        static PackagedApp relay;

        @Override
        public Map<String, String> start() {
            redis = RedisServer.builder().appendOnly(true).start();
            kafka = KafkaBroker.start();
            kafka.createTopic(TOPIC, 4);
            // The relay packaged just before the engine (./mvnw -pl engine/service -am verify builds it
            // first), launched as make run launches it.
            relay = PackagedApp.relay()
                    .property("quarkus.redis.hosts", redis.uri())
                    .property("vigil.relay.bootstrap-servers", kafka.bootstrapServers())
                    .property("vigil.relay.topic", TOPIC)
                    .property("vigil.relay.stream", "chain:decisions")
                    .property("vigil.relay.streams", "2")
                    .property("vigil.relay.consumer-name", "chain-relay")
                    .property("vigil.relay.block", "200ms")
                    .log(Path.of("target", "chain-relay.log"))
                    .start();
            return Map.of("quarkus.redis.outbox.hosts", redis.uri());
        }

        @Override
        public void stop() {
            if (relay != null) {
                relay.close();
            }
            if (kafka != null) {
                kafka.close();
            }
            if (redis != null) {
                redis.close();
            }
        }
    }
}
