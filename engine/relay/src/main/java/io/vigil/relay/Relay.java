package io.vigil.relay;

import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.redis.datasource.RedisDataSource;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import io.vertx.mutiny.redis.client.Response;
import io.vigil.stream.DecisionStreams;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Singleton;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.jboss.logging.Logger;

/**
 * The relay: one worker thread per decision stream, one idempotent Kafka producer shared by them, and
 * a monitor thread that refreshes lag/pending gauges and what readiness reports (Redis and Kafka).
 */
@Singleton
public class Relay {

    private static final Logger LOG = Logger.getLogger(Relay.class);

    private final RelayConfig config;
    private final RedisDataSource redis;
    private final MeterRegistry registry;
    private final List<StreamRelay> workers = new ArrayList<>();
    private final List<Thread> threads = new ArrayList<>();
    private final Map<String, RelayMetrics> metrics = new HashMap<>();
    private Producer<String, byte[]> producer;
    private Admin admin;
    private Thread monitor;
    private volatile boolean stopping;
    private volatile boolean redisUp;
    private volatile boolean kafkaUp;
    private volatile String kafkaProblem = "not checked yet";
    private volatile String redisProblem = "not checked yet";
    private String consumer;

    Relay(RelayConfig config, RedisDataSource redis, MeterRegistry registry) {
        this.config = config;
        this.redis = redis;
        this.registry = registry;
    }

    void start(@Observes StartupEvent event) {
        consumer = config.consumerName().filter(s -> !s.isBlank())
                .orElseGet(() -> {
                    String host = System.getenv("HOSTNAME");
                    return host != null && !host.isBlank() ? host : "relay-" + UUID.randomUUID();
                });
        producer = new KafkaProducer<>(producerSettings(), new StringSerializer(), new ByteArraySerializer());
        admin = Admin.create(Map.of(
                AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, config.bootstrapServers(),
                AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 3000,
                AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 5000));
        for (String stream : DecisionStreams.shards(config.stream(), config.streams())) {
            RelayMetrics m = new RelayMetrics(registry, stream);
            metrics.put(stream, m);
            StreamRelay worker = new StreamRelay(stream, config, consumer, redis, producer, m);
            workers.add(worker);
            Thread t = new Thread(worker, "vigil-relay-" + stream);
            threads.add(t);
            t.start();
        }
        monitor = new Thread(this::monitor, "vigil-relay-monitor");
        monitor.setDaemon(true);
        monitor.start();
        LOG.infof("relay %s: %d stream(s) %s -> Kafka topic %s at %s (group %s)", consumer, workers.size(),
                config.stream(), config.topic(), config.bootstrapServers(), config.group());
    }

    /** Stops reading, lets every worker finish its in-flight batch, then flushes and closes the producer. */
    void stop(@Observes ShutdownEvent event) {
        stopping = true;
        workers.forEach(StreamRelay::stop);
        long deadline = System.nanoTime() + config.shutdownTimeout().toNanos();
        for (Thread t : threads) {
            try {
                t.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            if (t.isAlive()) {
                LOG.warnf("%s did not finish its batch within %s; its entries stay pending", t.getName(),
                        config.shutdownTimeout());
                t.interrupt();
            }
        }
        if (monitor != null) {
            monitor.interrupt();
        }
        if (producer != null) {
            producer.close(Duration.ofSeconds(5));
        }
        if (admin != null) {
            admin.close(Duration.ofSeconds(2));
        }
    }

    Map<String, Object> producerSettings() {
        Map<String, Object> p = new HashMap<>();
        // Throughput defaults (measured in docs/benchmarks.md, "Durability"): the records of a batch of entries
        // ride in few large requests, compressed: zstd shrinks the JSON events several-fold and more than
        // halved the broker's CPU per event (fewer bytes to copy, check and write). zstd rather than lz4
        // because every broker build has its codec (the local broker's classpath has no lz4).
        p.put(ProducerConfig.LINGER_MS_CONFIG, 10);
        p.put(ProducerConfig.BATCH_SIZE_CONFIG, 256 * 1024);
        p.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, "zstd");
        // Level 1, not zstd's 3: each batch opens a new compression context whose tables are sized by
        // the level and zeroed first; at level 3 that zeroing and the compression were about a sixth of
        // the relay's CPU, for a few percent of bytes on these JSON events (ADR 0023)
        p.put(ProducerConfig.COMPRESSION_ZSTD_LEVEL_CONFIG, 1);
        p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 10_000);
        p.put(ProducerConfig.CLIENT_ID_CONFIG, "vigil-relay");
        p.putAll(config.producer());
        // the guarantee rests on these: not overridable
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, config.bootstrapServers());
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        p.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, 5);
        return p;
    }

    private void monitor() {
        while (!stopping) {
            refresh();
            try {
                Thread.sleep(config.monitorInterval().toMillis());
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    /** Refreshes lag/pending/length gauges and the Redis/Kafka state readiness reports. */
    void refresh() {
        try {
            for (StreamRelay w : workers) {
                RelayMetrics m = metrics.get(w.stream());
                m.length.set(redis.execute("XLEN", w.stream()).toLong());
                Response groups = redis.execute("XINFO", "GROUPS", w.stream());
                for (Response g : groups) {
                    if (config.group().equals(g.get("name").toString())) {
                        Response lag = g.get("lag");
                        m.lag.set(lag == null ? -1 : lag.toLong());
                        m.pending.set(g.get("pending").toLong());
                    }
                }
            }
            redisUp = true;
            redisProblem = null;
        } catch (RuntimeException e) {
            redisUp = false;
            redisProblem = e.toString();
        }
        try {
            admin.describeTopics(List.of(config.topic())).allTopicNames().get(5, TimeUnit.SECONDS);
            kafkaUp = true;
            kafkaProblem = null;
        } catch (Exception e) {
            kafkaUp = false;
            kafkaProblem = e.getCause() != null ? e.getCause().toString() : e.toString();
        }
    }

    boolean redisUp() {
        return redisUp;
    }

    String redisProblem() {
        return redisProblem;
    }

    boolean kafkaUp() {
        return kafkaUp;
    }

    String kafkaProblem() {
        return kafkaProblem;
    }

    boolean workersRunning() {
        return !workers.isEmpty() && workers.stream().allMatch(StreamRelay::running);
    }

    String consumer() {
        return consumer;
    }
}
