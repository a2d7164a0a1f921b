package io.vigil.relay;

import static org.assertj.core.api.Assertions.assertThat;

import io.quarkus.redis.datasource.RedisDataSource;
import io.quarkus.redis.datasource.stream.StreamCommands;
import io.quarkus.redis.datasource.stream.StreamMessage;
import io.quarkus.redis.datasource.stream.StreamRange;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.io.IOException;
import java.net.HttpURLConnection;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * The relay in-process against a real Redis and a real Kafka broker: every entry reaches Kafka (keyed
 * by card_hash, valid against the committed schema), also across a Kafka outage under load; poison
 * entries and over-delivered entries land in the dead-letter stream exactly once.
 */
@QuarkusTest
@QuarkusTestResource(value = RelayTestResources.class, restrictToAnnotatedClass = true)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class RelayTest {

    static final String STREAM = "test:decisions";
    static final String DEAD_LETTERS = STREAM + ":dead-letter";
    static final String GROUP = "vigil-relay";

    @Inject
    RedisDataSource redis;

    @TestHTTPResource(value = "/health/ready", management = true)
    URL ready;

    @TestHTTPResource(value = "/metrics", management = true)
    URL metrics;

    private StreamCommands<String, String, String> streams() {
        return redis.stream(String.class, String.class, String.class);
    }

    private String append(String eventId, String key, String event) {
        return streams().xadd(STREAM, Map.of("event_id", eventId, "key", key, "event", event));
    }

    private String appendDecision(String prefix, int i) {
        String id = prefix + "-" + i;
        append(id, TestEvents.cardOf(i), TestEvents.event(id, "txn-" + id, TestEvents.cardOf(i)));
        return id;
    }

    @Test
    @Order(1)
    void steady_load_every_entry_reaches_kafka_keyed_by_card_and_valid_against_the_schema_and_leaves_the_stream() throws Exception {
        Set<String> expected = new HashSet<>();
        for (int i = 0; i < 3000; i++) {
            expected.add(appendDecision("steady", i));
        }
        try (KafkaTopicReader reader = new KafkaTopicReader(RelayTestResources.kafka.bootstrapServers(), RelayTestResources.TOPIC)) {
            assertThat(reader.awaitAll(expected, Duration.ofSeconds(60))).as("event ids missing from Kafka").isEmpty();
            Map<String, byte[]> firstValue = new HashMap<>();
            for (ConsumerRecord<String, byte[]> r : reader.records) {
                String id = TestEvents.eventIdOf(r.value());
                if (!expected.contains(id)) {
                    continue;
                }
                int i = Integer.parseInt(id.substring("steady-".length()));
                assertThat(r.key()).isEqualTo(TestEvents.cardOf(i));
                assertThat(TestEvents.violations(r.value())).as("schema violations of %s", id).isEmpty();
                byte[] previous = firstValue.putIfAbsent(id, r.value());
                if (previous != null) {
                    assertThat(r.value()).as("a duplicate carries the same event").isEqualTo(previous);
                }
            }
            // the same card always lands on the same partition (key = card_hash)
            Map<String, Set<Integer>> partitionsByCard = new HashMap<>();
            reader.records.forEach(r -> partitionsByCard.computeIfAbsent(r.key(), k -> new HashSet<>()).add(r.partition()));
            partitionsByCard.values().forEach(p -> assertThat(p).hasSize(1));
        }
        awaitNoPending();
        // published entries are deleted after their XACK (ADR 0016): the stream keeps only the backlog
        awaitStreamLength(0);
        assertThat(metric("vigil_relay_published_total")).isGreaterThanOrEqualTo(3000);
        assertThat(status(ready)).isEqualTo(200);
    }

    @Test
    @Order(2)
    void a_poison_entry_is_dead_lettered_once_and_does_not_block_the_stream() throws Exception {
        String poisonId = append("poison-1", "card-x", "{\"event_id\": \"poison-1\", \"decision\": ");
        String afterPoison = appendDecision("after-poison", 1);
        try (KafkaTopicReader reader = new KafkaTopicReader(RelayTestResources.kafka.bootstrapServers(), RelayTestResources.TOPIC)) {
            assertThat(reader.awaitAll(Set.of(afterPoison), Duration.ofSeconds(30))).isEmpty();
        }
        awaitDeadLetters(poisonId, 1);
        // longer than claim-min-idle + reclaim-interval: nothing comes back
        Thread.sleep(3000);
        List<StreamMessage<String, String, String>> dead = deadLettersOf(poisonId);
        assertThat(dead).hasSize(1);
        assertThat(dead.get(0).payload()).containsEntry("reason", "unparseable").containsEntry("event_id", "poison-1")
                .containsKey("detail").containsEntry("source_stream", STREAM);
        awaitNoPending();
        assertThat(metric("vigil_relay_dead_lettered_total{reason=\"unparseable\"")).isEqualTo(1);
    }

    @Test
    @Order(3)
    void an_entry_delivered_too_often_is_dead_lettered_once() throws Exception {
        awaitNoPending();
        awaitAllDelivered();
        // An entry another consumer kept crashing on: delivered 9 times to "crashing-relay", which went
        // away. Written, marked delivered and claimed in one script, so this relay never reads it as new
        // (a relayed entry is deleted, so it cannot be claimed back afterwards).
        String id = "redelivered-1";
        String entryId = redis.execute("EVAL", """
                local id = redis.call('XADD', KEYS[1], '*', 'event_id', ARGV[1], 'key', ARGV[2], 'event', ARGV[3])
                redis.call('XGROUP', 'SETID', KEYS[1], ARGV[4], id)
                redis.call('XCLAIM', KEYS[1], ARGV[4], 'crashing-relay', 0, id, 'RETRYCOUNT', 9, 'FORCE')
                return id""", "1", STREAM, id, TestEvents.cardOf(1), TestEvents.event(id, "txn-" + id, TestEvents.cardOf(1)), GROUP)
                .toString();
        assertThat(streams().xpending(STREAM, GROUP).getPendingCount()).isEqualTo(1);
        awaitDeadLetters(entryId, 1);
        Thread.sleep(3000);
        List<StreamMessage<String, String, String>> dead = deadLettersOf(entryId);
        assertThat(dead).hasSize(1);
        assertThat(dead.get(0).payload()).containsEntry("reason", "max-deliveries").containsEntry("event_id", id);
        assertThat(dead.get(0).payload().get("detail")).startsWith("delivered 10 times");
        awaitNoPending();
        assertThat(metric("vigil_relay_reclaimed_total")).isGreaterThanOrEqualTo(1);
        assertThat(metric("vigil_relay_dead_lettered_total{reason=\"max-deliveries\"")).isEqualTo(1);
    }

    @Test
    @Order(4)
    void kafka_down_for_30s_under_load_loses_nothing() throws Exception {
        int outageSeconds = Integer.getInteger("vigil.test.kafka-outage-seconds", 30);
        Set<String> expected = java.util.concurrent.ConcurrentHashMap.newKeySet();
        AtomicBoolean load = new AtomicBoolean(true);
        AtomicInteger seq = new AtomicInteger();
        Thread writer = new Thread(() -> {
            while (load.get()) {
                expected.add(appendDecision("outage", seq.getAndIncrement()));
                try {
                    Thread.sleep(3); // a few hundred decisions per second
                } catch (InterruptedException e) {
                    return;
                }
            }
        }, "test-load");
        writer.start();
        Thread.sleep(1000);
        RelayTestResources.kafka.stop();
        long down = System.nanoTime();
        boolean sawNotReady = false;
        while (System.nanoTime() - down < Duration.ofSeconds(outageSeconds).toNanos()) {
            sawNotReady |= status(ready) == 503;
            Thread.sleep(500);
        }
        RelayTestResources.kafka.restart();
        Thread.sleep(1000);
        load.set(false);
        writer.join();
        assertThat(sawNotReady).as("readiness reflects Kafka").isTrue();
        assertThat(expected.size()).isGreaterThan(outageSeconds * 50);
        try (KafkaTopicReader reader = new KafkaTopicReader(RelayTestResources.kafka.bootstrapServers(), RelayTestResources.TOPIC)) {
            assertThat(reader.awaitAll(expected, Duration.ofSeconds(120))).as("event ids missing from Kafka").isEmpty();
        }
        awaitNoPending();
        awaitStreamLength(0);
        assertThat(deadLettersMatching("outage-")).as("an outage dead-letters nothing").isEmpty();
        long deadline = System.nanoTime() + Duration.ofSeconds(15).toNanos();
        while (status(ready) != 200 && System.nanoTime() < deadline) {
            Thread.sleep(200);
        }
        assertThat(status(ready)).isEqualTo(200);
    }

    /** Waits until the group has been delivered every entry of the stream (its last-delivered-id is the stream's last id). */
    private void awaitAllDelivered() throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        String lastId = null;
        String delivered = null;
        while (System.nanoTime() < deadline) {
            lastId = field(redis.execute("XINFO", "STREAM", STREAM), "last-generated-id");
            delivered = field(redis.execute("XINFO", "GROUPS", STREAM).get(0), "last-delivered-id");
            if (lastId.equals(delivered)) {
                return;
            }
            Thread.sleep(100);
        }
        assertThat(delivered).as("last entry delivered to the group").isEqualTo(lastId);
    }

    /** A field of an XINFO reply (a map in RESP3, a flat name/value list in RESP2). */
    private static String field(io.vertx.mutiny.redis.client.Response info, String name) {
        if (info.getKeys() != null && info.containsKey(name)) {
            return info.get(name).toString();
        }
        for (int i = 0; i + 1 < info.size(); i += 2) {
            if (name.equals(info.get(i).toString())) {
                return info.get(i + 1).toString();
            }
        }
        throw new AssertionError("no " + name + " in " + info);
    }

    private void awaitStreamLength(long n) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (streams().xlen(STREAM) != n && System.nanoTime() < deadline) {
            Thread.sleep(100);
        }
        assertThat(streams().xlen(STREAM)).as("entries left in the stream").isEqualTo(n);
    }

    private List<StreamMessage<String, String, String>> deadLettersOf(String sourceId) {
        List<StreamMessage<String, String, String>> out = new ArrayList<>();
        for (StreamMessage<String, String, String> m : streams().xrange(DEAD_LETTERS, StreamRange.of("-", "+"))) {
            if (sourceId.equals(m.payload().get("source_id"))) {
                out.add(m);
            }
        }
        return out;
    }

    private List<StreamMessage<String, String, String>> deadLettersMatching(String eventIdPrefix) {
        return streams().xrange(DEAD_LETTERS, StreamRange.of("-", "+")).stream()
                .filter(m -> String.valueOf(m.payload().get("event_id")).startsWith(eventIdPrefix)).toList();
    }

    private void awaitDeadLetters(String sourceId, int n) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (deadLettersOf(sourceId).size() < n && System.nanoTime() < deadline) {
            Thread.sleep(100);
        }
        assertThat(deadLettersOf(sourceId)).hasSize(n);
    }

    private void awaitNoPending() {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        long pending = -1;
        while (System.nanoTime() < deadline) {
            pending = streams().xpending(STREAM, GROUP).getPendingCount();
            if (pending == 0) {
                return;
            }
            try {
                Thread.sleep(100);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
        assertThat(pending).as("entries still pending in the group").isZero();
    }

    /** Sum of the Prometheus samples whose line starts with {@code prefix} (name, optionally with a tag opening). */
    private double metric(String prefix) {
        String body = get(metrics);
        return Arrays.stream(body.split("\n"))
                .filter(l -> l.startsWith(prefix.contains("{") ? prefix : prefix + "{") || l.startsWith(prefix + " "))
                .mapToDouble(l -> Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1)))
                .sum();
    }

    private static int status(URL url) {
        try {
            HttpURLConnection c = (HttpURLConnection) url.openConnection();
            c.setConnectTimeout(2000);
            c.setReadTimeout(5000);
            int code = c.getResponseCode();
            c.disconnect();
            return code;
        } catch (IOException e) {
            return -1;
        }
    }

    private static String get(URL url) {
        try {
            HttpURLConnection c = (HttpURLConnection) url.openConnection();
            try (var in = c.getInputStream()) {
                return new String(in.readAllBytes(), StandardCharsets.UTF_8);
            }
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
