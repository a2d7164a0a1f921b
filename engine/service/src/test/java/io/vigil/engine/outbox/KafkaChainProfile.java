package io.vigil.engine.outbox;

import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.vigil.testing.kafka.KafkaBroker;
import io.vigil.testing.redis.RedisServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.HttpURLConnection;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The whole durability chain with real parts: the engine (outbox on) → redis-server → the packaged
 * relay (engine/relay/target/quarkus-app, its own process) → a Kafka broker (its own process).
 */
public class KafkaChainProfile implements QuarkusTestProfile {

    static final String TOPIC = "fraud.card.decisions.v1";

    @Override
    public Map<String, String> getConfigOverrides() {
        Map<String, String> c = OutboxTestEngine.config();
        c.put("vigil.outbox.stream", "chain:decisions");
        c.put("vigil.outbox.streams", "2");
        return c;
    }

    @Override
    public List<TestResourceEntry> testResources() {
        return List.of(new TestResourceEntry(Chain.class));
    }

    public static class Chain implements QuarkusTestResourceLifecycleManager {
        static RedisServer redis;
        static KafkaBroker kafka;
        static Process relay;
        static int relayManagementPort;

        @Override
        public Map<String, String> start() {
            Path jar = Path.of("../relay/target/quarkus-app/quarkus-run.jar").toAbsolutePath().normalize();
            if (!Files.exists(jar)) {
                throw new IllegalStateException(jar + " is missing: build the relay first "
                        + "(./mvnw -pl engine/service -am verify builds it before the engine)");
            }
            redis = RedisServer.builder().appendOnly(true).start();
            kafka = KafkaBroker.start();
            kafka.createTopic(TOPIC, 4);
            relayManagementPort = freePort();
            Path log = Path.of("target", "chain-relay.log");
            try {
                relay = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                        "-Xmx256m",
                        "-Dquarkus.redis.hosts=" + redis.uri(),
                        "-Dvigil.relay.bootstrap-servers=" + kafka.bootstrapServers(),
                        "-Dvigil.relay.topic=" + TOPIC,
                        "-Dvigil.relay.stream=chain:decisions",
                        "-Dvigil.relay.streams=2",
                        "-Dvigil.relay.consumer-name=chain-relay",
                        "-Dvigil.relay.block=200ms",
                        "-Dquarkus.management.port=" + relayManagementPort,
                        "-jar", jar.toString())
                        .redirectErrorStream(true).redirectOutput(log.toFile()).start();
                awaitReady(log);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            return Map.of("quarkus.redis.outbox.hosts", redis.uri());
        }

        private static void awaitReady(Path log) throws IOException {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
            while (System.nanoTime() < deadline) {
                if (!relay.isAlive()) {
                    throw new IllegalStateException("relay exited: " + Files.readString(log));
                }
                try {
                    HttpURLConnection c = (HttpURLConnection) URI.create(
                            "http://127.0.0.1:" + relayManagementPort + "/q/health/ready").toURL().openConnection();
                    c.setConnectTimeout(500);
                    if (c.getResponseCode() == 200) {
                        return;
                    }
                } catch (IOException e) {
                    // not up yet
                }
                try {
                    Thread.sleep(200);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
            throw new IllegalStateException("relay not ready within 90 s: " + Files.readString(log));
        }

        @Override
        public void stop() {
            if (relay != null) {
                relay.destroy();
                try {
                    if (!relay.waitFor(30, TimeUnit.SECONDS)) {
                        relay.destroyForcibly();
                    }
                } catch (InterruptedException e) {
                    relay.destroyForcibly();
                    Thread.currentThread().interrupt();
                }
            }
            if (kafka != null) {
                kafka.close();
            }
            if (redis != null) {
                redis.close();
            }
        }

        private static int freePort() {
            try (ServerSocket s = new ServerSocket()) {
                s.bind(new InetSocketAddress("127.0.0.1", 0));
                return s.getLocalPort();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }
}
