package io.vigil.testing.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import io.vigil.testing.app.PackagedApp;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * make run's Redis runs in a session of a higher CPU weight (redis-lib.sh's redis_priority, ADR 0025): it
 * daemonizes into a session of its own, and with autogroup scheduling only the session's nice weighs it
 * against the engine's and the load generator's sessions. Starts a Redis through redis-lib.sh on a free
 * port and directory of its own, reads its session's nice, stops it.
 */
class RedisPriorityTest {
    private static final Path LIB = PackagedApp.repositoryRoot().resolve("environments/local/bin/redis-lib.sh");

    @TempDir
    Path dir;

    @Test
    void redisSessionRunsAtNiceMinusFiveByDefault() throws Exception {
        assumeThat(Files.exists(Path.of("/proc/self/autogroup"))).as("kernel with autogroup scheduling").isTrue();
        assumeThat(System.getProperty("user.name")).as("lowering a nice value needs root").isEqualTo("root");

        assertThat(sessionOfRedisStartedWith("")).contains(" nice -5");
    }

    @Test
    void zeroLeavesRedisAtTheDefaultWeight() throws Exception {
        assumeThat(Files.exists(Path.of("/proc/self/autogroup"))).as("kernel with autogroup scheduling").isTrue();

        assertThat(sessionOfRedisStartedWith("VIGIL_REDIS_NICE=0")).contains(" nice 0");
    }

    /** /proc/PID/autogroup of a Redis started by start_redis with {@code env} ("NAME=value" or ""), stopped after. */
    private String sessionOfRedisStartedWith(String env) throws IOException, InterruptedException {
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        String script = "set -e; export VIGIL_REDIS_PORT=" + port + " VIGIL_REDIS_DIR='" + dir + "/data' VIGIL_REDIS_LOG='" + dir
                + "/redis.log' " + env + "; . '" + LIB + "'; trap stop_redis EXIT; start_redis >/dev/null; cat /proc/$(redis_pid)/autogroup";
        Process p = new ProcessBuilder("bash", "-c", script).redirectErrorStream(true).start();
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("start_redis and stop_redis end").isTrue();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.exitValue()).as(out).isZero();
        return out;
    }
}
