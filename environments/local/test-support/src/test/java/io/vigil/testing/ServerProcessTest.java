package io.vigil.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The lifecycle the Redis and Kafka harnesses share, driven with small real shell processes. */
class ServerProcessTest {

    private static ServerProcess server(Path dir) {
        return new ServerProcess("test server", dir, () -> read(dir.resolve("log")));
    }

    private static ProcessBuilder sh(Path dir, String script) {
        return new ProcessBuilder("sh", "-c", script).directory(dir.toFile())
                .redirectErrorStream(true).redirectOutput(dir.resolve("log").toFile());
    }

    /** A process of {@code script} launched in a fresh directory, not yet awaited. */
    private static ServerProcess launched(String script) throws IOException {
        Path dir = Files.createTempDirectory("vigil-server-process-");
        ServerProcess p = server(dir);
        p.launch(sh(dir, script));
        return p;
    }

    private static String read(Path file) {
        try {
            return Files.exists(file) ? Files.readString(file) : "";
        } catch (IOException e) {
            return "";
        }
    }

    @Test
    void waitsUntilReadyThenStopsAndClosesWithItsDirectory() throws Exception {
        Path dir = Files.createTempDirectory("vigil-server-process-");
        ServerProcess p = server(dir);
        p.launch(sh(dir, "sleep 1; touch ready; exec sleep 60"));
        p.awaitReady("get ready", Duration.ofSeconds(20), 20, () -> Files.exists(dir.resolve("ready")));
        assertThat(p.isRunning()).isTrue();

        p.stop(Duration.ofSeconds(5));
        assertThat(p.isRunning()).isFalse();
        assertThat(ProcessHandle.of(p.pid()).map(ProcessHandle::isAlive)).isNotEqualTo(Optional.of(true));

        p.close();
        assertThat(dir).doesNotExist();
        assertThatThrownBy(() -> p.relaunch(Duration.ofSeconds(1), 10, () -> { }))
                .hasMessageContaining("closed");
    }

    @Test
    void terminateSaysWhetherTheProcessHonouredSigterm() throws Exception {
        Path dir = Files.createTempDirectory("vigil-server-process-");
        ServerProcess stubborn = server(dir);
        // ignores SIGTERM; "ready" once the trap is set, so the signal cannot arrive before it
        stubborn.launch(sh(dir, "trap '' TERM; touch ready; while true; do sleep 1; done"));
        try {
            stubborn.awaitReady("set its trap", Duration.ofSeconds(20), 20, () -> Files.exists(dir.resolve("ready")));
            assertThat(stubborn.terminate(Duration.ofMillis(300))).isFalse();
            assertThat(stubborn.isRunning()).as("not escalated to SIGKILL").isTrue();
        } finally {
            stubborn.close();
        }
        assertThat(stubborn.isRunning()).as("close kills it").isFalse();

        ServerProcess polite = launched("exec sleep 60");
        try {
            assertThat(polite.terminate(Duration.ofSeconds(30))).isTrue();
            assertThat(polite.isRunning()).isFalse();
        } finally {
            polite.close();
        }
    }

    @Test
    void aProcessThatExitsWhileStartingFailsWithItsLog() throws Exception {
        ServerProcess p = launched("echo 'config line 3 is wrong'; exit 3");
        try {
            assertThatThrownBy(() -> p.awaitReady("get ready", Duration.ofSeconds(20), 20, () -> false))
                    .isNotInstanceOf(ServerProcess.PortTakenException.class)
                    .hasMessageContaining("test server exited with code 3")
                    .hasMessageContaining("config line 3 is wrong");
        } finally {
            p.close();
        }
    }

    @Test
    void aProcessNeverReadyFailsAfterTheTimeoutAndKillStopsIt() throws Exception {
        ServerProcess p = launched("echo starting; exec sleep 60");
        try {
            assertThatThrownBy(() -> p.awaitReady("answer", Duration.ofMillis(300), 20, () -> false))
                    .hasMessageContaining("test server did not answer within PT0.3S")
                    .hasMessageContaining("starting");
            assertThat(p.isRunning()).isTrue();
            p.kill();
            assertThat(p.isRunning()).isFalse();
        } finally {
            p.close();
        }
    }

    /** What a harness is to {@link ServerProcess#startOnFreePorts}: here just its directory and process. */
    private record Harness(Path dir, ServerProcess process) {
        static Harness in(Path dir) {
            return new Harness(dir, server(dir));
        }

        void launch(String script, boolean ready) {
            process.launch(sh(dir, script));
            process.awaitReady("start", Duration.ofSeconds(20), 20, () -> ready);
        }
    }

    @Test
    void aTakenPortIsRetriedWithANewHarnessAndGivesUpAfterTheAttempts() {
        String portTaken = "echo 'bind: Address already in use'; exit 1";
        AtomicInteger launches = new AtomicInteger();
        List<Harness> discarded = new ArrayList<>();
        // the first launch never gets ready (its port is taken, it exits); the second does. Saying
        // "ready" for the first made the test a race: with a warm JVM (after other tests of the module)
        // readiness was checked before the shell had exited, and the first launch counted as started
        Harness started = ServerProcess.startOnFreePorts("retry-test", 3, Harness::in,
                h -> {
                    boolean first = launches.incrementAndGet() == 1;
                    h.launch(first ? portTaken : "exec sleep 60", !first);
                },
                h -> {
                    discarded.add(h);
                    h.process().close();
                });
        try {
            assertThat(launches).hasValue(2);
            assertThat(discarded).hasSize(1);
            assertThat(discarded.get(0).dir()).doesNotExist();
            assertThat(started.process().isRunning()).isTrue();
        } finally {
            started.process().close();
        }

        assertThatThrownBy(() -> ServerProcess.startOnFreePorts("retry-test", 2, Harness::in,
                h -> h.launch(portTaken, false), h -> h.process().close()))
                .hasMessageContaining("retry-test could not bind free ports after 2 attempts")
                .hasCauseInstanceOf(ServerProcess.PortTakenException.class);
    }

    @Test
    void relaunchRetriesATakenPortUntilItsPatienceRunsOut() throws Exception {
        Path dir = Files.createTempDirectory("vigil-server-process-");
        ServerProcess p = server(dir);
        try {
            AtomicInteger tries = new AtomicInteger();
            p.relaunch(Duration.ofSeconds(20), 10, () -> {
                if (tries.incrementAndGet() < 3) {
                    p.launch(sh(dir, "echo 'Address already in use'; exit 1"));
                    p.awaitReady("start", Duration.ofSeconds(20), 20, () -> false);
                }
            });
            assertThat(tries).hasValue(3);

            assertThatThrownBy(() -> p.relaunch(Duration.ZERO, 10, () -> {
                p.launch(sh(dir, "echo 'Address already in use'; exit 1"));
                p.awaitReady("start", Duration.ofSeconds(20), 20, () -> false);
            })).hasMessageContaining("cannot restart test server")
                    .hasCauseInstanceOf(ServerProcess.PortTakenException.class);
        } finally {
            p.close();
        }
    }
}
