package io.vigil.relay;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.quarkus.redis.datasource.RedisDataSource;
import io.quarkus.redis.datasource.stream.StreamCommands;
import io.quarkus.redis.datasource.stream.StreamRange;
import io.quarkus.redis.datasource.stream.XPendingArgs;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.vigil.testing.redis.RedisServer;
import jakarta.inject.Inject;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.BooleanSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.NetworkException;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The batch semantics of one stream worker, with Kafka's answers under the test's control: a real
 * Redis, and Kafka's own {@link MockProducer} in place of the broker, because a real broker cannot be
 * made to acknowledge some records of one batch and fail others on cue. What is checked is what the
 * worker does with Redis: XACK exactly the acknowledged entries, only once the batch is answered, and
 * several batches in flight without acknowledging early.
 */
@QuarkusTest
@QuarkusTestResource(value = RelayTestResources.class, restrictToAnnotatedClass = true)
class StreamRelayBatchTest {

    static final String GROUP = "vigil-relay";
    /** How SLOWLOG ends the arguments of a command with more than 32. */
    private static final Pattern MORE_ARGUMENTS = Pattern.compile("\\.\\.\\. \\((\\d+) more arguments\\)");

    @Inject
    RedisDataSource redis;

    @Inject
    RelayConfig config;

    @Inject
    Relay relay;

    private final List<StreamRelay> started = new ArrayList<>();
    private final List<Thread> threads = new ArrayList<>();

    @AfterEach
    void stopWorkers() throws InterruptedException {
        started.forEach(StreamRelay::stop);
        for (Thread t : threads) {
            t.join(10_000);
        }
    }

    private StreamCommands<String, String, String> streams() {
        return redis.stream(String.class, String.class, String.class);
    }

    private List<String> append(String stream, String prefix, int n) {
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            String eventId = prefix + "-" + i;
            ids.add(streams().xadd(stream, Map.of("event_id", eventId, "key", TestEvents.cardOf(i),
                    "event", TestEvents.event(eventId, "txn-" + eventId, TestEvents.cardOf(i)))));
        }
        return ids;
    }

    /** The injected settings with a different batch size and window. */
    private RelayConfig with(int batchSize, int batchesInFlight) {
        return with(batchSize, batchesInFlight, config.linger());
    }

    /** The injected settings with a different batch size, window and linger. */
    private RelayConfig with(int batchSize, int batchesInFlight, Duration linger) {
        return with(batchSize, batchesInFlight, linger, config.entriesPerCommand());
    }

    /** The injected settings with a different batch size, window, linger and entries per Redis command. */
    private RelayConfig with(int batchSize, int batchesInFlight, Duration linger, int entriesPerCommand) {
        return (RelayConfig) Proxy.newProxyInstance(RelayConfig.class.getClassLoader(), new Class<?>[] {RelayConfig.class},
                (proxy, method, args) -> switch (method.getName()) {
                    case "batchSize" -> batchSize;
                    case "batchesInFlight" -> batchesInFlight;
                    case "linger" -> linger;
                    case "entriesPerCommand" -> entriesPerCommand;
                    default -> method.invoke(config, args);
                });
    }

    private StreamRelay start(String stream, String consumer, RelayConfig settings, Producer<String, byte[]> producer,
                              RelayMetrics metrics) {
        StreamRelay worker = new StreamRelay(stream, settings, consumer, redis, producer, metrics);
        Thread t = new Thread(worker, "test-worker-" + stream);
        started.add(worker);
        threads.add(t);
        t.start();
        return worker;
    }

    private static MockProducer<String, byte[]> manualProducer() {
        return new MockProducer<>(false, null, new StringSerializer(), new ByteArraySerializer());
    }

    private long pending(String stream) {
        return streams().xpending(stream, GROUP).getPendingCount();
    }

    private List<String> pendingIds(String stream) {
        return streams().xpending(stream, GROUP, StreamRange.of("-", "+"), 1000, new XPendingArgs()).stream()
                .map(p -> p.getMessageId()).toList();
    }

    private static void await(String what, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime()).as("waiting for: " + what).isLessThan(deadline);
            Thread.sleep(20);
        }
    }

    @Test
    void producer_settings_take_overrides_but_never_over_the_guarantee() {
        Map<String, Object> settings = relay.producerSettings();
        assertThat(settings).containsEntry("linger.ms", "7").containsEntry("compression.type", "zstd")
                .containsEntry("compression.zstd.level", 1)
                .containsEntry("acks", "all").containsEntry("enable.idempotence", true)
                .containsEntry("max.in.flight.requests.per.connection", 5);
    }

    @Test
    void partial_kafka_failure_inside_a_batch_acknowledges_only_what_the_broker_acknowledged() throws Exception {
        String stream = "test:partial";
        List<String> ids = append(stream, "partial", 10);
        MockProducer<String, byte[]> kafka = manualProducer();
        RelayMetrics metrics = new RelayMetrics(new SimpleMeterRegistry(), stream);
        start(stream, "partial-worker", with(10, 4), kafka, metrics);

        await("the batch of 10 sent", () -> kafka.history().size() == 10);
        // the event bytes reach Kafka as stored, keyed by the entry's key field
        ProducerRecord<String, byte[]> first = kafka.history().get(0);
        assertThat(first.key()).isEqualTo(TestEvents.cardOf(0));
        assertThat(new String(first.value(), StandardCharsets.UTF_8)).startsWith("{\"event_id\":\"partial-0\"");

        for (int i = 0; i < 5; i++) {
            kafka.completeNext();
        }
        // half answered: the batch is not settled yet, nothing acknowledged in Redis
        Thread.sleep(300);
        assertThat(pending(stream)).isEqualTo(10);

        kafka.errorNext(new NetworkException("broker went away")); // entry 5: retriable
        for (int i = 6; i < 10; i++) {
            kafka.completeNext();
        }
        // published counts after the XACK returned
        await("the 9 acknowledged entries XACKed", () -> metrics.published.count() == 9);
        assertThat(pendingIds(stream)).containsExactly(ids.get(5));
        assertThat(metrics.publishFailed.count()).isEqualTo(1);

        // the failed entry is sent again (backoff) and acknowledged once the broker takes it
        await("entry 5 re-sent", () -> kafka.history().size() == 11);
        assertThat(new String(kafka.history().get(10).value(), StandardCharsets.UTF_8)).contains("\"event_id\":\"partial-5\"");
        assertThat(pending(stream)).isEqualTo(1);
        kafka.completeNext();
        await("entry 5 XACKed", () -> metrics.published.count() == 10);
        assertThat(pending(stream)).isZero();
    }

    @Test
    void a_record_the_broker_rejects_for_good_is_dead_lettered_and_its_batch_mates_published() throws Exception {
        String stream = "test:rejected";
        List<String> ids = append(stream, "rejected", 3);
        MockProducer<String, byte[]> kafka = manualProducer();
        RelayMetrics metrics = new RelayMetrics(new SimpleMeterRegistry(), stream);
        start(stream, "rejected-worker", with(3, 4), kafka, metrics);

        await("the batch of 3 sent", () -> kafka.history().size() == 3);
        kafka.completeNext();
        kafka.errorNext(new RecordTooLargeException("too large"));
        kafka.completeNext();
        await("the two published entries XACKed", () -> metrics.published.count() == 2);
        assertThat(pending(stream)).isZero();
        assertThat(metrics.deadLetteredRejected.count()).isEqualTo(1);
        var dead = streams().xrange(stream + ":dead-letter", StreamRange.of("-", "+"));
        assertThat(dead).hasSize(1);
        assertThat(dead.get(0).payload()).containsEntry("reason", "rejected").containsEntry("source_id", ids.get(1))
                .containsEntry("event_id", "rejected-1");
        assertThat(kafka.history()).hasSize(3); // never re-sent
    }

    @Test
    void several_batches_in_flight_each_acknowledged_only_when_answered() throws Exception {
        String stream = "test:window";
        List<String> ids = append(stream, "window", 9);
        MockProducer<String, byte[]> kafka = manualProducer();
        RelayMetrics metrics = new RelayMetrics(new SimpleMeterRegistry(), stream);
        start(stream, "window-worker", with(3, 2), kafka, metrics);

        // two batches of 3 sent before the broker answered anything; the third waits for a free slot
        await("two batches in flight", () -> kafka.history().size() == 6);
        Thread.sleep(300);
        assertThat(kafka.history()).hasSize(6);
        assertThat(pending(stream)).isEqualTo(6);

        for (int i = 0; i < 3; i++) {
            kafka.completeNext();
        }
        await("the third batch sent", () -> kafka.history().size() == 9);
        await("the first batch XACKed", () -> metrics.published.count() == 3);
        assertThat(pendingIds(stream)).containsExactlyElementsOf(ids.subList(3, 9));

        while (kafka.completeNext()) {
            // answer everything left
        }
        await("all XACKed", () -> metrics.published.count() == 9);
        assertThat(pending(stream)).isZero();
    }

    /**
     * A backlog of several batches: Kafka gets batches of {@code batch-size} in stream order, each XACKed
     * only once the broker answered all of it, while no Redis command reads, acknowledges, deletes or
     * claims more than {@code entries-per-command} entries (ADR 0022). Every command the worker sent is
     * read back from Redis' own SLOWLOG (threshold 0: all of them, with their arguments).
     */
    @Test
    void a_backlog_goes_out_in_large_batches_while_each_redis_command_touches_few_entries() throws Exception {
        String stream = "test:bounded";
        int perCommand = 20;
        List<String> ids = append(stream, "bounded", 250);
        MockProducer<String, byte[]> kafka = manualProducer();
        RelayMetrics metrics = new RelayMetrics(new SimpleMeterRegistry(), stream);
        RedisServer server = recordEveryCommand();
        try {
            start(stream, "bounded-worker", with(100, 2, Duration.ZERO, perCommand), kafka, metrics);

            // two batches of 100 sent (a window of 2), none answered: nothing acknowledged
            await("two batches in flight", () -> kafka.history().size() == 200);
            assertThat(pending(stream)).isEqualTo(200);
            for (int i = 0; i < 99; i++) {
                kafka.completeNext();
            }
            // 99 of the first batch answered: still nothing acknowledged, and no third batch (window full)
            Thread.sleep(300);
            assertThat(pending(stream)).isEqualTo(200);
            assertThat(kafka.history()).hasSize(200);
            kafka.completeNext();
            await("the first batch XACKed", () -> metrics.published.count() == 100);
            await("the rest of the backlog sent", () -> kafka.history().size() == 250);
            assertThat(pendingIds(stream)).containsExactlyElementsOf(ids.subList(100, 250));
            while (kafka.completeNext()) {
                // answer everything left
            }
            await("all XACKed", () -> metrics.published.count() == 250);
            assertThat(pending(stream)).isZero();
            assertThat(streams().xlen(stream)).as("relayed entries deleted").isZero();

            // in stream order, and in batches of 100 although every read took at most 20
            assertThat(kafka.history()).extracting(r -> eventId(r.value()))
                    .containsExactlyElementsOf(IntStream.range(0, 250).mapToObj(i -> "bounded-" + i).toList());
            assertThat(metrics.batchEntries.max()).isEqualTo(100);

            Touched touched = touched(server, stream);
            assertThat(touched.most()).as("most entries per command").containsKeys("XREADGROUP", "XACK", "XDEL")
                    .allSatisfy((name, n) -> assertThat(n).as(name).isLessThanOrEqualTo(perCommand));
            assertThat(touched.total().get("XACK")).as("ids XACKed").isEqualTo(250);
            assertThat(touched.total().get("XDEL")).as("ids deleted").isEqualTo(250);
        } finally {
            stopRecording(server);
        }
    }

    /**
     * The same with the real KRaft broker and the relay's defaults (batches of 1,000, 100 entries per
     * command): a backlog of 1,050 reaches Kafka whole, each card's events in stream order, the stream
     * ends empty with nothing pending, and no command touched more than 100 entries.
     */
    @Test
    void a_backlog_reaches_the_real_broker_whole_and_in_order_per_card_in_commands_of_at_most_100() throws Exception {
        String stream = "test:backlog";
        int n = 1050;
        append(stream, "backlog", n);
        RelayMetrics metrics = new RelayMetrics(new SimpleMeterRegistry(), stream);
        RedisServer server = recordEveryCommand();
        try (KafkaProducer<String, byte[]> producer = new KafkaProducer<>(relay.producerSettings(), new StringSerializer(),
                new ByteArraySerializer());
             KafkaTopicReader topic = new KafkaTopicReader(RelayTestResources.kafka.bootstrapServers(), RelayTestResources.TOPIC)) {
            StreamRelay worker = start(stream, "backlog-worker", with(1000, 4, config.linger(), 100), producer, metrics);
            Set<String> expected = IntStream.range(0, n).mapToObj(i -> "backlog-" + i).collect(Collectors.toSet());
            assertThat(topic.awaitAll(expected, Duration.ofSeconds(120))).as("event ids missing from Kafka").isEmpty();
            await("all XACKed", () -> metrics.published.count() >= n);
            await("nothing pending", () -> pending(stream) == 0);
            assertThat(streams().xlen(stream)).as("relayed entries deleted").isZero();
            worker.stop(); // before the producer closes

            // one card's events share a partition, in the order they were written (first copies)
            Map<String, List<Integer>> orderByCard = new HashMap<>();
            Set<String> seen = new HashSet<>();
            for (ConsumerRecord<String, byte[]> r : topic.records) {
                String id = TestEvents.eventIdOf(r.value());
                if (expected.contains(id) && seen.add(id)) {
                    orderByCard.computeIfAbsent(r.key(), k -> new ArrayList<>()).add(Integer.parseInt(id.substring("backlog-".length())));
                }
            }
            assertThat(orderByCard).hasSize(97).allSatisfy((card, order) -> assertThat(order).as(card).isSorted());

            Touched touched = touched(server, stream);
            assertThat(touched.most()).as("most entries per command").containsKeys("XREADGROUP", "XACK", "XDEL")
                    .allSatisfy((name, most) -> assertThat(most).as(name).isLessThanOrEqualTo(100));
            assertThat(touched.total().get("XACK")).as("ids XACKed").isGreaterThanOrEqualTo(n);
        } finally {
            stopRecording(server);
        }
    }

    /** SLOWLOG with threshold 0 keeps every command with its arguments, until {@link #stopRecording}. */
    private static RedisServer recordEveryCommand() {
        RedisServer server = RelayTestResources.redis;
        server.command("CONFIG", "SET", "slowlog-log-slower-than", "0");
        server.command("CONFIG", "SET", "slowlog-max-len", "100000");
        server.command("SLOWLOG", "RESET");
        return server;
    }

    private static void stopRecording(RedisServer server) {
        server.command("CONFIG", "SET", "slowlog-log-slower-than", "10000");
        server.command("SLOWLOG", "RESET");
    }

    /** Per command name: the most entries one run touched, and the sum over all runs. */
    private record Touched(Map<String, Integer> most, Map<String, Integer> total) {
    }

    /** What the commands SLOWLOG recorded on {@code key} touched: COUNT asked of a read or claim, ids of an XACK, XDEL or XCLAIM. */
    private static Touched touched(RedisServer server, String key) {
        Map<String, Integer> most = new TreeMap<>();
        Map<String, Integer> total = new TreeMap<>();
        for (List<String> c : commandsOn(server, key)) {
            String name = c.get(0).toUpperCase(Locale.ROOT);
            int entries = switch (name) {
                case "XREADGROUP", "XAUTOCLAIM" -> Integer.parseInt(c.get(c.indexOf("COUNT") + 1));
                case "XACK" -> c.size() - 3;         // XACK stream group id...
                case "XDEL" -> c.size() - 2;         // XDEL stream id...
                case "XCLAIM" -> c.size() - 6;       // XCLAIM stream group consumer min-idle id... JUSTID
                default -> 0;
            };
            most.merge(name, entries, Math::max);
            total.merge(name, entries, Integer::sum);
        }
        return new Touched(most, total);
    }

    private static String eventId(byte[] event) {
        String json = new String(event, StandardCharsets.UTF_8);
        int at = json.indexOf("\"event_id\":\"") + "\"event_id\":\"".length();
        return json.substring(at, json.indexOf('"', at));
    }

    /**
     * The commands SLOWLOG recorded that name {@code key}, oldest first, each as its arguments. SLOWLOG
     * keeps at most 32 arguments, the last then reading "... (N more arguments)": those are counted
     * back in as placeholders, so a long XACK still shows its true length.
     */
    private static List<List<String>> commandsOn(RedisServer server, String key) {
        List<?> log = (List<?>) server.command("SLOWLOG", "GET", "-1");
        List<List<String>> out = new ArrayList<>();
        for (int i = log.size() - 1; i >= 0; i--) {
            List<String> args = new ArrayList<>();
            for (Object a : (List<?>) ((List<?>) log.get(i)).get(3)) {
                args.add(String.valueOf(a));
            }
            Matcher more = MORE_ARGUMENTS.matcher(args.get(args.size() - 1));
            if (more.matches()) {
                args.remove(args.size() - 1);
                args.addAll(Collections.nCopies(Integer.parseInt(more.group(1)), "…"));
            }
            if (args.contains(key)) {
                out.add(args);
            }
        }
        return out;
    }

    /**
     * At a moderate rate a read finds only a few entries; the linger lets the stream fill before the
     * next read, so the entries written meanwhile go out as one batch (one read, one Kafka request,
     * one XACK) instead of one batch each.
     */
    @Test
    void entries_written_during_the_linger_go_out_as_one_batch() throws Exception {
        String stream = "test:linger";
        MockProducer<String, byte[]> kafka = new MockProducer<>(true, null, new StringSerializer(), new ByteArraySerializer());
        RelayMetrics metrics = new RelayMetrics(new SimpleMeterRegistry(), stream);
        redis.execute("XGROUP", "CREATE", stream, GROUP, "0", "MKSTREAM");
        // a linger far longer than writing the entries below takes, however busy the machine
        start(stream, "linger-worker", with(1000, 4, Duration.ofSeconds(3)), kafka, metrics);

        append(stream, "first", 1);
        await("the first entry published", () -> metrics.published.count() == 1);
        for (int i = 0; i < 20; i++) {
            append(stream, "trickle-" + i, 1); // one XADD at a time, as a steady rate writes them
        }
        await("the 20 entries published", () -> metrics.published.count() == 21);
        assertThat(metrics.batchEntries.count()).as("batches sent").isEqualTo(2);
        assertThat(metrics.batchEntries.max()).as("entries in the second batch").isEqualTo(20);
        assertThat(pending(stream)).isZero();
    }

    /** Found by the worker's first XAUTOCLAIM, which (Redis 7) drops deleted entries from the PEL whatever their idle time. */
    @Test
    void a_pending_entry_trimmed_from_the_stream_is_counted_and_leaves_the_pending_list() throws Exception {
        String stream = "test:trimmed";
        List<String> ids = append(stream, "trimmed", 2);
        redis.execute("XGROUP", "CREATE", stream, GROUP, "0");
        // delivered to this consumer (then it "crashed"), and the first entry trimmed away meanwhile
        redis.execute("XREADGROUP", "GROUP", GROUP, "restarted-worker", "COUNT", "10", "STREAMS", stream, ">");
        redis.execute("XDEL", stream, ids.get(0));
        MockProducer<String, byte[]> kafka = new MockProducer<>(true, null, new StringSerializer(), new ByteArraySerializer());
        RelayMetrics metrics = new RelayMetrics(new SimpleMeterRegistry(), stream);
        start(stream, "restarted-worker", config, kafka, metrics);

        await("the surviving entry XACKed", () -> metrics.published.count() == 1);
        assertThat(pending(stream)).isZero();
        assertThat(metrics.trimmed.count()).isEqualTo(1);
        assertThat(kafka.history()).hasSize(1);
        assertThat(new String(kafka.history().get(0).value(), StandardCharsets.UTF_8)).contains("\"event_id\":\"trimmed-1\"");
    }
}
