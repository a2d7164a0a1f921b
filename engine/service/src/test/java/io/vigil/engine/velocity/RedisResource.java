package io.vigil.engine.velocity;

import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;
import io.vigil.testing.redis.RedisServer;

import java.util.Map;

/**
 * A real redis-server for a Quarkus test profile: started before the engine, pointed at by
 * {@code quarkus.redis.hosts}, closed after. The tests reach the process through {@link #server()}
 * to stop, freeze and restart it under traffic.
 */
public class RedisResource implements QuarkusTestResourceLifecycleManager {

    private static volatile RedisServer server;

    public static RedisServer server() {
        RedisServer s = server;
        if (s == null) {
            throw new IllegalStateException("no Redis started for this test profile");
        }
        return s;
    }

    @Override
    public Map<String, String> start() {
        server = RedisServer.start();
        return Map.of("quarkus.redis.hosts", server.uri(), "vigil.velocity.enabled", "true");
    }

    @Override
    public void stop() {
        RedisServer s = server;
        if (s != null) {
            s.close();
            server = null;
        }
    }
}
