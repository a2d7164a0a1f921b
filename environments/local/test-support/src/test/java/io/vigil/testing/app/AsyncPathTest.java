package io.vigil.testing.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * async-path.sh, the lower CPU priority of the relay, Kafka and Prometheus under make run (ADR 0019):
 * with autogroup scheduling a plain nice does not weigh one session against another, so a part started
 * in its own session (process-lib.sh's setsid) must lower its session's nice, and a tool run in the
 * foreground gets a session of its own, lowered, leaving the caller's alone.
 */
class AsyncPathTest {
    private static final Path SCRIPT = PackagedApp.repositoryRoot().resolve("environments/local/bin/async-path.sh");
    private static final Path OWN_AUTOGROUP = Path.of("/proc/self/autogroup");
    private static final String IDLE_FLAG = Files.exists(Path.of("/sys/fs/cgroup/cpu/cpu.idle"))
            ? "/sys/fs/cgroup/cpu/vigil-async-start/cpu.idle" : "/sys/fs/cgroup/vigil-async-start/cpu.idle";

    @Test
    void aPartInItsOwnSessionLowersItsSessionsPriority() throws Exception {
        assumeThat(Files.exists(OWN_AUTOGROUP)).as("kernel with autogroup scheduling").isTrue();
        String out = run("setsid", "-w", SCRIPT.toString(), "10", "sh", "-c", "cat /proc/self/autogroup; ps -o ni= -p $$");

        assertThat(out).as("the session's nice").contains(" nice 10");
        assertThat(out.lines().toList().getLast().trim()).as("the process's own nice").isEqualTo("10");
    }

    @Test
    void aForegroundToolGetsALoweredSessionOfItsOwnAndLeavesTheCallersAlone() throws Exception {
        assumeThat(Files.exists(OWN_AUTOGROUP)).as("kernel with autogroup scheduling").isTrue();
        String before = Files.readString(OWN_AUTOGROUP).trim();
        String out = run(3, SCRIPT.toString(), "10", "sh", "-c", "cat /proc/self/autogroup; ps -o ni= -p $$; exit 3");

        assertThat(out.lines().toList().getFirst()).as("a session of its own, lowered")
                .contains(" nice 10").isNotEqualTo(before);
        assertThat(Files.readString(OWN_AUTOGROUP).trim()).as("the caller's session, unchanged").isEqualTo(before);
        assertThat(out.lines().toList().getLast().trim()).as("the process's own nice").isEqualTo("10");
    }

    /**
     * The start window (ADR 0032): beside a serving engine (here: this JVM's pid in the pid file), the part
     * runs in the idle CPU group, then goes back to its own cgroup. The command watches its own cgroup and
     * ends as soon as it left the group, or after 60 s.
     */
    @Test
    void aPartStartingBesideTheEngineRunsInTheIdleCpuGroupThenGoesBack(@TempDir Path dir) throws Exception {
        assumeThat(idleGroupsPossible()).as("a writable cpu cgroup with cpu.idle").isTrue();
        String out = runWith(0, Map.of("VIGIL_ASYNC_START_IDLE", "1", "VIGIL_DECISION_PATH_PIDFILE", servingEngine(dir)), "setsid", "-w", SCRIPT.toString(), "10", "sh", "-c",
                "grep -c vigil-async-start /proc/self/cgroup; cat " + IDLE_FLAG + "; i=0; "
                        + "while grep -q vigil-async-start /proc/self/cgroup && [ $i -lt 600 ]; do sleep 0.1; i=$((i+1)); done; "
                        + "grep -c vigil-async-start /proc/self/cgroup || true");

        List<String> lines = out.lines().map(String::trim).toList();
        assertThat(lines.getFirst()).as("in the idle group while it starts: %s", out).isEqualTo("1");
        assertThat(lines.get(1)).as("the group is idle").isEqualTo("1");
        assertThat(lines.getLast()).as("back in its own cgroup after the window: %s", out).isEqualTo("0");
    }

    @Test
    void theStartWindowCanBeTurnedOff(@TempDir Path dir) throws Exception {
        assumeThat(idleGroupsPossible()).as("a writable cpu cgroup with cpu.idle").isTrue();
        String out = runWith(0, Map.of("VIGIL_ASYNC_START_IDLE", "0", "VIGIL_DECISION_PATH_PIDFILE", servingEngine(dir)),
                "setsid", "-w", SCRIPT.toString(), "10", "sh", "-c", "grep -c vigil-async-start /proc/self/cgroup || true");

        assertThat(out.trim()).as("not in the idle group").isEqualTo("0");
    }

    @Test
    void withNoEngineServingThePartStartsAtItsWeightOnly(@TempDir Path dir) throws Exception {
        assumeThat(idleGroupsPossible()).as("a writable cpu cgroup with cpu.idle").isTrue();
        String out = runWith(0, Map.of("VIGIL_ASYNC_START_IDLE", "30", "VIGIL_DECISION_PATH_PIDFILE", dir.resolve("none.pid").toString()),
                "setsid", "-w", SCRIPT.toString(), "10", "sh", "-c", "grep -c vigil-async-start /proc/self/cgroup || true");

        assertThat(out.trim()).as("not in the idle group").isEqualTo("0");
    }

    @Test
    void aPartStoppingBesideTheEngineIsMovedIntoTheIdleCpuGroup(@TempDir Path dir) throws Exception {
        assumeThat(idleGroupsPossible()).as("a writable cpu cgroup with cpu.idle").isTrue();
        Process part = new ProcessBuilder("sleep", "60").start();
        try {
            runWith(0, Map.of("VIGIL_DECISION_PATH_PIDFILE", servingEngine(dir)), SCRIPT.toString(), "idle", Long.toString(part.pid()));
            assertThat(Files.readString(Path.of("/proc/" + part.pid() + "/cgroup"))).contains("/vigil-async-start");
        } finally {
            part.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
        }
    }

    @Test
    void idleWithoutAProcessIsRefusedClearly() throws Exception {
        String out = run(2, SCRIPT.toString(), "idle", "not-a-pid");

        assertThat(out).contains("idle needs a process id, was 'not-a-pid'");
        assertThat(run(2, SCRIPT.toString(), "background", "")).contains("background needs a process id, was ''");
    }

    /** A pid file naming a live process: this test's JVM stands for the serving engine. */
    private static String servingEngine(Path dir) throws IOException {
        Path pidfile = dir.resolve("engine.pid");
        Files.writeString(pidfile, Long.toString(ProcessHandle.current().pid()));
        return pidfile.toString();
    }

    /** cgroup v1's cpu controller (this machine) or v2 with cpu delegated; root. */
    private static boolean idleGroupsPossible() {
        Path v1 = Path.of("/sys/fs/cgroup/cpu");
        if (Files.exists(v1.resolve("cpu.idle"))) {
            return Files.isWritable(v1);
        }
        Path v2 = Path.of("/sys/fs/cgroup/cgroup.subtree_control");
        try {
            return Files.exists(v2) && Files.readString(v2).contains("cpu") && Files.isWritable(v2.getParent());
        } catch (IOException e) {
            return false;
        }
    }

    private static String run(String... command) throws IOException, InterruptedException {
        return run(0, command);
    }

    private static String run(int status, String... command) throws IOException, InterruptedException {
        return runWith(status, Map.of(), command);
    }

    /** The command's output; its exit status must be {@code status} (the tool's own, passed through). */
    private static String runWith(int status, Map<String, String> env, String... command) throws IOException, InterruptedException {
        ProcessBuilder builder = new ProcessBuilder(new ArrayList<>(List.of(command))).redirectErrorStream(true);
        builder.environment().putAll(env);
        Process p = builder.start();
        assertThat(p.waitFor(90, TimeUnit.SECONDS)).as("%s ends", List.of(command)).isTrue();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.exitValue()).as(out).isEqualTo(status);
        return out;
    }
}
