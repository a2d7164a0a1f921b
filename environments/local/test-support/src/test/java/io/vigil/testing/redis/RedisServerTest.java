package io.vigil.testing.redis;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class RedisServerTest {

    /**
     * One home for the settings: the tests' servers run with every setting of the shared file (the AOF
     * one only when asked for), and make run's redis-lib.sh passes the very same file.
     */
    @Test
    void serversRunWithTheSharedSettingsThatMakeRunReadsToo() throws IOException {
        Map<String, String> settings = sharedSettings();
        assertThat(settings).containsKeys("maxmemory-policy", "appendonly", "appendfsync", "save");
        try (RedisServer durable = RedisServer.builder().appendOnly(true).start();
             RedisServer plain = RedisServer.start()) {
            settings.forEach((key, value) -> {
                assertThat(durable.command("CONFIG", "GET", key)).as(key).isEqualTo(List.of(key, value));
                String plainValue = key.equals("appendonly") ? "no" : value;
                assertThat(plain.command("CONFIG", "GET", key)).as(key).isEqualTo(List.of(key, plainValue));
            });
        }

        Path redisLib = repositoryRoot().resolve("environments/local/bin/redis-lib.sh");
        assertThat(Files.readString(redisLib))
                .contains("REDIS_SETTINGS=\"$VIGIL_ROOT/environments/local/test-support/src/main/resources/"
                        + RedisServer.SETTINGS_RESOURCE + "\"")
                .contains("redis-server \"$REDIS_SETTINGS\"");
    }

    private static Map<String, String> sharedSettings() throws IOException {
        Map<String, String> settings = new LinkedHashMap<>();
        try (InputStream in = RedisServer.class.getClassLoader().getResourceAsStream(RedisServer.SETTINGS_RESOURCE)) {
            assertThat(in).as(RedisServer.SETTINGS_RESOURCE).isNotNull();
            for (String line : new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n")) {
                line = line.strip();
                if (line.isEmpty() || line.startsWith("#")) {
                    continue;
                }
                String[] parts = line.split("\\s+", 2);
                settings.put(parts[0], parts[1].replace("\"", ""));
            }
        }
        return settings;
    }

    private static Path repositoryRoot() {
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            if (Files.isRegularFile(dir.resolve("environments/local/bin/redis-lib.sh"))) {
                return dir;
            }
        }
        throw new AssertionError("no repository root above " + Path.of("").toAbsolutePath());
    }

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
