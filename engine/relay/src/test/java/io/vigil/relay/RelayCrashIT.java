package io.vigil.relay;

import static org.assertj.core.api.Assertions.assertThat;

import io.vertx.core.Vertx;
import io.vertx.redis.client.Command;
import io.vertx.redis.client.Redis;
import io.vertx.redis.client.Request;
import io.vertx.redis.client.Response;
import io.vigil.testing.app.PackagedApp;
import io.vigil.testing.kafka.KafkaBroker;
import io.vigil.testing.redis.RedisServer;
import java.io.IOException;
import java.net.HttpURLConnection;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The packaged relay as its own process: SIGKILLed mid-batch, then a second instance (another consumer
 * name, as a replacement pod would have) reclaims what the first left pending. Nothing is lost;
 * duplicates carry the same event_id and the same event. Then SIGTERM under load: the in-flight batch
 * is finished and acknowledged before the process exits.
 */
class RelayCrashIT {

    static final String STREAM = "crash:decisions";
    static final String TOPIC = "decisions.crash";
    static RedisServer redis;
    static KafkaBroker kafka;
    static Vertx vertx;
    static Redis client;
    final List<PackagedApp> relays = new ArrayList<>();

    @BeforeAll
    static void start() {
        redis = RedisServer.builder().appendOnly(true).start();
        kafka = KafkaBroker.start();
        kafka.createTopic(TOPIC, 4);
        vertx = Vertx.vertx();
        client = Redis.createClient(vertx, redis.uri());
    }

    @AfterAll
    static void close() {
        if (client != null) {
            client.close();
        }
        if (vertx != null) {
            vertx.close();
        }
        if (kafka != null) {
            kafka.close();
        }
        if (redis != null) {
            redis.close();
        }
    }

    @Test
    void killed_mid_batch_then_reclaimed_by_another_instance_loses_nothing_and_sigterm_finishes_the_batch() throws Exception {
        Set<String> expected = append("crash", 0, 30_000);
        PackagedApp a = startRelay("relay-a");
        try (KafkaTopicReader reader = new KafkaTopicReader(kafka.bootstrapServers(), TOPIC)) {
            // kill as soon as the first events reached Kafka: relay-a is in the middle of its batches
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
            while (reader.countsByEventId.isEmpty() && System.nanoTime() < deadline && a.isRunning()) {
                reader.drain(Duration.ofMillis(100));
            }
            assertThat(reader.countsByEventId).as("relay-a published something").isNotEmpty();
            a.kill(); // SIGKILL
            long pendingOfA = pendingOf("relay-a");
            long relayedBeforeKill = reader.countsByEventId.size();
            assertThat(relayedBeforeKill).as("killed before the end").isLessThan(expected.size());

            PackagedApp b = startRelay("relay-b");
            assertThat(reader.awaitAll(expected, Duration.ofSeconds(120))).as("event ids missing from Kafka").isEmpty();
            assertSameEventForDuplicates(reader.records);
            awaitPendingOf("relay-a", 0);
            if (pendingOfA > 0) {
                assertThat(metric(b, "vigil_relay_reclaimed_total")).as("relay-b reclaimed relay-a's entries")
                        .isGreaterThanOrEqualTo(pendingOfA);
            }

            // graceful stop under load: the batch in hand is published and acknowledged before exit
            Set<String> more = append("drain", 0, 20_000);
            long start = System.nanoTime();
            while (reader.countsByEventId.keySet().stream().noneMatch(more::contains)
                    && System.nanoTime() - start < TimeUnit.SECONDS.toNanos(60)) {
                reader.drain(Duration.ofMillis(100));
            }
            // SIGTERM
            assertThat(b.terminate(Duration.ofSeconds(40))).as("relay-b exits after SIGTERM").isTrue();
            assertThat(pendingOf("relay-b")).as("relay-b left nothing in flight").isZero();

            PackagedApp c = startRelay("relay-c");
            assertThat(reader.awaitAll(more, Duration.ofSeconds(120))).as("event ids missing after the restart").isEmpty();
            assertSameEventForDuplicates(reader.records);
            c.terminate(Duration.ofSeconds(40));
        } finally {
            relays.forEach(PackagedApp::close);
        }
    }

    private static void assertSameEventForDuplicates(List<ConsumerRecord<String, byte[]>> records) {
        Map<String, byte[]> first = new HashMap<>();
        for (ConsumerRecord<String, byte[]> r : records) {
            String id = TestEvents.eventIdOf(r.value());
            byte[] previous = first.putIfAbsent(id, r.value());
            if (previous != null) {
                assertThat(r.value()).as("duplicate of %s", id).isEqualTo(previous);
            }
        }
    }

    /** Appends decisions in pipelined batches; returns their event ids. */
    private static Set<String> append(String prefix, int from, int n) throws Exception {
        Set<String> ids = new HashSet<>();
        List<Request> batch = new ArrayList<>();
        for (int i = from; i < from + n; i++) {
            String id = prefix + "-" + i;
            ids.add(id);
            batch.add(Request.cmd(Command.XADD).arg(STREAM).arg("*").arg("event_id").arg(id)
                    .arg("key").arg(TestEvents.cardOf(i)).arg("event").arg(TestEvents.event(id, "txn-" + id, TestEvents.cardOf(i))));
            if (batch.size() == 1000) {
                client.batch(batch).toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
                batch = new ArrayList<>();
            }
        }
        if (!batch.isEmpty()) {
            client.batch(batch).toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
        }
        return ids;
    }

    private static long pendingOf(String consumer) throws Exception {
        Response r = client.send(Request.cmd(Command.XPENDING).arg(STREAM).arg("vigil-relay").arg("-").arg("+")
                .arg(100_000).arg(consumer)).toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        return r == null ? 0 : r.size();
    }

    private static void awaitPendingOf(String consumer, long n) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (pendingOf(consumer) != n && System.nanoTime() < deadline) {
            Thread.sleep(200);
        }
        assertThat(pendingOf(consumer)).isEqualTo(n);
    }

    /** The packaged relay, launched as make run launches it, tuned to reclaim and block briefly. */
    private PackagedApp startRelay(String consumer) {
        PackagedApp relay = PackagedApp.relay()
                .jar(Path.of(System.getProperty("relay.jar", "target/quarkus-app/quarkus-run.jar")))
                .property("quarkus.redis.hosts", redis.uri())
                .property("vigil.relay.bootstrap-servers", kafka.bootstrapServers())
                .property("vigil.relay.topic", TOPIC)
                .property("vigil.relay.stream", STREAM)
                .property("vigil.relay.consumer-name", consumer)
                .property("vigil.relay.claim-min-idle", "2s")
                .property("vigil.relay.reclaim-interval", "500ms")
                .property("vigil.relay.block", "200ms")
                .log(Path.of("target", "relay-" + consumer + ".log"))
                .start();
        relays.add(relay);
        return relay;
    }

    private static double metric(PackagedApp relay, String name) throws IOException {
        HttpURLConnection c = (HttpURLConnection) URI.create(relay.managementUrl() + "/q/metrics").toURL().openConnection();
        String body;
        try (var in = c.getInputStream()) {
            body = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        return Arrays.stream(body.split("\n")).filter(l -> l.startsWith(name + "{") || l.startsWith(name + " "))
                .mapToDouble(l -> Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1))).sum();
    }
}
