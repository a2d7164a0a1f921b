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

    /** The cgroup v1 cpu controller's idle flag: where it is writable the child also goes to async-path.sh's idle group. */
    private static final String CPU_IDLE = "/sys/fs/cgroup/cpu/cpu.idle";

    /**
     * The AOF rewrite child runs SCHED_IDLE, in the idle CPU group where there is one
     * (redis-children-idle.sh, ADR 0028). The child is kept alive by {@code rdb-key-save-delay} (10 ms per key, 600 keys: 6 s), so the watcher's 50 ms poll finds it on
     * any machine; the policy is read from /proc/CHILD/stat (field 41: 5 is SCHED_IDLE, 0 SCHED_OTHER).
     */
    private static final String REWRITE_CHILD_POLICY = "redis-cli -p $VIGIL_REDIS_PORT CONFIG SET rdb-key-save-delay 10000 >/dev/null; "
            + "seq 600 | sed 's/.*/SET k& v/' | redis-cli -p $VIGIL_REDIS_PORT >/dev/null; redis-cli -p $VIGIL_REDIS_PORT BGREWRITEAOF >/dev/null; "
            + "p=$(redis_pid); for i in $(seq 1 100); do read -r c _ < /proc/$p/task/$p/children || true; [ -n \"$c\" ] && break; sleep 0.05; done; "
            + "policy=unread; for i in $(seq 1 40); do now=$(sed 's/.*) //' /proc/$c/stat 2>/dev/null | cut -d' ' -f39); "
            + "[ -n \"$now\" ] || break; policy=$now; "
            + "group=$(grep -E '^[0-9]+:([^:]*,)?cpu(,[^:]*)?:|^0::' /proc/$c/cgroup 2>/dev/null | head -1); "
            + "[ \"$policy\" = 5 ] && { [ ! -w " + CPU_IDLE + " ] || [ \"${group%vigil-async-start}\" != \"$group\" ]; } && break; sleep 0.05; done; "
            + "echo \"child $c policy $policy cgroup $group\"; redis-cli -p $VIGIL_REDIS_PORT CONFIG SET rdb-key-save-delay 0 >/dev/null";

    @Test
    void theRewriteChildRunsIdleByDefault() throws Exception {
        String out = redisStartedWith("", REWRITE_CHILD_POLICY + "; stop_redis >/dev/null; "
                + "for i in $(seq 1 100); do pgrep -f \"redis-children-idle.sh $p\\$\" >/dev/null || break; sleep 0.05; done; "
                + "pgrep -f \"redis-children-idle.sh $p\\$\" >/dev/null && echo 'watcher left' || echo 'watcher gone'");

        assertThat(out).containsPattern("child [0-9]+ policy 5").as("the watcher ends with Redis").contains("watcher gone");
        if (Files.isWritable(Path.of(CPU_IDLE))) {
            assertThat(out).as("in the idle CPU group").containsPattern("cgroup .*/vigil-async-start\\n");
        }
    }

    /** With a window of 1 s the child leaves the idle group (back to Redis' cgroup) while it still runs, SCHED_IDLE. */
    @Test
    void theIdleGroupIsOnlyForTheChildsFirstSeconds() throws Exception {
        assumeThat(Files.isWritable(Path.of(CPU_IDLE))).as("a cpu cgroup whose idle flag can be set (root, cgroup v1 cpu)").isTrue();
        String out = redisStartedWith("VIGIL_REDIS_CHILD_IDLE_SECONDS=1",
                "redis-cli -p $VIGIL_REDIS_PORT CONFIG SET rdb-key-save-delay 10000 >/dev/null; "
                + "seq 1500 | sed 's/.*/SET k& v/' | redis-cli -p $VIGIL_REDIS_PORT >/dev/null; redis-cli -p $VIGIL_REDIS_PORT BGREWRITEAOF >/dev/null; "
                + "p=$(redis_pid); for i in $(seq 1 100); do read -r c _ < /proc/$p/task/$p/children || true; [ -n \"$c\" ] && break; sleep 0.05; done; "
                + "seen=0; for i in $(seq 1 200); do group=$(grep -E '^[0-9]+:([^:]*,)?cpu(,[^:]*)?:' /proc/$c/cgroup 2>/dev/null) || break; "
                + "case $group in */vigil-async-start) seen=1 ;; *) [ $seen = 1 ] && break ;; esac; sleep 0.05; done; "
                + "echo \"seen $seen left ${group##*:} policy $(sed 's/.*) //' /proc/$c/stat | cut -d' ' -f39)\"; "
                + "redis-cli -p $VIGIL_REDIS_PORT CONFIG SET rdb-key-save-delay 0 >/dev/null");

        assertThat(out).as("in the idle group first, then back in Redis' own, still SCHED_IDLE")
                .containsPattern("seen 1 left /[^ ]* policy 5").doesNotContain("left /vigil-async-start");
    }

    @Test
    void normalLeavesTheRewriteChildAtRedisPriority() throws Exception {
        assertThat(redisStartedWith("VIGIL_REDIS_CHILDREN=normal", REWRITE_CHILD_POLICY)).containsPattern("child [0-9]+ policy 0")
                .doesNotContain("vigil-async-start");
    }

    @Test
    void anUnknownChildrenPolicyIsRefusedBeforeRedisStarts() throws Exception {
        Process p = new ProcessBuilder("bash", "-c", "export VIGIL_REDIS_PORT=1 VIGIL_REDIS_DIR='" + dir + "/data' VIGIL_REDIS_CHILDREN=nice; . '"
                + LIB + "'; start_redis").redirectErrorStream(true).start();
        assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).isNotZero();
        assertThat(new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8))
                .contains("VIGIL_REDIS_CHILDREN must be idle or normal, was 'nice'");
        assertThat(Files.exists(dir.resolve("data"))).as("nothing started").isFalse();
    }

    /** /proc/PID/autogroup of a Redis started by start_redis with {@code env} ("NAME=value" or ""), stopped after. */
    private String sessionOfRedisStartedWith(String env) throws IOException, InterruptedException {
        return redisStartedWith(env, "cat /proc/$(redis_pid)/autogroup");
    }

    /** The output of {@code then}, run against a Redis started by start_redis with {@code env}; the Redis is stopped after. */
    private String redisStartedWith(String env, String then) throws IOException, InterruptedException {
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        String script = "set -e; export VIGIL_REDIS_PORT=" + port + " VIGIL_REDIS_DIR='" + dir + "/data' VIGIL_REDIS_LOG='" + dir
                + "/redis.log' " + env + "; . '" + LIB + "'; trap stop_redis EXIT; start_redis >/dev/null; " + then;
        Process p = new ProcessBuilder("bash", "-c", script).redirectErrorStream(true).start();
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("start_redis and stop_redis end").isTrue();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.exitValue()).as(out).isZero();
        return out;
    }
}
