package io.vigil.engine.outbox;

import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.vigil.testing.redis.RedisServer;
import java.util.List;
import java.util.Map;

/**
 * The engine with the outbox on, writing to a Redis that hangs (SIGSTOP) and a queue of 5: the writer
 * stalls, the queue overflows.
 */
public class StalledOutboxProfile implements QuarkusTestProfile {

    static final int CAPACITY = 5;
    static final int BATCH = 2;

    @Override
    public Map<String, String> getConfigOverrides() {
        Map<String, String> c = OutboxTestEngine.config();
        c.put("vigil.outbox.queue-capacity", Integer.toString(CAPACITY));
        c.put("vigil.outbox.batch-size", Integer.toString(BATCH));
        c.put("vigil.outbox.write-timeout", "200ms");
        c.put("vigil.outbox.shutdown-timeout", "500ms");
        return c;
    }

    @Override
    public List<TestResourceEntry> testResources() {
        return List.of(new TestResourceEntry(FrozenRedis.class));
    }

    public static class FrozenRedis implements QuarkusTestResourceLifecycleManager {
        private RedisServer redis;

        @Override
        public Map<String, String> start() {
            redis = RedisServer.start();
            redis.freeze();
            return Map.of("quarkus.redis.outbox.hosts", redis.uri());
        }

        @Override
        public void stop() {
            if (redis != null) {
                redis.close();
            }
        }
    }
}
