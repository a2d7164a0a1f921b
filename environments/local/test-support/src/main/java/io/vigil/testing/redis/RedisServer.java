package io.vigil.testing.redis;

import io.vigil.testing.LocalProcesses;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * A real {@code redis-server} process on a free loopback port, with its own temporary directory.
 *
 * <pre>{@code
 * try (RedisServer redis = RedisServer.start()) {
 *     String uri = redis.uri();          // redis://127.0.0.1:<port>
 *     redis.freeze();                    // SIGSTOP: connections hang, nothing answers
 *     redis.thaw();                      // SIGCONT
 *     redis.stop();                      // process gone, port closed
 *     redis.restart();                   // same port, same directory
 * }
 * }</pre>
 *
 * Every server is also killed (and its directory removed) when the JVM exits normally, and a tiny
 * shell watchdog kills it if the JVM dies without running shutdown hooks (surefire timeout, kill -9),
 * so test runs never leave orphan servers behind.
 */
public final class RedisServer implements AutoCloseable {

    static final String HOST = "127.0.0.1";
    private static final Set<RedisServer> LIVE = ConcurrentHashMap.newKeySet();

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            for (RedisServer server : LIVE) {
                server.closeQuietly();
            }
        }, "redis-harness-cleanup"));
    }

    private final Builder options;
    private final Path dir;
    private final int port;
    private final int clusterBusPort;
    private volatile Process process;
    private volatile Process watchdog;
    private volatile boolean frozen;
    private volatile boolean closed;

    private RedisServer(Builder options, Path dir, int port, int clusterBusPort) {
        this.options = options;
        this.dir = dir;
        this.port = port;
        this.clusterBusPort = clusterBusPort;
    }

    /** A standalone server, no persistence, on a free port. */
    public static RedisServer start() {
        return builder().start();
    }

    public static Builder builder() {
        return new Builder();
    }

    /** Options for a server; {@link #start()} picks free ports and retries if one was taken meanwhile. */
    public static final class Builder {
        private boolean appendOnly;
        private boolean cluster;
        private final List<String> extraArgs = new ArrayList<>();
        private Duration startTimeout = Duration.ofSeconds(20);

        private Builder() {
        }

        /** Turn on AOF persistence (appendfsync everysec), so a {@link #restart()} keeps the data. */
        public Builder appendOnly(boolean on) {
            this.appendOnly = on;
            return this;
        }

        /** Start with {@code --cluster-enabled yes} and its own free cluster bus port. */
        public Builder clusterEnabled(boolean on) {
            this.cluster = on;
            return this;
        }

        /** Extra command-line arguments, e.g. {@code arg("--maxmemory-policy", "noeviction")}. */
        public Builder arg(String... args) {
            extraArgs.addAll(List.of(args));
            return this;
        }

        public Builder startTimeout(Duration timeout) {
            this.startTimeout = timeout;
            return this;
        }

        public RedisServer start() {
            String binary = Binaries.redisServer();
            IOException lastFailure = null;
            for (int attempt = 0; attempt < 5; attempt++) {
                Path dir;
                try {
                    dir = Files.createTempDirectory("vigil-redis-");
                } catch (IOException e) {
                    throw new UncheckedIOException("cannot create a temp dir for redis-server", e);
                }
                RedisServer server = new RedisServer(this, dir, freePort(), cluster ? freePort() : 0);
                try {
                    server.launch(binary);
                    return server;
                } catch (PortTakenException e) {
                    // another process grabbed the port between probe and bind: try other ports
                    server.closeQuietly();
                    lastFailure = e;
                } catch (RuntimeException e) {
                    server.closeQuietly();
                    throw e;
                }
            }
            throw new IllegalStateException("redis-server could not bind a free port after 5 attempts", lastFailure);
        }
    }

    private static final class PortTakenException extends IOException {
        PortTakenException(String message) {
            super(message);
        }
    }

    private void launch(String binary) throws PortTakenException {
        List<String> cmd = new ArrayList<>(List.of(binary,
                "--port", Integer.toString(port),
                "--bind", HOST,
                "--protected-mode", "no",
                "--daemonize", "no",
                "--dir", dir.toString(),
                "--logfile", logFile().toString(),
                "--save", "",
                "--appendonly", options.appendOnly ? "yes" : "no"));
        if (options.cluster) {
            cmd.addAll(List.of("--cluster-enabled", "yes",
                    "--cluster-config-file", "nodes.conf",
                    "--cluster-port", Integer.toString(clusterBusPort),
                    "--cluster-node-timeout", "15000"));
        }
        cmd.addAll(options.extraArgs);
        ProcessBuilder pb = new ProcessBuilder(cmd)
                .directory(dir.toFile())
                .redirectErrorStream(true)
                .redirectOutput(dir.resolve("stdout.txt").toFile());
        try {
            process = pb.start();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start " + binary, e);
        }
        frozen = false;
        LIVE.add(this);
        startWatchdog();
        awaitPing(options.startTimeout);
    }

    private void awaitPing(Duration timeout) throws PortTakenException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                String log = logTail();
                if (log.contains("Address already in use")) {
                    throw new PortTakenException("port " + port + " taken: " + log);
                }
                throw new IllegalStateException("redis-server exited with code " + process.exitValue()
                        + " during start on port " + port + ". Log:\n" + log);
            }
            if (ping()) {
                return;
            }
            sleep(20);
        }
        throw new IllegalStateException("redis-server on port " + port + " did not answer PING within "
                + timeout + ". Log:\n" + logTail());
    }

    /** Kills redis if this JVM dies without running its shutdown hooks. */
    private void startWatchdog() {
        long jvm = ProcessHandle.current().pid();
        long redis = process.pid();
        String script = "while kill -0 " + jvm + " 2>/dev/null; do kill -0 " + redis
                + " 2>/dev/null || exit 0; sleep 1; done; kill -9 " + redis + " 2>/dev/null; rm -rf '" + dir + "'";
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

    public String host() {
        return HOST;
    }

    public int port() {
        return port;
    }

    /** {@code redis://127.0.0.1:<port>}, the form Quarkus' {@code quarkus.redis.hosts} takes. */
    public String uri() {
        return "redis://" + HOST + ":" + port;
    }

    /** The cluster bus port (0 when not cluster-enabled). */
    public int clusterBusPort() {
        return clusterBusPort;
    }

    public long pid() {
        return process.pid();
    }

    public Path dir() {
        return dir;
    }

    public Path logFile() {
        return dir.resolve("redis.log");
    }

    public boolean isRunning() {
        Process p = process;
        return p != null && p.isAlive();
    }

    public boolean isFrozen() {
        return frozen && isRunning();
    }

    /** True when the server answers PING within 500 ms. */
    public boolean ping() {
        try {
            return "PONG".equals(Resp.command(HOST, port, 500, "PING"));
        } catch (IOException e) {
            return false;
        }
    }

    /**
     * Runs one command on a fresh connection (2 s timeout). Returns String, Long, List, {@link Resp.Error}
     * or null. Handy for assertions: {@code redis.command("TTL", key)}.
     */
    public Object command(String... args) {
        try {
            return Resp.command(HOST, port, 2000, args);
        } catch (IOException e) {
            throw new UncheckedIOException("redis " + String.join(" ", args) + " on port " + port, e);
        }
    }

    /** FLUSHALL, so tests sharing one server start from an empty keyspace. */
    public void flushAll() {
        Object reply = command("FLUSHALL");
        if (!"OK".equals(reply)) {
            throw new IllegalStateException("FLUSHALL answered " + reply);
        }
    }

    /** SIGSTOP: the process stays, its sockets stay open, nothing is answered (a "hung" Redis). */
    public void freeze() {
        signal("STOP");
        frozen = true;
    }

    /** SIGCONT after {@link #freeze()}. */
    public void thaw() {
        signal("CONT");
        frozen = false;
    }

    private void signal(String name) {
        if (!isRunning()) {
            throw new IllegalStateException("redis-server on port " + port + " is not running");
        }
        try {
            Process kill = new ProcessBuilder("kill", "-" + name, Long.toString(process.pid()))
                    .redirectErrorStream(true).start();
            if (!kill.waitFor(5, TimeUnit.SECONDS) || kill.exitValue() != 0) {
                throw new IllegalStateException("kill -" + name + " " + process.pid() + " failed: "
                        + new String(kill.getInputStream().readAllBytes(), StandardCharsets.UTF_8));
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot run kill -" + name, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    /** Graceful stop (SIGTERM, then SIGKILL after 5 s); waits until the process is gone. */
    public void stop() {
        Process p = process;
        if (p == null || !p.isAlive()) {
            return;
        }
        if (frozen) {
            // a stopped process does not handle SIGTERM until continued
            thaw();
        }
        p.destroy();
        try {
            if (!p.waitFor(5, TimeUnit.SECONDS)) {
                p.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        stopWatchdog();
    }

    /** SIGKILL (a crash): no shutdown, no final AOF rewrite. Works on a frozen process too. */
    public void kill() {
        Process p = process;
        if (p == null || !p.isAlive()) {
            return;
        }
        p.destroyForcibly();
        try {
            p.waitFor(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        frozen = false;
        stopWatchdog();
    }

    /**
     * Starts the server again on the same port and directory (kept data depends on
     * {@link Builder#appendOnly(boolean)}; a cluster node keeps its identity via nodes.conf).
     */
    public void restart() {
        if (closed) {
            throw new IllegalStateException("closed");
        }
        stop();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (true) {
            try {
                launch(Binaries.redisServer());
                return;
            } catch (PortTakenException e) {
                // our own old socket may linger a moment; anyone else taking the port is a real failure
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("cannot restart redis-server on port " + port, e);
                }
                sleep(100);
            }
        }
    }

    /** The last lines of the server log, for error messages. */
    public String logTail() {
        try {
            List<String> lines = new ArrayList<>();
            for (Path f : List.of(logFile(), dir.resolve("stdout.txt"))) {
                if (Files.exists(f)) {
                    lines.addAll(Files.readAllLines(f, StandardCharsets.UTF_8));
                }
            }
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 30), lines.size()));
        } catch (IOException | UncheckedIOException e) {
            return "(no log: " + e.getMessage() + ")";
        }
    }

    /** Kills the process and deletes its directory. */
    @Override
    public void close() {
        closeQuietly();
    }

    private void closeQuietly() {
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
        deleteRecursively(dir);
    }

    @Override
    public String toString() {
        return "redis-server[" + uri() + (process != null ? ", pid " + process.pid() : "") + "]";
    }

    static int freePort() {
        return LocalProcesses.freePort(HOST);
    }

    static void deleteRecursively(Path dir) {
        LocalProcesses.deleteRecursively(dir);
    }

    static void sleep(long millis) {
        LocalProcesses.sleep(millis);
    }
}
