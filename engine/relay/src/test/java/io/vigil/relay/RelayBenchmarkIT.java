package io.vigil.relay;

import io.vertx.core.Vertx;
import io.vertx.redis.client.Command;
import io.vertx.redis.client.Redis;
import io.vertx.redis.client.Request;
import io.vertx.redis.client.Response;
import io.vigil.testing.kafka.KafkaBroker;
import io.vigil.testing.redis.RedisServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * Benchmark, not a test (skipped unless -Dvigil.bench=true; asserts only that every event reached Kafka):
 * the packaged relay draining a pre-filled stream into Kafka, with the drain rate and the CPU per event
 * of the relay, Kafka and Redis (utime+stime from /proc/&lt;pid&gt;/stat over the drain / events), then
 * stream → Kafka latency at a fixed rate. Numbers go to docs/benchmarks.md ("Durability").
 *
 * <p>Several relay builds (or settings) can be compared back to back on the same Redis and broker, rounds
 * alternated, so the machine's other load hits them alike:
 * {@code "-Dvigil.bench.relays=before=/tmp/relay-before/quarkus-app/quarkus-run.jar;after=target/quarkus-app/quarkus-run.jar"}
 * ({@code label=jar[|-Dextra -Dflags]}, relays separated by {@code ;}). Broker settings: {@code -Dvigil.bench.broker.<server property>=value}.
 *
 * <pre>./mvnw -pl engine/relay -o verify -Dvigil.bench=true -Dit.test=RelayBenchmarkIT -Dtest=none -Dsurefire.failIfNoSpecifiedTests=false</pre>
 * ({@code -Dvigil.bench.backlog} (200000), {@code .warmup} (50000), {@code .rounds} (2), {@code .rate} (5000), {@code .seconds} (0 = no latency phase)).
 */
@EnabledIfSystemProperty(named = "vigil.bench", matches = "true")
class RelayBenchmarkIT {

    static final String TOPIC = "decisions.bench";
    static final int PARTITIONS = 6;
    static final long CLOCK_TICKS = 100; // USER_HZ on Linux

    record RelayUnderTest(String label, String jar, List<String> flags) {
    }

    @Test
    void relay_drain_rate_cpu_per_event_and_latency() throws Exception {
        int backlog = Integer.getInteger("vigil.bench.backlog", 200_000);
        int rounds = Integer.getInteger("vigil.bench.rounds", 2);
        int rate = Integer.getInteger("vigil.bench.rate", 5_000);
        int seconds = Integer.getInteger("vigil.bench.seconds", 0);
        List<RelayUnderTest> relays = relays();
        KafkaBroker.Builder brokerOptions = KafkaBroker.builder();
        System.getProperties().stringPropertyNames().stream().filter(k -> k.startsWith("vigil.bench.broker."))
                .forEach(k -> brokerOptions.property(k.substring("vigil.bench.broker.".length()), System.getProperty(k)));
        try (RedisServer redis = RedisServer.builder().appendOnly(true).start();
             KafkaBroker kafka = brokerOptions.start()) {
            kafka.createTopic(TOPIC, PARTITIONS);
            Vertx vertx = Vertx.vertx();
            Redis client = Redis.createClient(vertx, redis.uri());
            try (Admin admin = kafka.admin()) {
                System.out.printf("BENCH backlog %d events of ~%d bytes, topic %d partitions, %d round(s), relays %s%n",
                        backlog, event(new SplittableRandom(1), "x").length(), PARTITIONS, rounds, relays);
                int run = 0;
                Map<String, List<double[]>> results = new LinkedHashMap<>();
                for (int r = 1; r <= rounds; r++) {
                    for (RelayUnderTest relay : relays) {
                        String base = "bench:decisions:" + (run++);
                        double[] d = drain(relay, redis, kafka, client, base, backlog, admin, run);
                        results.computeIfAbsent(relay.label, k -> new ArrayList<>()).add(d);
                        System.out.printf("BENCH round %d %-8s drain %,.0f events/s (%d in %.2f s)  CPU µs/event: relay %.1f  kafka %.1f  redis %.1f  (Kafka records +%d)  load %s%n",
                                r, relay.label, d[0], backlog, d[1], d[2], d[3], d[4], (long) d[5], loadAverage());
                    }
                }
                for (var e : results.entrySet()) {
                    double[] mean = new double[5];
                    for (double[] d : e.getValue()) {
                        for (int i = 0; i < 5; i++) {
                            mean[i] += d[i] / e.getValue().size();
                        }
                    }
                    System.out.printf("BENCH mean %-8s drain %,.0f events/s  CPU µs/event: relay %.1f  kafka %.1f  redis %.1f%n",
                            e.getKey(), mean[0], mean[2], mean[3], mean[4]);
                }
            }
            if (seconds > 0) {
                latency(relays.get(relays.size() - 1), redis, kafka, client, rate, seconds);
            }
            client.close();
            vertx.close();
        }
    }

    private static List<RelayUnderTest> relays() {
        String spec = System.getProperty("vigil.bench.relays",
                "relay=" + System.getProperty("relay.jar", "target/quarkus-app/quarkus-run.jar"));
        List<RelayUnderTest> out = new ArrayList<>();
        for (String one : spec.split(";")) {
            String[] labelRest = one.split("=", 2);
            String[] jarFlags = labelRest[1].split("\\|", 2);
            List<String> flags = jarFlags.length > 1 ? Arrays.asList(jarFlags[1].trim().split("\\s+")) : List.of();
            out.add(new RelayUnderTest(labelRest[0], jarFlags[0], flags));
        }
        return out;
    }

    private static Process startRelay(RelayUnderTest relay, RedisServer redis, KafkaBroker kafka, String stream, int port)
            throws IOException {
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx512m", "-Dquarkus.redis.hosts=" + redis.uri(),
                "-Dvigil.relay.bootstrap-servers=" + kafka.bootstrapServers(),
                "-Dvigil.relay.topic=" + TOPIC, "-Dvigil.relay.stream=" + stream,
                "-Dvigil.relay.consumer-name=bench", "-Dquarkus.management.port=" + port));
        cmd.addAll(relay.flags);
        cmd.add("-jar");
        cmd.add(relay.jar);
        Path log = Path.of("target", "relay-bench-" + relay.label + ".log");
        return new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    }

    /**
     * Measures one relay process draining a backlog at steady state. The relay runs two workers
     * ({@code streams=2}): it first drains a warm-up backlog on {@code <base>:0} (JIT compilation, pools,
     * metadata: one-off costs that are not the per-event cost), then the measured backlog appears on
     * {@code <base>:1} at once: prefilled under another key with the group at 0, then RENAMEd over the
     * empty stream the worker watches. The window runs from the RENAME until the group has read and
     * acknowledged all of it. Progress is read from Redis (XINFO GROUPS), not from the relay's metrics
     * endpoint, so polling costs the relay nothing.
     * Returns {events/s, seconds, relay µs/event, kafka µs/event, redis µs/event, Kafka records added}.
     */
    private static double[] drain(RelayUnderTest relay, RedisServer redis, KafkaBroker kafka, Redis client, String base,
                                  int backlog, Admin admin, long seed) throws Exception {
        int warmup = Integer.getInteger("vigil.bench.warmup", 50_000);
        String warm = base + ":0";
        String measured = base + ":1";
        String staging = base + ":staging";
        append(client, warm, warmup, seed + 1000);
        append(client, staging, backlog, seed);
        send(client, Request.cmd(Command.XGROUP).arg("CREATE").arg(staging).arg("vigil-relay").arg("0"));
        List<String> flags = new ArrayList<>(relay.flags);
        flags.add("-Dvigil.relay.streams=2");
        Process p = startRelay(new RelayUnderTest(relay.label, relay.jar, flags), redis, kafka, base, freePort());
        try {
            long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(5);
            long[] group;
            while ((group = group(client, warm))[0] < warmup || group[1] > 0) {
                check(p, deadline, relay);
                Thread.sleep(20);
            }
            while (group(client, measured)[2] == 0) { // the worker's group on the (empty) measured stream
                check(p, deadline, relay);
                Thread.sleep(20);
            }
            Thread.sleep(500);
            long offsetsBefore = endOffsets(admin);
            System.out.printf("BENCH %s warmed up on %d events; load %s%n", relay.label, warmup, loadAverage());
            long relayCpu0 = cpuTicks(p.pid());
            long kafkaCpu0 = cpuTicks(kafka.pid());
            long redisCpu0 = cpuTicks(redis.pid());
            long start = System.nanoTime();
            send(client, Request.cmd(Command.RENAME).arg(staging).arg(measured));
            while ((group = group(client, measured))[0] < backlog || group[1] > 0) {
                check(p, deadline, relay);
                Thread.sleep(20);
            }
            double s = (System.nanoTime() - start) / 1e9;
            double relayUs = (cpuTicks(p.pid()) - relayCpu0) * 1e6 / CLOCK_TICKS / backlog;
            double kafkaUs = (cpuTicks(kafka.pid()) - kafkaCpu0) * 1e6 / CLOCK_TICKS / backlog;
            double redisUs = (cpuTicks(redis.pid()) - redisCpu0) * 1e6 / CLOCK_TICKS / backlog;
            long added = endOffsets(admin) - offsetsBefore;
            if (added < backlog) {
                throw new AssertionError(relay.label + ": the group acknowledged " + backlog + " entries but Kafka got only "
                        + added + " records");
            }
            send(client, Request.cmd(Command.DEL).arg(warm).arg(measured));
            return new double[] {backlog / s, s, relayUs, kafkaUs, redisUs, added};
        } finally {
            p.destroy();
            p.waitFor(30, TimeUnit.SECONDS);
        }
    }

    private static void check(Process p, long deadline, RelayUnderTest relay) {
        if (!p.isAlive()) {
            throw new IllegalStateException(relay.label + ": the relay exited; see target/relay-bench-" + relay.label + ".log");
        }
        if (System.nanoTime() > deadline) {
            throw new IllegalStateException(relay.label + ": the drain did not finish within 5 minutes");
        }
    }

    /** {entries-read, pending, 1} of the relay's group ({0, 0, 0} before the group exists). */
    private static long[] group(Redis client, String stream) throws Exception {
        Response groups;
        try {
            groups = send(client, Request.cmd(Command.XINFO).arg("GROUPS").arg(stream));
        } catch (Exception e) {
            return new long[] {0, 0, 0};
        }
        for (Response g : groups) {
            if ("vigil-relay".equals(g.get("name").toString())) {
                Response read = g.get("entries-read");
                return new long[] {read == null ? 0 : read.toLong(), g.get("pending").toLong(), 1};
            }
        }
        return new long[] {0, 0, 0};
    }

    /** utime + stime of a process, in clock ticks (/proc/&lt;pid&gt;/stat fields 14 and 15). */
    static long cpuTicks(long pid) throws IOException {
        String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
        String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        return Long.parseLong(f[11]) + Long.parseLong(f[12]);
    }

    private static String loadAverage() {
        try {
            String[] f = Files.readString(Path.of("/proc/loadavg")).split(" ");
            return f[0] + " " + f[1] + " " + f[2];
        } catch (IOException e) {
            return "?";
        }
    }

    private static long endOffsets(Admin admin) throws Exception {
        Map<TopicPartition, OffsetSpec> request = new LinkedHashMap<>();
        for (int i = 0; i < PARTITIONS; i++) {
            request.put(new TopicPartition(TOPIC, i), OffsetSpec.latest());
        }
        return admin.listOffsets(request).all().get(30, TimeUnit.SECONDS).values().stream()
                .mapToLong(o -> o.offset()).sum();
    }

    /**
     * A decision event shaped like the engine's: a card drawn Zipf-like from 100,000 (a few hot cards,
     * a long tail), varied amounts, decisions and velocity values, ~1.3 KB.
     */
    static String event(SplittableRandom rnd, String eventId) {
        return TestEvents.event(eventId, "txn-" + eventId, card(rnd));
    }

    static String card(SplittableRandom rnd) {
        double u = rnd.nextDouble();
        return "card-" + (long) (100_000 * u * u * u);
    }

    private static Request xadd(String stream, String eventId, String card, String event) {
        return Request.cmd(Command.XADD).arg(stream).arg("MAXLEN").arg("~").arg(1_000_000).arg("*")
                .arg("event_id").arg(eventId).arg("key").arg(card).arg("event").arg(event);
    }

    private static void append(Redis client, String stream, int n, long seed) throws Exception {
        SplittableRandom rnd = new SplittableRandom(seed);
        List<Request> batch = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            String id = UUID.randomUUID().toString();
            String card = card(rnd);
            batch.add(xadd(stream, id, card, TestEvents.event(id, "txn-" + id, card)));
            if (batch.size() == 1000) {
                client.batch(batch).toCompletionStage().toCompletableFuture().get(60, TimeUnit.SECONDS);
                batch = new ArrayList<>();
            }
        }
        if (!batch.isEmpty()) {
            client.batch(batch).toCompletionStage().toCompletableFuture().get(60, TimeUnit.SECONDS);
        }
    }

    private static Response send(Redis client, Request r) throws Exception {
        return client.send(r).toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    /** Stream → Kafka → consumer latency at a fixed rate (consumer clock − the event's produced_at). */
    private static void latency(RelayUnderTest relay, RedisServer redis, KafkaBroker kafka, Redis client, int rate,
                                int seconds) throws Exception {
        String stream = "bench:decisions:latency";
        Process p = startRelay(relay, redis, kafka, stream, freePort());
        try {
            Thread.sleep(5000); // JVM start, group created
            List<Long> latencies = new ArrayList<>();
            try (var consumer = new KafkaConsumer<String, byte[]>(Map.of(
                    "bootstrap.servers", kafka.bootstrapServers(), "group.id", "bench-" + UUID.randomUUID(),
                    "auto.offset.reset", "latest"), new StringDeserializer(), new ByteArrayDeserializer())) {
                consumer.subscribe(List.of(TOPIC));
                while (consumer.assignment().isEmpty()) {
                    consumer.poll(Duration.ofMillis(100));
                }
                consumer.seekToEnd(consumer.assignment());
                consumer.poll(Duration.ofMillis(100));
                Thread feeder = new Thread(() -> feed(client, stream, rate, seconds));
                feeder.start();
                long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds + 10);
                while (System.nanoTime() < until && latencies.size() < rate * seconds) {
                    for (ConsumerRecord<String, byte[]> r : consumer.poll(Duration.ofMillis(100))) {
                        long now = System.currentTimeMillis();
                        String v = new String(r.value());
                        int i = v.indexOf("\"produced_at\":\"") + 15;
                        long produced = Instant.parse(v.substring(i, v.indexOf('"', i))).toEpochMilli();
                        latencies.add(now - produced);
                    }
                }
                feeder.join();
            }
            long[] sorted = latencies.stream().mapToLong(Long::longValue).sorted().toArray();
            System.out.printf("BENCH %s stream->Kafka->consumer latency at %d events/s for %d s: n=%d p50=%d ms p99=%d ms max=%d ms%n",
                    relay.label, rate, seconds, sorted.length, pct(sorted, 0.50), pct(sorted, 0.99),
                    sorted.length == 0 ? -1 : sorted[sorted.length - 1]);
        } finally {
            p.destroy();
            p.waitFor(30, TimeUnit.SECONDS);
        }
    }

    private static void feed(Redis client, String stream, int rate, int seconds) {
        SplittableRandom rnd = new SplittableRandom(7);
        long start = System.nanoTime();
        int sent = 0;
        int total = rate * seconds;
        while (sent < total) {
            long due = (long) ((System.nanoTime() - start) / 1e9 * rate);
            List<Request> batch = new ArrayList<>();
            while (sent < due && sent < total) {
                String id = "rate-" + sent;
                String card = card(rnd);
                batch.add(xadd(stream, id, card, TestEvents.event(id, "txn-" + id, card)));
                sent++;
            }
            if (!batch.isEmpty()) {
                try {
                    client.batch(batch).toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            }
            try {
                Thread.sleep(2);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    private static long pct(long[] sorted, double p) {
        return sorted.length == 0 ? -1 : sorted[Math.min(sorted.length - 1, (int) Math.ceil(p * sorted.length) - 1)];
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket()) {
            s.bind(new InetSocketAddress("127.0.0.1", 0));
            return s.getLocalPort();
        }
    }
}
