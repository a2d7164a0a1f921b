package io.vigil.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * The OS process behind a local server harness (Redis, Kafka, the packaged engine and relay) and the
 * directory it works in: the lifecycle the harnesses share, so each of them only says how to launch
 * its server and when it is ready.
 *
 * <p>A launched process gets a shell watchdog that kills it (and removes the directory) if this JVM
 * dies without running shutdown hooks (surefire timeout, kill -9), and one JVM shutdown hook closes
 * every process not closed yet, so test runs never leave orphan servers behind.
 */
public final class ServerProcess {
    private static final Set<ServerProcess> LIVE = ConcurrentHashMap.newKeySet();
    /** How long to wait for a process to be gone after SIGKILL. */
    private static final Duration KILL_WAIT = Duration.ofSeconds(10);

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            for (ServerProcess p : LIVE) {
                p.close();
            }
        }, "local-server-cleanup"));
    }

    private final String name;
    private final Path dir;
    private final Supplier<String> logTail;
    private volatile Process process;
    private volatile Process watchdog;
    private volatile boolean closed;

    /**
     * @param name    for messages, e.g. {@code "redis-server on port 6379"}
     * @param dir     the server's directory, deleted by {@link #close()}
     * @param logTail the last lines of the server's log, shown when it fails to start
     */
    public ServerProcess(String name, Path dir, Supplier<String> logTail) {
        this.name = name;
        this.dir = dir;
        this.logTail = logTail;
    }

    /** Thrown while starting when the server's log says one of its ports was taken meanwhile. */
    public static final class PortTakenException extends IllegalStateException {
        PortTakenException(String message) {
            super(message);
        }
    }

    /**
     * Creates a harness in a fresh temporary directory ({@code create} picks its free ports) and
     * launches it; when a port was taken between picking and binding it, discards that harness and
     * tries again with other ports.
     */
    public static <T> T startOnFreePorts(String what, int attempts, Function<Path, T> create, Consumer<T> launch,
                                         Consumer<T> discard) {
        PortTakenException last = null;
        for (int attempt = 0; attempt < attempts; attempt++) {
            Path dir;
            try {
                dir = Files.createTempDirectory("vigil-" + what + "-");
            } catch (IOException e) {
                throw new UncheckedIOException("cannot create a temp dir for " + what, e);
            }
            T server = create.apply(dir);
            try {
                launch.accept(server);
                return server;
            } catch (PortTakenException e) {
                discard.accept(server);
                last = e;
            } catch (RuntimeException e) {
                discard.accept(server);
                throw e;
            }
        }
        throw new IllegalStateException(what + " could not bind free ports after " + attempts + " attempts", last);
    }

    /** Starts {@code command} (after an earlier process of this server has gone) and its watchdog. */
    public void launch(ProcessBuilder command) {
        try {
            process = command.start();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start " + name, e);
        }
        LIVE.add(this);
        startWatchdog();
    }

    /**
     * Polls {@code ready} every {@code pollMillis} until it is true. Fails when the process exits
     * meanwhile ({@link PortTakenException} if a port was taken, so the caller can try other ports) or
     * when {@code timeout} passes.
     */
    public void awaitReady(String what, Duration timeout, long pollMillis, BooleanSupplier ready) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            Process p = process;
            if (!p.isAlive()) {
                String log = logTail.get();
                if (log.contains("Address already in use")) {
                    throw new PortTakenException(name + ": a port was taken: " + log);
                }
                throw new IllegalStateException(name + " exited with code " + p.exitValue() + " during start. Log:\n" + log);
            }
            if (ready.getAsBoolean()) {
                return;
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(name + " did not " + what + " within " + timeout + ". Log:\n" + logTail.get());
            }
            LocalProcesses.sleep(pollMillis);
        }
    }

    /**
     * Launches again on the same ports after a stop: our own old socket may linger a moment, so a
     * taken port is retried for {@code patience}; anyone else holding it longer is a real failure.
     */
    public void relaunch(Duration patience, long pollMillis, Runnable launchAndAwait) {
        if (closed) {
            throw new IllegalStateException(name + " is closed");
        }
        long deadline = System.nanoTime() + patience.toNanos();
        while (true) {
            try {
                launchAndAwait.run();
                return;
            } catch (PortTakenException e) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("cannot restart " + name, e);
                }
                LocalProcesses.sleep(pollMillis);
            }
        }
    }

    public long pid() {
        return process.pid();
    }

    public boolean isRunning() {
        Process p = process;
        return p != null && p.isAlive();
    }

    /** Graceful stop: SIGTERM, SIGKILL after {@code grace}; waits until the process is gone. */
    public void stop(Duration grace) {
        Process p = process;
        if (p == null || !p.isAlive()) {
            return;
        }
        p.destroy();
        try {
            if (!p.waitFor(grace.toMillis(), TimeUnit.MILLISECONDS)) {
                p.destroyForcibly().waitFor(KILL_WAIT.toMillis(), TimeUnit.MILLISECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        stopWatchdog();
    }

    /**
     * SIGTERM without escalating: waits up to {@code wait} and says whether the process exited (a test
     * of a graceful shutdown asserts it; {@link #close()} still kills one that did not).
     */
    public boolean terminate(Duration wait) {
        Process p = process;
        if (p == null || !p.isAlive()) {
            return true;
        }
        p.destroy();
        try {
            if (!p.waitFor(wait.toMillis(), TimeUnit.MILLISECONDS)) {
                return false;
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
        stopWatchdog();
        return true;
    }

    /** SIGKILL (a crash): no shutdown of any kind; waits until the process is gone. */
    public void kill() {
        Process p = process;
        if (p == null || !p.isAlive()) {
            return;
        }
        p.destroyForcibly();
        try {
            p.waitFor(KILL_WAIT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        stopWatchdog();
    }

    /** Kills the process and deletes its directory; later calls do nothing. */
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            kill();
        } catch (RuntimeException ignored) {
            // best effort
        }
        stopWatchdog();
        LIVE.remove(this);
        LocalProcesses.deleteRecursively(dir);
    }

    /** Kills the server if this JVM dies without running its shutdown hooks. */
    private void startWatchdog() {
        long jvm = ProcessHandle.current().pid();
        long server = process.pid();
        String script = "while kill -0 " + jvm + " 2>/dev/null; do kill -0 " + server
                + " 2>/dev/null || exit 0; sleep 1; done; kill -9 " + server + " 2>/dev/null; rm -rf '" + dir + "'";
        try {
            watchdog = new ProcessBuilder("sh", "-c", script)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                    .redirectError(ProcessBuilder.Redirect.DISCARD)
                    .start();
        } catch (IOException e) {
            watchdog = null; // best effort: the shutdown hook still covers normal exits
        }
    }

    private void stopWatchdog() {
        Process w = watchdog;
        if (w != null) {
            w.destroyForcibly();
            watchdog = null;
        }
    }
}
