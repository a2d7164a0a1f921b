package io.vigil.testing.redis;

import io.vigil.testing.LocalProcesses;
import io.vigil.testing.ServerProcess;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
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
 * Every server is also killed (and its directory removed) when the JVM exits, even without running
 * shutdown hooks ({@link ServerProcess}), so test runs never leave orphan servers behind.
 */
public final class RedisServer implements AutoCloseable {

    static final String HOST = "127.0.0.1";

    private final Builder options;
    private final Path dir;
    private final int port;
    private final int clusterBusPort;
    private final ServerProcess process;
    private volatile boolean frozen;

    private RedisServer(Builder options, Path dir, int port, int clusterBusPort) {
        this.options = options;
        this.dir = dir;
        this.port = port;
        this.clusterBusPort = clusterBusPort;
        this.process = new ServerProcess("redis-server on port " + port, dir, this::logTail);
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
        private String podHost;
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

        /**
         * Also listen on the host address the real node's pods reach ({@link #podUri()}), besides
         * 127.0.0.1.
         */
        public Builder reachableFromPods() {
            this.podHost = io.vigil.testing.LocalProcesses.podReachableHost();
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
            return ServerProcess.startOnFreePorts("redis-server", 5,
                    dir -> new RedisServer(this, dir, freePort(), cluster ? freePort() : 0),
                    server -> server.launch(binary), RedisServer::close);
        }
    }

    private void launch(String binary) {
        List<String> cmd = new ArrayList<>(List.of(binary, settingsFile().toString(),
                "--port", Integer.toString(port),
                "--bind", HOST));
        if (options.podHost != null) {
            cmd.add(options.podHost);
        }
        cmd.addAll(List.of(
                "--daemonize", "no",
                "--dir", dir.toString(),
                "--logfile", logFile().toString(),
                // Most tests need no AOF (faster, nothing to reload); the durability tests ask for it.
                "--appendonly", options.appendOnly ? "yes" : "no"));
        if (options.cluster) {
            cmd.addAll(List.of("--cluster-enabled", "yes",
                    "--cluster-config-file", "nodes.conf",
                    "--cluster-port", Integer.toString(clusterBusPort),
                    "--cluster-node-timeout", "15000"));
        }
        cmd.addAll(options.extraArgs);
        frozen = false;
        process.launch(new ProcessBuilder(cmd)
                .directory(dir.toFile())
                .redirectErrorStream(true)
                .redirectOutput(dir.resolve("stdout.txt").toFile()));
        process.awaitReady("answer PING", options.startTimeout, 20, this::ping);
    }

    /** Where make run's settings live: read by environments/local/bin/redis-lib.sh too. */
    public static final String SETTINGS_RESOURCE = "io/vigil/testing/redis/redis.conf";

    /** The shared settings ({@link #SETTINGS_RESOURCE}) copied into this server's directory for redis-server to read. */
    private Path settingsFile() {
        Path file = dir.resolve("redis.conf");
        try (var in = RedisServer.class.getClassLoader().getResourceAsStream(SETTINGS_RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException(SETTINGS_RESOURCE + " is missing from the classpath");
            }
            Files.copy(in, file, StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file, e);
        }
        return file;
    }

    public String host() {
        return HOST;
    }

    public int port() {
        return port;
    }

    /** {@code redis://<host address>:<port>} for pods of the real node; needs {@link Builder#reachableFromPods()}. */
    public String podUri() {
        if (options.podHost == null) {
            throw new IllegalStateException("this Redis listens on loopback only: start it with reachableFromPods()");
        }
        return "redis://" + options.podHost + ":" + port;
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
        return process.isRunning();
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
        if (isFrozen()) {
            // a stopped process does not handle SIGTERM until continued
            thaw();
        }
        process.stop(Duration.ofSeconds(5));
    }

    /** SIGKILL (a crash): no shutdown, no final AOF rewrite. Works on a frozen process too. */
    public void kill() {
        process.kill();
        frozen = false;
    }

    /**
     * Starts the server again on the same port and directory (kept data depends on
     * {@link Builder#appendOnly(boolean)}; a cluster node keeps its identity via nodes.conf).
     */
    public void restart() {
        stop();
        process.relaunch(Duration.ofSeconds(10), 100, () -> launch(Binaries.redisServer()));
    }

    /** The last lines of the server log, for error messages. */
    public String logTail() {
        return LocalProcesses.tail(30, logFile(), dir.resolve("stdout.txt"));
    }

    /** Kills the process and deletes its directory. */
    @Override
    public void close() {
        process.close();
    }

    @Override
    public String toString() {
        return "redis-server[" + uri() + (process.isRunning() ? ", pid " + process.pid() : "") + "]";
    }

    static int freePort() {
        return LocalProcesses.freePort(HOST);
    }

    static void sleep(long millis) {
        LocalProcesses.sleep(millis);
    }
}
