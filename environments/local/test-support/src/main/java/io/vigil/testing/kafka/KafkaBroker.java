package io.vigil.testing.kafka;

import io.vigil.testing.LocalProcesses;
import io.vigil.testing.ServerProcess;

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
 * <p>Every broker is killed (and its directory removed) when the JVM exits, even without running
 * shutdown hooks ({@link ServerProcess}), so runs never leave orphan brokers.
 */
public final class KafkaBroker implements AutoCloseable {

    public static final String CLASSPATH_RESOURCE = "io/vigil/local/kafka/broker.classpath";
    /** The broker settings shared with make run (environments/local/kafka/src/main/resources). */
    public static final String SETTINGS_RESOURCE = "io/vigil/local/kafka/broker.properties";
    static final String HOST = "127.0.0.1";

    private final Builder options;
    private final Path dir;
    private final String classpath;
    private final int port;
    private final int controllerPort;
    private final int podPort;
    private final ServerProcess process;

    private KafkaBroker(Builder options, Path dir, String classpath, int port, int controllerPort, int podPort) {
        this.options = options;
        this.podPort = podPort;
        this.dir = dir;
        this.classpath = classpath;
        this.port = port;
        this.controllerPort = controllerPort;
        this.process = new ServerProcess("Kafka broker on port " + port + " (controller " + controllerPort + ")",
                dir, this::logTail);
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
        private String podHost;

        private Builder() {
        }

        /**
         * A second listener ({@code PODS}, on its own port) on the host address the real node's pods
         * reach, advertised as that address ({@link #podBootstrapServers()}); clients on the host keep
         * 127.0.0.1.
         */
        public Builder reachableFromPods() {
            this.podHost = io.vigil.testing.LocalProcesses.podReachableHost();
            return this;
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
            return ServerProcess.startOnFreePorts("kafka-broker", 3,
                    dir -> new KafkaBroker(this, dir, cp, freePort(), freePort(), podHost == null ? 0 : freePort()),
                    broker -> {
                        broker.writeConfig();
                        broker.format();
                        broker.launch();
                    }, KafkaBroker::close);
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
        // The settings that depend on no port or directory have one home, shared with make run's kafka-lib.sh.
        try (InputStream in = KafkaBroker.class.getClassLoader().getResourceAsStream(SETTINGS_RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException("the broker settings (" + SETTINGS_RESOURCE + ") are not on the classpath:"
                        + " add a test dependency on vigil-local-kafka");
            }
            p.load(in);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + SETTINGS_RESOURCE, e);
        }
        p.setProperty("controller.quorum.voters", "1@" + HOST + ":" + controllerPort);
        String pods = options.podHost == null ? "" : ",PODS://" + options.podHost + ":" + podPort;
        p.setProperty("listeners", "PLAINTEXT://" + HOST + ":" + port + ",CONTROLLER://" + HOST + ":" + controllerPort + pods);
        p.setProperty("advertised.listeners", "PLAINTEXT://" + HOST + ":" + port + pods);
        p.setProperty("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT"
                + (pods.isEmpty() ? "" : ",PODS:PLAINTEXT"));
        p.setProperty("log.dirs", dataDir().toString());
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
        process.launch(new ProcessBuilder(cmd)
                .directory(dir.toFile())
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(logFile().toFile())));
        awaitServing(options.startTimeout);
    }

    /** Waits until the port is open, then until the Admin API sees the broker and an active controller. */
    private void awaitServing(Duration timeout) {
        long start = System.nanoTime();
        process.awaitReady("open its port", timeout, 100, this::portOpen);
        try (Admin admin = admin()) {
            Duration left = timeout.minusNanos(System.nanoTime() - start);
            process.awaitReady("serve", left, 200, () -> serving(admin));
        }
    }

    private static boolean serving(Admin admin) {
        try {
            var cluster = admin.describeCluster();
            return !cluster.nodes().get(5, TimeUnit.SECONDS).isEmpty()
                    && cluster.controller().get(5, TimeUnit.SECONDS) != null;
        } catch (ExecutionException | TimeoutException e) {
            return false; // not serving yet
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
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

    /** {@code <host address>:<port>} of the PODS listener; needs {@link Builder#reachableFromPods()}. */
    public String podBootstrapServers() {
        if (options.podHost == null) {
            throw new IllegalStateException("this broker listens on loopback only: start it with reachableFromPods()");
        }
        return options.podHost + ":" + podPort;
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
        return process.isRunning();
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
        process.stop(Duration.ofSeconds(30));
    }

    /** SIGKILL (a crash): no controlled shutdown. */
    public void kill() {
        process.kill();
    }

    /** Starts the broker again on the same ports and log dir (no re-format), and waits until it serves. */
    public void restart() {
        stop();
        process.relaunch(Duration.ofSeconds(20), 200, this::launch);
    }

    /** The last lines of the broker log, for error messages. */
    public String logTail() {
        return LocalProcesses.tail(40, logFile());
    }

    /** Kills the process and deletes its directory. */
    @Override
    public void close() {
        process.close();
    }

    @Override
    public String toString() {
        return "kafka-broker[" + bootstrapServers() + (process.isRunning() ? ", pid " + process.pid() : "") + "]";
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
}
