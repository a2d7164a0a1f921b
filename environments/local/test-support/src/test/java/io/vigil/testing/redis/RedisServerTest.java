package io.vigil.testing.redis;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class RedisServerTest {

    @Test
    void startsAnswersFreezesThawsStopsAndRestartsOnTheSamePort() {
        RedisServer redis = RedisServer.builder().appendOnly(true).start();
        try {
            assertThat(redis.ping()).isTrue();
            assertThat(redis.command("SET", "k", "v")).isEqualTo("OK");
            int port = redis.port();

            redis.freeze();
            assertThat(redis.isFrozen()).isTrue();
            assertThat(redis.ping()).as("a frozen server answers nothing").isFalse();
            redis.thaw();
            assertThat(redis.ping()).isTrue();

            redis.stop();
            assertThat(redis.isRunning()).isFalse();
            assertThat(redis.ping()).isFalse();

            redis.restart();
            assertThat(redis.port()).isEqualTo(port);
            assertThat(redis.command("GET", "k")).as("AOF keeps data across restart").isEqualTo("v");

            redis.kill();
            assertThat(redis.isRunning()).isFalse();
        } finally {
            redis.close();
        }
        assertThat(redis.dir()).doesNotExist();
    }

    @Test
    void twoServersGetDistinctPortsAndDirectories() {
        try (RedisServer a = RedisServer.start(); RedisServer b = RedisServer.start()) {
            assertThat(a.port()).isNotEqualTo(b.port());
            assertThat(a.dir()).isNotEqualTo(b.dir());
            a.command("SET", "only-in-a", "1");
            assertThat(b.command("EXISTS", "only-in-a")).isEqualTo(0L);
        }
    }

    @Test
    void frozenServerCanStillBeStopped() {
        RedisServer redis = RedisServer.start();
        redis.freeze();
        redis.stop();
        assertThat(redis.isRunning()).isFalse();
        redis.close();
    }

    @Test
    void clusterOfThreeMastersServesEverySlot() {
        try (RedisCluster cluster = RedisCluster.start(3)) {
            assertThat(cluster.nodes()).hasSize(3);
            assertThat(cluster.hosts().split(",")).hasSize(3);
            String info = (String) cluster.nodes().get(1).command("CLUSTER", "INFO");
            assertThat(info).contains("cluster_state:ok", "cluster_known_nodes:3");
            // keys of different hash tags land on the node that owns their slot, and only there
            for (String key : List.of("{card:1}x", "{card:2}x", "{device:9}y")) {
                RedisServer owner = cluster.nodeFor(key);
                assertThat(owner.command("SET", key, "1")).isEqualTo("OK");
                for (RedisServer other : cluster.nodes()) {
                    if (other != owner) {
                        assertThat(String.valueOf(other.command("GET", key))).startsWith("-MOVED");
                    }
                }
            }
        }
    }
}
