package io.vigil.relay;

import io.vertx.core.Vertx;
import io.vertx.redis.client.Command;
import io.vertx.redis.client.Redis;
import io.vertx.redis.client.Request;
import io.vigil.testing.kafka.KafkaBroker;
import io.vigil.testing.redis.RedisServer;
import java.io.IOException;
import java.net.HttpURLConnection;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * Benchmark, not a test (asserts nothing; skipped unless -Dvigil.bench=true): the packaged relay
 * draining a backlog into Kafka (events/s), then stream → Kafka latency at a fixed rate, measured
 * by a consumer against the event's produced_at. Numbers go to docs/benchmarks.md ("Durability").
 *
 * <pre>./mvnw -pl engine/relay -am verify -Dvigil.bench=true -Dit.test=RelayBenchmarkIT -Dtest=none -Dsurefire.failIfNoSpecifiedTests=false</pre>
 */
@EnabledIfSystemProperty(named = "vigil.bench", matches = "true")
class RelayBenchmarkIT {

    static final String STREAM = "bench:decisions";
    static final String TOPIC = "decisions.bench";

    @Test
    void relay_throughput_and_latency() throws Exception {
        int backlog = Integer.getInteger("vigil.bench.backlog", 100_000);
        int rate = Integer.getInteger("vigil.bench.rate", 2_000);
        int seconds = Integer.getInteger("vigil.bench.seconds", 20);
        try (RedisServer redis = RedisServer.builder().appendOnly(true).start();
             KafkaBroker kafka = KafkaBroker.start()) {
            kafka.createTopic(TOPIC, 6);
            Vertx vertx = Vertx.vertx();
            Redis client = Redis.createClient(vertx, redis.uri());
            long t0 = System.nanoTime();
            append(client, "backlog", 0, backlog);
            double appendSeconds = (System.nanoTime() - t0) / 1e9;
            System.out.printf("BENCH appended %d events in %.1f s (%.0f/s, pipelined XADD batches of 1000)%n",
                    backlog, appendSeconds, backlog / appendSeconds);

            int port = freePort();
            Process relay = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "-Xmx512m", "-Dquarkus.redis.hosts=" + redis.uri(),
                    "-Dvigil.relay.bootstrap-servers=" + kafka.bootstrapServers(),
                    "-Dvigil.relay.topic=" + TOPIC, "-Dvigil.relay.stream=" + STREAM,
                    "-Dvigil.relay.consumer-name=bench", "-Dquarkus.management.port=" + port,
                    "-jar", System.getProperty("relay.jar", "target/quarkus-app/quarkus-run.jar"))
                    .redirectErrorStream(true).redirectOutput(Path.of("target", "relay-bench.log").toFile()).start();
            try {
                // throughput: from the first published sample to the whole backlog (JVM start excluded)
                long start = System.nanoTime();
                long first = 0;
                double publishedAtFirst = 0;
                double published;
                do {
                    Thread.sleep(50);
                    published = metric(port, "vigil_relay_published_total");
                    if (first == 0 && published > 0) {
                        first = System.nanoTime();
                        publishedAtFirst = published;
                    }
                } while (published < backlog && System.nanoTime() - start < TimeUnit.MINUTES.toNanos(5));
                double s = (System.nanoTime() - first) / 1e9;
                System.out.printf("BENCH relay throughput draining a backlog: %.0f events/s (%d events in %.1f s)%n",
                        (published - publishedAtFirst) / s, (long) (published - publishedAtFirst), s);

                // latency at a fixed rate: consumer time - produced_at (stream append time)
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
                    Thread feeder = new Thread(() -> feed(client, rate, seconds));
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
                System.out.printf("BENCH stream->Kafka->consumer latency at %d events/s for %d s: n=%d p50=%d ms p99=%d ms max=%d ms%n",
                        rate, seconds, sorted.length, pct(sorted, 0.50), pct(sorted, 0.99), sorted[sorted.length - 1]);
            } finally {
                relay.destroy();
                relay.waitFor(30, TimeUnit.SECONDS);
                client.close();
                vertx.close();
            }
        }
    }

    private static void feed(Redis client, int rate, int seconds) {
        long start = System.nanoTime();
        int sent = 0;
        int total = rate * seconds;
        while (sent < total) {
            long due = (long) ((System.nanoTime() - start) / 1e9 * rate);
            List<Request> batch = new ArrayList<>();
            while (sent < due && sent < total) {
                String id = "rate-" + sent;
                batch.add(xadd(id, sent));
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

    private static Request xadd(String id, int i) {
        return Request.cmd(Command.XADD).arg(STREAM).arg("MAXLEN").arg("~").arg(1_000_000).arg("*")
                .arg("event_id").arg(id).arg("key").arg(TestEvents.cardOf(i))
                .arg("event").arg(TestEvents.event(id, "txn-" + id, TestEvents.cardOf(i)));
    }

    private static void append(Redis client, String prefix, int from, int n) throws Exception {
        List<Request> batch = new ArrayList<>();
        for (int i = from; i < from + n; i++) {
            batch.add(xadd(prefix + "-" + i, i));
            if (batch.size() == 1000) {
                client.batch(batch).toCompletionStage().toCompletableFuture().get(60, TimeUnit.SECONDS);
                batch = new ArrayList<>();
            }
        }
        if (!batch.isEmpty()) {
            client.batch(batch).toCompletionStage().toCompletableFuture().get(60, TimeUnit.SECONDS);
        }
    }

    private static long pct(long[] sorted, double p) {
        return sorted.length == 0 ? -1 : sorted[Math.min(sorted.length - 1, (int) Math.ceil(p * sorted.length) - 1)];
    }

    private static double metric(int port, String name) {
        try {
            HttpURLConnection c = (HttpURLConnection) URI.create("http://127.0.0.1:" + port + "/q/metrics").toURL().openConnection();
            c.setConnectTimeout(500);
            String body;
            try (var in = c.getInputStream()) {
                body = new String(in.readAllBytes());
            }
            return Arrays.stream(body.split("\n")).filter(l -> l.startsWith(name + "{") || l.startsWith(name + " "))
                    .mapToDouble(l -> Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1))).sum();
        } catch (IOException e) {
            return 0;
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket()) {
            s.bind(new InetSocketAddress("127.0.0.1", 0));
            return s.getLocalPort();
        }
    }
}
