package io.vigil.relay;

import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;
import io.vigil.testing.kafka.KafkaBroker;
import io.vigil.testing.redis.RedisServer;
import java.util.HashMap;
import java.util.Map;

/** A real redis-server and a real Kafka broker (separate processes, free ports) for the relay under test. */
public class RelayTestResources implements QuarkusTestResourceLifecycleManager {

    static final String TOPIC = "decisions.test";
    static final int PARTITIONS = 4;
    static RedisServer redis;
    static KafkaBroker kafka;

    @Override
    public Map<String, String> start() {
        redis = RedisServer.builder().appendOnly(true).start();
        kafka = KafkaBroker.start();
        kafka.createTopic(TOPIC, PARTITIONS);
        Map<String, String> config = new HashMap<>();
        config.put("quarkus.redis.hosts", redis.uri());
        config.put("vigil.relay.bootstrap-servers", kafka.bootstrapServers());
        config.put("vigil.relay.topic", TOPIC);
        config.put("vigil.relay.stream", "test:decisions");
        config.put("vigil.relay.consumer-name", "relay-under-test");
        config.put("vigil.relay.block", "200ms");
        config.put("vigil.relay.claim-min-idle", "2s");
        config.put("vigil.relay.reclaim-interval", "500ms");
        config.put("vigil.relay.monitor-interval", "500ms");
        config.put("vigil.relay.heartbeat-interval", "1s");
        config.put("vigil.relay.max-deliveries", "5");
        // a producer override, and one the relay must refuse to take (the guarantee needs acks=all)
        config.put("vigil.relay.producer.linger.ms", "7");
        config.put("vigil.relay.producer.acks", "1");
        return config;
    }

    @Override
    public void stop() {
        if (kafka != null) {
            kafka.close();
        }
        if (redis != null) {
            redis.close();
        }
    }
}
