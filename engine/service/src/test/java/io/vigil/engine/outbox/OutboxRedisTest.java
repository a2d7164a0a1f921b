package io.vigil.engine.outbox;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.vertx.core.Vertx;
import io.vertx.redis.client.Redis;
import io.vertx.redis.client.RedisOptions;
import io.vigil.engine.decision.DecisionRecord;
import io.vigil.stream.DecisionStreams;
import io.vigil.testing.redis.RedisServer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The outbox (queue + writer) against a real redis-server: every accepted decision lands in the
 * stream, across a Redis outage and a hung Redis; a full queue drops and counts exactly.
 */
class OutboxRedisTest {

    static final String STREAM = "test:decisions";
    RedisServer redis;
    Vertx vertx;
    Redis client;
    Outbox outbox;

    @BeforeEach
    void start() {
        redis = RedisServer.builder().appendOnly(true).start();
        vertx = Vertx.vertx();
        client = Redis.createClient(vertx, new RedisOptions().setConnectionString(redis.uri()).setMaxPoolWaiting(1000));
    }

    @AfterEach
    void stop() {
        if (outbox != null) {
            outbox.stop(Duration.ofSeconds(1));
        }
        client.close();
        vertx.close();
        redis.close();
    }

    Outbox outbox(int capacity, int batch, int streams, Duration writeTimeout) {
        outbox = new Outbox(capacity, batch, streams, Duration.ofMillis(20), Duration.ofMillis(200),
                new RedisStreamAppender(client, STREAM, streams, 100_000, writeTimeout),
                new DecisionEvents("test"), new SimpleMeterRegistry());
        outbox.start();
        return outbox;
    }

    @Test
    void every_accepted_decision_lands_in_the_stream_once_with_its_key_and_a_valid_event() {
        Outbox o = outbox(10_000, 256, 1, Duration.ofSeconds(2));
        Map<String, DecisionRecord> sent = new HashMap<>();
        for (int i = 0; i < 3000; i++) {
            DecisionRecord r = i % 10 == 0 ? Decisions.degraded(i) : Decisions.declined(i);
            assertThat(o.offer(r)).isTrue();
            sent.put(r.decisionId(), r);
        }
        await(() -> o.xaddOk() == 3000, "all written");
        List<Entry> entries = entries(STREAM);
        assertThat(entries).hasSize(3000);
        assertThat(entries.stream().map(Entry::eventId)).containsExactlyInAnyOrderElementsOf(sent.keySet());
        for (Entry e : entries) {
            DecisionRecord r = sent.get(e.eventId);
            assertThat(e.key).isEqualTo(DecisionEvents.key(r));
            assertThat(Decisions.tree(e.event).get("event_id").asText()).isEqualTo(e.eventId);
        }
        entries.stream().limit(200).forEach(e -> assertThat(Decisions.violations(e.event)).isEmpty());
        assertThat(o.offered()).isEqualTo(3000);
        assertThat(o.dropped()).isZero();
        assertThat(o.xaddFailed()).isZero();
    }

    @Test
    void maxlen_bounds_the_stream() {
        outbox = new Outbox(10_000, 100, 1, Duration.ofMillis(20), Duration.ofMillis(200),
                new RedisStreamAppender(client, STREAM, 1, 500, Duration.ofSeconds(2)),
                new DecisionEvents("test"), new SimpleMeterRegistry());
        outbox.start();
        for (int i = 0; i < 3000; i++) {
            outbox.offer(Decisions.declined(i));
        }
        await(() -> outbox.xaddOk() == 3000, "all written");
        // MAXLEN ~ trims whole stream nodes (100 entries by default): about 500, never near 3000
        assertThat((Long) redis.command("XLEN", STREAM)).isBetween(500L, 700L);
    }

    @Test
    void a_redis_outage_keeps_the_batch_and_writes_it_after_the_restart() {
        Outbox o = outbox(10_000, 100, 1, Duration.ofMillis(500));
        Set<String> accepted = new HashSet<>();
        for (int i = 0; i < 300; i++) {
            DecisionRecord r = Decisions.declined(i);
            o.offer(r);
            accepted.add(r.decisionId());
        }
        await(() -> o.xaddOk() == 300, "first part written");
        redis.stop();
        for (int i = 300; i < 900; i++) {
            DecisionRecord r = Decisions.declined(i);
            assertThat(o.offer(r)).isTrue();
            accepted.add(r.decisionId());
        }
        await(() -> o.xaddFailed() > 0, "writes fail while Redis is down");
        redis.restart(); // AOF: the first 300 survive
        await(() -> distinctEventIds(STREAM).size() == 900, "everything written after the restart");
        assertThat(distinctEventIds(STREAM)).isEqualTo(accepted);
        assertThat(o.accepted()).isEqualTo(900);
        assertThat(o.dropped()).isZero();
    }

    @Test
    void a_full_queue_with_a_stalled_writer_drops_and_counts_exactly() throws Exception {
        Outbox o = outbox(50, 10, 1, Duration.ofMillis(300));
        redis.freeze(); // SIGSTOP: XADD hangs, the writer times out and retries its batch
        Set<String> accepted = ConcurrentHashMap.newKeySet();
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < 4; t++) {
            int base = t * 1000;
            Thread th = new Thread(() -> {
                for (int i = base; i < base + 500; i++) {
                    DecisionRecord r = Decisions.declined(i);
                    if (o.offer(r)) {
                        accepted.add(r.decisionId());
                    }
                }
            });
            threads.add(th);
            th.start();
        }
        for (Thread th : threads) {
            th.join();
        }
        assertThat(o.offered()).isEqualTo(2000);
        assertThat(o.accepted()).isEqualTo(accepted.size());
        assertThat(o.dropped()).isEqualTo(o.offered() - o.accepted());
        // at most the queue plus the one batch the writer holds
        assertThat(o.accepted()).isLessThanOrEqualTo(50 + 10);
        assertThat(o.dropped()).isGreaterThanOrEqualTo(2000 - 60);
        await(() -> o.xaddFailed() > 0, "the writer sees its writes fail");

        redis.thaw();
        await(() -> distinctEventIds(STREAM).equals(accepted), "every accepted decision written after the thaw");
        // a retried batch may have been appended twice: same event ids, never new ones
        assertThat(distinctEventIds(STREAM)).isEqualTo(accepted);
    }

    @Test
    void decisions_are_sharded_by_card_over_several_streams() {
        Outbox o = outbox(10_000, 64, 3, Duration.ofSeconds(2));
        Set<String> all = new HashSet<>();
        for (int i = 0; i < 600; i++) {
            DecisionRecord r = Decisions.declined(i);
            o.offer(r);
            all.add(r.decisionId());
        }
        await(() -> o.xaddOk() == 600, "all written");
        Set<String> union = new HashSet<>();
        for (int s = 0; s < 3; s++) {
            String stream = DecisionStreams.shard(STREAM, 3, s);
            List<Entry> entries = entries(stream);
            assertThat(entries).as("stream %s", stream).isNotEmpty();
            for (Entry e : entries) {
                assertThat(DecisionStreams.shardOf(e.key, 3)).isEqualTo(s);
                union.add(e.eventId);
            }
        }
        assertThat(union).isEqualTo(all);
        assertThat(redis.command("EXISTS", STREAM)).isEqualTo(0L);
    }

    record Entry(String id, String eventId, String key, byte[] event) {
    }

    @SuppressWarnings("unchecked")
    List<Entry> entries(String stream) {
        List<Entry> out = new ArrayList<>();
        Object reply = redis.command("XRANGE", stream, "-", "+");
        for (Object o : (List<Object>) reply) {
            List<Object> entry = (List<Object>) o;
            List<Object> fields = (List<Object>) entry.get(1);
            Map<String, String> f = new HashMap<>();
            for (int i = 0; i + 1 < fields.size(); i += 2) {
                f.put((String) fields.get(i), (String) fields.get(i + 1));
            }
            out.add(new Entry((String) entry.get(0), f.get("event_id"), f.get("key"),
                    f.get("event").getBytes(StandardCharsets.UTF_8)));
        }
        return out;
    }

    Set<String> distinctEventIds(String stream) {
        Set<String> ids = new HashSet<>();
        if (!redis.ping()) {
            return ids;
        }
        entries(stream).forEach(e -> ids.add(e.eventId));
        return ids;
    }

    static void await(BooleanSupplier condition, String what) {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (System.nanoTime() < deadline) {
            if (condition.getAsBoolean()) {
                return;
            }
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted waiting for: " + what);
            }
        }
        throw new AssertionError("timed out waiting for: " + what);
    }
}
