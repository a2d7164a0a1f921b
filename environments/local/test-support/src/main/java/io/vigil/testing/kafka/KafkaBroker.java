package io.vigil.testing.kafka;

import io.vigil.testing.LocalProcesses;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.errors.TopicExistsException;

/**
 * A real single-node Kafka (KRaft, broker and controller in one) running as its own java process
 * on free loopback ports, with its own log directory.
 *
 * <pre>{@code
 * try (KafkaBroker kafka = KafkaBroker.start()) {
 *     kafka.createTopic("fraud.card.decisions.v1", 4);
 *     String bootstrap = kafka.bootstrapServers();   // 127.0.0.1:<port>
 *     kafka.stop();      // graceful (SIGTERM); the port closes, clients retry
 *     kafka.restart();   // same ports, same log dir: topics and records survive
 *     kafka.kill();      // SIGKILL (a crash)
 * }
 * }</pre>
 *
 * <p>The broker's classpath (the Apache Kafka jars) is resolved by the {@code vigil-local-kafka}
 * module, which writes it to the resource {@value #CLASSPATH_RESOURCE}. A test module gets it by
 * depending on {@code io.vigil:vigil-local-kafka} (test scope, excluding every transitive
 * dependency so the broker's jars stay out of the test's own classpath). {@code -Dvigil.kafka.classpath=<file>}
 * overrides it. The harness itself needs {@code org.apache.kafka:kafka-clients} (for the Admin client)
 * on the test classpath; it is an optional dependency of vigil-test-support.
 *
 * <p>Every broker is killed (and its directory removed) when the JVM exits, and a shell watchdog kills
 * it if the JVM dies without running shutdown hooks, so runs never leave orphan brokers.
 */
public final class KafkaBroker implements AutoCloseable {

    public static final String CLASSPATH_RESOURCE = "io/vigil/local/kafka/broker.classpath";
    static final String HOST = "127.0.0.1";
    private static final Set<KafkaBroker> LIVE = ConcurrentHashMap.newKeySet();

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            for (KafkaBroker broker : LIVE) {
                broker.closeQuietly();
            }
        }, "kafka-harness-cleanup"));
    }

    private final Builder options;
    private final Path dir;
    private final String classpath;
    private final int port;
    private final int controllerPort;
    private volatile Process process;
    private volatile Process watchdog;
    private volatile boolean closed;

    private KafkaBroker(Builder options, Path dir, String classpath, int port, int controllerPort) {
        this.options = options;
        this.dir = dir;
        this.classpath = classpath;
        this.port = port;
        this.controllerPort = controllerPort;
    }

    /** A broker with default options on free ports. */
    public static KafkaBroker start() {
        return builder().start();
    }

    public static Builder builder() {
        return new Builder();
    }

    /** Options for a broker. */
    public static final class Builder {
        private String maxHeap = "512m";
        private Duration startTimeout = Duration.ofSeconds(90);
        private final Map<String, String> overrides = new ConcurrentHashMap<>();

        private Builder() {
        }

        /** -Xmx of the broker JVM (default 512m). */
        public Builder maxHeap(String maxHeap) {
            this.maxHeap = maxHeap;
            return this;
        }

        public Builder startTimeout(Duration timeout) {
            this.startTimeout = timeout;
            return this;
        }

        /** An extra or overriding server.properties entry. */
        public Builder property(String key, String value) {
            overrides.put(key, value);
            return this;
        }

        public KafkaBroker start() {
            String cp = brokerClasspath();
            IllegalStateException last = null;
            for (int attempt = 0; attempt < 3; attempt++) {
                Path dir;
                try {
                    dir = Files.createTempDirectory("vigil-kafka-");
                } catch (IOException e) {
                    throw new UncheckedIOException("cannot create a temp dir for the Kafka broker", e);
                }
                KafkaBroker broker = new KafkaBroker(this, dir, cp, freePort(), freePort());
                try {
                    broker.writeConfig();
                    broker.format();
                    broker.launch();
                    return broker;
                } catch (PortTakenException e) {
                    // a port was taken between probe and bind: try other ports
                    broker.closeQuietly();
                    last = e;
                } catch (RuntimeException e) {
                    broker.closeQuietly();
                    throw e;
                }
            }
            throw new IllegalStateException("the Kafka broker could not bind free ports after 3 attempts", last);
        }
    }

    private static final class PortTakenException extends IllegalStateException {
        PortTakenException(String message) {
            super(message);
        }
    }

    private Path config() {
        return dir.resolve("server.properties");
    }

    public Path logFile() {
        return dir.resolve("broker.log");
    }

    public Path dataDir() {
        return dir.resolve("data");
    }

    private void writeConfig() {
        Properties p = new Properties();
        p.setProperty("process.roles", "broker,controller");
        p.setProperty("node.id", "1");
        p.setProperty("controller.quorum.voters", "1@" + HOST + ":" + controllerPort);
        p.setProperty("listeners", "PLAINTEXT://" + HOST + ":" + port + ",CONTROLLER://" + HOST + ":" + controllerPort);
        p.setProperty("advertised.listeners", "PLAINTEXT://" + HOST + ":" + port);
        p.setProperty("controller.listener.names", "CONTROLLER");
        p.setProperty("inter.broker.listener.name", "PLAINTEXT");
        p.setProperty("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT");
        p.setProperty("log.dirs", dataDir().toString());
        p.setProperty("num.partitions", "1");
        // topics are created explicitly: a typo in a topic name must fail, not create a 1-partition topic
        p.setProperty("auto.create.topics.enable", "false");
        // a single node: every internal topic has replication factor 1; fewer offset partitions start faster
        p.setProperty("offsets.topic.replication.factor", "1");
        p.setProperty("offsets.topic.num.partitions", "4");
        p.setProperty("transaction.state.log.replication.factor", "1");
        p.setProperty("transaction.state.log.min.isr", "1");
        p.setProperty("transaction.state.log.num.partitions", "4");
        p.setProperty("share.coordinator.state.topic.replication.factor", "1");
        p.setProperty("share.coordinator.state.topic.min.isr", "1");
        p.setProperty("group.initial.rebalance.delay.ms", "0");
        p.putAll(options.overrides);
        try (var out = Files.newBufferedWriter(config(), StandardCharsets.UTF_8)) {
            p.store(out, "vigil test broker");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + config(), e);
        }
    }

    /** kafka.tools.StorageTool random-uuid, then format (once per log dir). */
    private void format() {
        String clusterId = runTool("random-uuid").strip();
        String[] lines = clusterId.split("\\R");
        clusterId = lines[lines.length - 1].strip();
        if (!clusterId.matches("[A-Za-z0-9_-]{22}")) {
            throw new IllegalStateException("StorageTool random-uuid printed no cluster id: " + clusterId);
        }
        runTool("format", "-t", clusterId, "-c", config().toString());
    }

    private String runTool(String... args) {
        List<String> cmd = new ArrayList<>(List.of(javaBinary(), "-Xmx256m", "-cp", classpath, "kafka.tools.StorageTool"));
        cmd.addAll(List.of(args));
        try {
            Process p = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true).start();
            byte[] out;
            try (InputStream in = p.getInputStream()) {
                out = in.readAllBytes();
            }
            if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
                p.destroyForcibly();
                throw new IllegalStateException("StorageTool " + String.join(" ", args) + " failed:\n"
                        + new String(out, StandardCharsets.UTF_8));
            }
            return new String(out, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot run StorageTool", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    private void launch() {
        List<String> cmd = List.of(javaBinary(), "-Xmx" + options.maxHeap, "-Xms64m",
                "-Djava.awt.headless=true", "-cp", classpath, "kafka.Kafka", config().toString());
        try {
            process = new ProcessBuilder(cmd)
                    .directory(dir.toFile())
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(logFile().toFile()))
                    .start();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start the Kafka broker", e);
        }
        LIVE.add(this);
        startWatchdog();
        awaitServing(options.startTimeout);
    }

    /** Waits until the broker answers the Admin API with itself as controller-known cluster member. */
    private void awaitServing(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!portOpen()) {
            checkAlive();
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("Kafka broker on port " + port + " did not open its port within "
                        + timeout + ". Log:\n" + logTail());
            }
            sleep(100);
        }
        try (Admin admin = admin()) {
            while (true) {
                checkAlive();
                try {
                    var cluster = admin.describeCluster();
                    if (!cluster.nodes().get(5, TimeUnit.SECONDS).isEmpty()
                            && cluster.controller().get(5, TimeUnit.SECONDS) != null) {
                        return;
                    }
                } catch (ExecutionException | TimeoutException e) {
                    // not serving yet
                }
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("Kafka broker on port " + port + " did not serve within "
                            + timeout + ". Log:\n" + logTail());
                }
                sleep(200);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    private void checkAlive() {
        Process p = process;
        if (!p.isAlive()) {
            String log = logTail();
            if (log.contains("Address already in use")) {
                throw new PortTakenException("port " + port + " or " + controllerPort + " taken: " + log);
            }
            throw new IllegalStateException("Kafka broker exited with code " + p.exitValue()
                    + " during start. Log:\n" + log);
        }
    }

    private boolean portOpen() {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress(HOST, port), 200);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    /** Kills the broker if this JVM dies without running its shutdown hooks. */
    private void startWatchdog() {
        long jvm = ProcessHandle.current().pid();
        long broker = process.pid();
        String script = "while kill -0 " + jvm + " 2>/dev/null; do kill -0 " + broker
                + " 2>/dev/null || exit 0; sleep 1; done; kill -9 " + broker + " 2>/dev/null; rm -rf '" + dir + "'";
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

    /** {@code 127.0.0.1:<port>} for {@code bootstrap.servers}. */
    public String bootstrapServers() {
        return HOST + ":" + port;
    }

    public int port() {
        return port;
    }

    public int controllerPort() {
        return controllerPort;
    }

    public long pid() {
        return process.pid();
    }

    public boolean isRunning() {
        Process p = process;
        return p != null && p.isAlive();
    }

    /** An Admin client for this broker; the caller closes it. */
    public Admin admin() {
        return Admin.create(Map.of(
                AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers(),
                AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 5000,
                AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 10000,
                AdminClientConfig.RETRY_BACKOFF_MS_CONFIG, 100));
    }

    /** Creates a topic (replication factor 1); an existing topic is left as it is. */
    public void createTopic(String name, int partitions) {
        try (Admin admin = admin()) {
            admin.createTopics(List.of(new NewTopic(name, partitions, (short) 1))).all().get(30, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            if (!(e.getCause() instanceof TopicExistsException)) {
                throw new IllegalStateException("cannot create topic " + name, e.getCause());
            }
        } catch (TimeoutException e) {
            throw new IllegalStateException("creating topic " + name + " timed out", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    /** Graceful stop (SIGTERM, then SIGKILL after 30 s); waits until the process is gone. */
    public void stop() {
        Process p = process;
        if (p == null || !p.isAlive()) {
            return;
        }
        p.destroy();
        try {
            if (!p.waitFor(30, TimeUnit.SECONDS)) {
                p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        stopWatchdog();
    }

    /** SIGKILL (a crash): no controlled shutdown. */
    public void kill() {
        Process p = process;
        if (p == null || !p.isAlive()) {
            return;
        }
        p.destroyForcibly();
        try {
            p.waitFor(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        stopWatchdog();
    }

    /** Starts the broker again on the same ports and log dir (no re-format), and waits until it serves. */
    public void restart() {
        if (closed) {
            throw new IllegalStateException("closed");
        }
        stop();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (true) {
            try {
                launch();
                return;
            } catch (PortTakenException e) {
                // our own old socket may linger a moment; anyone else holding the port is a real failure
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("cannot restart the Kafka broker on port " + port, e);
                }
                sleep(200);
            }
        }
    }

    /** The last lines of the broker log, for error messages. */
    public String logTail() {
        try {
            if (!Files.exists(logFile())) {
                return "(no log yet)";
            }
            List<String> lines = Files.readAllLines(logFile(), StandardCharsets.UTF_8);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
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
        return "kafka-broker[" + bootstrapServers() + (process != null ? ", pid " + process.pid() : "") + "]";
    }

    /** The broker's classpath: -Dvigil.kafka.classpath=<file>, else the resource written by vigil-local-kafka. */
    static String brokerClasspath() {
        String explicit = System.getProperty("vigil.kafka.classpath", System.getenv("VIGIL_KAFKA_CLASSPATH"));
        try {
            String cp;
            if (explicit != null && !explicit.isBlank()) {
                cp = Files.readString(Path.of(explicit), StandardCharsets.UTF_8);
            } else {
                try (InputStream in = KafkaBroker.class.getClassLoader().getResourceAsStream(CLASSPATH_RESOURCE)) {
                    if (in == null) {
                        throw new IllegalStateException("the Kafka broker classpath (" + CLASSPATH_RESOURCE
                                + ") is not on the test classpath: add a test dependency on io.vigil:vigil-local-kafka"
                                + " (with <exclusions><exclusion><groupId>*</groupId><artifactId>*</artifactId></exclusion></exclusions>)"
                                + " or pass -Dvigil.kafka.classpath=<file>");
                    }
                    cp = new String(in.readAllBytes(), StandardCharsets.UTF_8);
                }
            }
            cp = cp.strip();
            String first = cp.split(java.io.File.pathSeparator)[0];
            if (!Files.exists(Path.of(first))) {
                throw new IllegalStateException("the Kafka broker classpath names " + first
                        + " which does not exist: rebuild vigil-local-kafka (./mvnw -pl environments/local/kafka package)");
            }
            return cp;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the Kafka broker classpath", e);
        }
    }

    static String javaBinary() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
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
