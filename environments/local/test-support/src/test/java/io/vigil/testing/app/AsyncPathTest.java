package io.vigil.testing.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * async-path.sh, the lower CPU priority of the relay, Kafka and Prometheus under make run (ADR 0019):
 * with autogroup scheduling a plain nice does not weigh one session against another, so a part started
 * in its own session (process-lib.sh's setsid) must lower its session's nice, and a tool run in the
 * foreground gets a session of its own, lowered, leaving the caller's alone.
 */
class AsyncPathTest {
    private static final Path SCRIPT = PackagedApp.repositoryRoot().resolve("environments/local/bin/async-path.sh");
    private static final Path OWN_AUTOGROUP = Path.of("/proc/self/autogroup");

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

    private static String run(String... command) throws IOException, InterruptedException {
        return run(0, command);
    }

    /** The command's output; its exit status must be {@code status} (the tool's own, passed through). */
    private static String run(int status, String... command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(new ArrayList<>(List.of(command))).redirectErrorStream(true).start();
        assertThat(p.waitFor(30, TimeUnit.SECONDS)).as("%s ends", List.of(command)).isTrue();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.exitValue()).as(out).isEqualTo(status);
        return out;
    }
}
