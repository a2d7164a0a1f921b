package io.vigil.engine.velocity;

import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;
import io.vigil.testing.redis.RedisCluster;

import java.util.Map;

/** A real 3-master Redis Cluster for a Quarkus test profile; the engine's client runs in cluster mode. */
public class RedisClusterResource implements QuarkusTestResourceLifecycleManager {

    private static volatile RedisCluster cluster;

    public static RedisCluster cluster() {
        return cluster;
    }

    @Override
    public Map<String, String> start() {
        cluster = RedisCluster.start(3);
        return Map.of("quarkus.redis.hosts", cluster.hosts(),
                "quarkus.redis.client-type", "cluster",
                "vigil.velocity.enabled", "true");
    }

    @Override
    public void stop() {
        RedisCluster c = cluster;
        if (c != null) {
            c.close();
            cluster = null;
        }
    }
}
