package io.vigil.testing.app;

import io.vigil.testing.LocalProcesses;
import io.vigil.testing.ServerProcess;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.HttpURLConnection;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;

/**
 * The packaged engine, relay or operator (target/quarkus-app) as its own local process, launched the
 * way make run launches it: the jar, JVM options, readiness path and timeouts come from the file
 * engine-lib.sh, relay-lib.sh and operator-lib.sh read too ({@code io/vigil/testing/app/<app>.properties});
 * a test adds only its instance's system properties, environment and, when it must, JVM options of its own.
 *
 * <pre>{@code
 * try (PackagedApp relay = PackagedApp.relay()
 *         .property("quarkus.redis.hosts", redis.uri())
 *         .property("vigil.relay.bootstrap-servers", kafka.bootstrapServers())
 *         .log(Path.of("target", "relay.log"))
 *         .start()) {                   // free ports, waits until ready
 *     relay.managementPort();
 *     relay.kill();                     // SIGKILL, a crash
 * }
 * }</pre>
 *
 * Like the Redis and Kafka harnesses, it runs under {@link ServerProcess}: killed even when the test JVM
 * dies without shutdown hooks.
 */
public final class PackagedApp implements AutoCloseable {
    /** Where the shared launch settings live, {@code %s} being {@code engine}, {@code relay} or {@code operator}. */
    public static final String SETTINGS_RESOURCE = "io/vigil/testing/app/%s.properties";
    private static final String HOST = "127.0.0.1";

    private final Builder options;
    private final Path dir;
    private final Path log;
    private final int httpPort;
    private final int managementPort;
    private final ServerProcess process;

    private PackagedApp(Builder options, Path dir, int httpPort, int managementPort) {
        this.options = options;
        this.dir = dir;
        this.log = options.log != null ? options.log : dir.resolve(options.app + ".log");
        this.httpPort = httpPort;
        this.managementPort = managementPort;
        this.process = new ServerProcess("the " + options.app + " (port " + healthPort() + ")", dir,
                () -> LocalProcesses.tail(40, log));
    }

    /** The engine: a free data port and a free management port. */
    public static Builder engine() {
        return new Builder("engine", true, true);
    }

    /** The relay: a free management port. */
    public static Builder relay() {
        return new Builder("relay", false, true);
    }

    /**
     * The operator: a free HTTP port, which serves its health and metrics too. The cluster it works on
     * and what it watches come from the environment ({@link Builder#env}), as in make run.
     */
    public static Builder operator() {
        return new Builder("operator", true, false);
    }

    /** The shared launch settings of {@code app} ({@code engine}, {@code relay}, {@code operator}). */
    public static Properties settings(String app) {
        String resource = String.format(SETTINGS_RESOURCE, app);
        Properties settings = new Properties();
        try (InputStream in = PackagedApp.class.getClassLoader().getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException(resource + " is missing from the classpath");
            }
            settings.load(in);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + resource, e);
        }
        return settings;
    }

    /** The shared JVM options of {@code app}, in order. */
    public static List<String> sharedJvmOptions(String app) {
        return Arrays.asList(required(settings(app), "jvm.options").trim().split("\\s+"));
    }

    private static String required(Properties settings, String key) {
        String value = settings.getProperty(key);
        if (value == null || value.isBlank()) {
            throw new IllegalStateException("no '" + key + "' in the shared launch settings");
        }
        return value.trim();
    }

    /** The repository's root: the nearest directory above the working directory holding environments/local/bin. */
    public static Path repositoryRoot() {
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            if (Files.isRegularFile(dir.resolve("environments/local/bin/process-lib.sh"))) {
                return dir;
            }
        }
        throw new IllegalStateException("no repository root above " + Path.of("").toAbsolutePath());
    }

    /** What a test may add to the shared launch; {@link #start()} picks free ports and retries if one was taken meanwhile. */
    public static final class Builder {
        private final String app;
        private final boolean httpPort;
        private final boolean managementPort;
        private final Properties settings;
        private final Map<String, String> properties = new LinkedHashMap<>();
        private final Map<String, String> environment = new LinkedHashMap<>();
        private final List<String> jvmOptions = new ArrayList<>();
        private Path jar;
        private Path log;

        private Builder(String app, boolean httpPort, boolean managementPort) {
            this.app = app;
            this.httpPort = httpPort;
            this.managementPort = managementPort;
            this.settings = settings(app);
        }

        /** A system property of this instance ({@code -Dkey=value}); it overrides the application's own. */
        public Builder property(String key, Object value) {
            properties.put(key, String.valueOf(value));
            return this;
        }

        /** An environment variable of this instance (e.g. the operator's KUBECONFIG). */
        public Builder env(String name, Object value) {
            environment.put(name, String.valueOf(value));
            return this;
        }

        /** JVM options of this test only (as make run's VIGIL_ENGINE_JAVA_OPTS): after the shared ones and the properties. */
        public Builder jvmOptions(String... options) {
            jvmOptions.addAll(List.of(options));
            return this;
        }

        /** Another jar than the shared settings' (e.g. the one the build just packaged, given by Maven). */
        public Builder jar(Path jar) {
            this.jar = jar;
            return this;
        }

        /** Where the process's output goes (default: its temporary directory, removed on close). */
        public Builder log(Path log) {
            this.log = log;
            return this;
        }

        /** The jar this builder launches: the one given, else the shared settings' under the repository root. */
        Path packagedJar() {
            return jar != null ? jar : repositoryRoot().resolve(required(settings, "jar"));
        }

        public PackagedApp start() {
            Path packaged = packagedJar();
            if (!Files.isRegularFile(packaged)) {
                throw new IllegalStateException(packaged + " is missing: package the " + app + " first (mvn package)");
            }
            return ServerProcess.startOnFreePorts(app, 5,
                    dir -> new PackagedApp(this, dir, freePortIf(httpPort), freePortIf(managementPort)),
                    p -> p.launch(packaged), PackagedApp::close);
        }
    }

    private static int freePortIf(boolean wanted) {
        return wanted ? LocalProcesses.freePort(HOST) : 0;
    }

    /**
     * The command line, in the order engine-lib.sh, relay-lib.sh and operator-lib.sh write theirs: java,
     * the shared JVM options, the ports, the instance's properties, this test's JVM options, the jar.
     */
    static List<String> command(Builder options, int httpPort, int managementPort, Path jar) {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.addAll(sharedJvmOptions(options.app));
        if (httpPort > 0) {
            cmd.add("-Dquarkus.http.port=" + httpPort);
        }
        if (managementPort > 0) {
            cmd.add("-Dquarkus.management.port=" + managementPort);
        }
        options.properties.forEach((k, v) -> cmd.add("-D" + k + "=" + v));
        cmd.addAll(options.jvmOptions);
        cmd.addAll(List.of("-jar", jar.toString()));
        return cmd;
    }

    private void launch(Path jar) {
        try {
            Files.createDirectories(log.toAbsolutePath().getParent());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create the directory of " + log, e);
        }
        ProcessBuilder command = new ProcessBuilder(command(options, httpPort, managementPort, jar))
                .directory(dir.toFile())
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
        command.environment().putAll(options.environment);
        process.launch(command);
        Duration timeout = Duration.ofSeconds(Long.parseLong(required(options.settings, "start.timeout.seconds")));
        String ready = required(options.settings, "ready.path");
        process.awaitReady("answer " + ready, timeout, 200, () -> answers(ready));
    }

    private boolean answers(String path) {
        try {
            HttpURLConnection c = (HttpURLConnection) URI.create("http://" + HOST + ":" + healthPort() + path).toURL().openConnection();
            c.setConnectTimeout(1000);
            c.setReadTimeout(2000);
            try {
                return c.getResponseCode() == 200;
            } finally {
                c.disconnect();
            }
        } catch (IOException e) {
            return false; // not listening yet
        }
    }

    /** The HTTP port ({@code quarkus.http.port}): the engine's data, the operator's health and metrics. */
    public int httpPort() {
        if (httpPort == 0) {
            throw new IllegalStateException("the " + options.app + " has no HTTP port here");
        }
        return httpPort;
    }

    /** The management port ({@code quarkus.management.port}); the engine and the relay. */
    public int managementPort() {
        if (managementPort == 0) {
            throw new IllegalStateException("the " + options.app + " has no management port");
        }
        return managementPort;
    }

    /** {@code http://127.0.0.1:<management port>}: health and metrics. */
    public String managementUrl() {
        return "http://" + HOST + ":" + managementPort();
    }

    /** Where health answers: the management port when the app has one, else the HTTP port. */
    private int healthPort() {
        return managementPort > 0 ? managementPort : httpPort;
    }

    public Path log() {
        return log;
    }

    public long pid() {
        return process.pid();
    }

    public boolean isRunning() {
        return process.isRunning();
    }

    /** SIGTERM and waits up to {@code wait}; true when the process exited, false when it still runs. */
    public boolean terminate(Duration wait) {
        return process.terminate(wait);
    }

    /** Graceful stop: SIGTERM, SIGKILL after the shared settings' grace period. */
    public void stop() {
        process.stop(Duration.ofSeconds(Long.parseLong(required(options.settings, "stop.grace.seconds"))));
    }

    /** SIGKILL (a crash): no shutdown of any kind. */
    public void kill() {
        process.kill();
    }

    /** Stops the process gracefully and removes its directory. */
    @Override
    public void close() {
        try {
            stop();
        } finally {
            process.close();
        }
    }
}
