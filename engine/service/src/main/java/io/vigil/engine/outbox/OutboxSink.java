package io.vigil.engine.outbox;

import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.redis.client.RedisClientName;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import io.vertx.redis.client.Redis;
import io.vigil.engine.decision.DecisionRecord;
import io.vigil.engine.decision.DecisionSink;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Singleton;
import io.micrometer.prometheus.PrometheusConfig;
import io.micrometer.prometheus.PrometheusMeterRegistry;
import io.vertx.core.Future;
import io.vertx.redis.client.Command;
import io.vertx.redis.client.Response;
import io.vertx.redis.client.Request;
import io.vigil.stream.DecisionStreams;
import java.net.InetAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.jboss.logging.Logger;

/**
 * The engine's {@link DecisionSink}: the durable outbox (engine contract §6). Replaces the no-op
 * default sink. Uses its own named Redis client ({@code quarkus.redis.outbox.*}) so the streams can
 * live on a Redis with persistence and no eviction, apart from the velocity counters.
 * {@code vigil.outbox.enabled=false} turns it into a no-op that touches no Redis.
 */
@Singleton
public class OutboxSink implements DecisionSink {

    private static final Logger LOG = Logger.getLogger(OutboxSink.class);

    /** Suffix of the warm-up's stream: the relay reads only the configured stream's shards. */
    public static final String WARM_UP_STREAM = ":warm-up";

    private final OutboxConfig config;
    private final Outbox outbox;
    /**
     * The warm-up's outbox (docs/adr/0020-warm-up-depth.md): the same classes, event encoder and Redis
     * client as the real one, its own queue, writer and stream ({@code <stream>:warm-up}), metrics in a
     * registry nobody scrapes. Null when the outbox is disabled.
     */
    private final Outbox warmUpOutbox;
    private final Redis redis;
    /** Real and warm-up decisions' places: one class, so the decision path compiles one call for both (docs/adr/0029). */
    private final DecisionSink trafficSink;
    private final DecisionSink warmUpSink;

    /** One outbox as a sink. */
    private static final class Place implements DecisionSink {
        private final Outbox outbox;

        Place(Outbox outbox) {
            this.outbox = outbox;
        }

        @Override
        public void offer(DecisionRecord record) {
            outbox.offer(record);
        }

        @Override
        public boolean reserve() {
            return outbox.reserve();
        }

        @Override
        public void offerReserved(DecisionRecord record) {
            outbox.offerReserved(record);
        }
    }

    OutboxSink(OutboxConfig config, MeterRegistry registry, @RedisClientName("outbox") Instance<Redis> redis) {
        this.config = config;
        if (config.enabled()) {
            this.redis = redis.get();
            // an encoder per writer thread: it reuses its buffer and its encoded parts (DecisionEvents)
            outbox = outbox(config.stream(), events(), registry);
            warmUpOutbox = outbox(warmUpStream(), events(), new PrometheusMeterRegistry(PrometheusConfig.DEFAULT));
            trafficSink = new Place(outbox);
            warmUpSink = new Place(warmUpOutbox);
        } else {
            this.redis = null;
            outbox = null;
            warmUpOutbox = null;
            trafficSink = NOWHERE;
            warmUpSink = NOWHERE;
        }
    }

    private DecisionEvents events() {
        return new DecisionEvents(hostName(), PersonalData.of(
                config.personalData().hashFields().orElse(java.util.List.of()),
                config.personalData().dropFields().orElse(java.util.List.of()),
                config.personalData().hashKeyFile().orElse(null)));
    }

    private Outbox outbox(String stream, DecisionEvents events, MeterRegistry registry) {
        StreamAppender appender = new RedisStreamAppender(redis, stream, config.streams(), config.maxLength(),
                config.writeTimeout());
        return new Outbox(config.queueCapacity(), config.batchSize(), config.streams(), config.linger(),
                config.retryBackoffMin(), config.retryBackoffMax(), appender, events, registry);
    }

    /** The base name of the warm-up's stream(s). */
    public String warmUpStream() {
        return config.stream() + WARM_UP_STREAM;
    }

    void start(@Observes StartupEvent event) {
        if (outbox != null) {
            outbox.start();
            LOG.infof("decision outbox: queue %d, batches of up to %d (linger %d ms) into %d stream(s) %s (MAXLEN ~ %d)",
                    config.queueCapacity(), config.batchSize(), config.linger().toMillis(), config.streams(),
                    config.stream(), config.maxLength());
        } else {
            LOG.info("decision outbox disabled (vigil.outbox.enabled=false): decisions are not written to Redis");
        }
    }

    void stop(@Observes ShutdownEvent event) {
        if (outbox != null) {
            warmUpOutbox.stop(Duration.ZERO);
            outbox.stop(config.shutdownTimeout());
        }
    }

    @Override
    public DecisionSink traffic() {
        return trafficSink;
    }

    @Override
    public DecisionSink warmUp() {
        if (warmUpOutbox != null) {
            warmUpOutbox.start();
        }
        return warmUpSink;
    }

    /**
     * Stops the warm-up's writer once its queue is written (at most the shutdown timeout), then deletes
     * the warm-up stream(s). A failed delete is logged: the stream is capped (MAXLEN) and nothing reads it.
     */
    @Override
    public long endWarmUp() {
        if (warmUpOutbox == null) {
            return 0;
        }
        warmUpOutbox.stop(config.shutdownTimeout());
        // one DEL per stream: in a cluster the shards are on different slots
        List<Future<Response>> deleted = new ArrayList<>();
        for (String stream : DecisionStreams.shards(warmUpStream(), config.streams())) {
            deleted.add(redis.send(Request.cmd(Command.DEL).arg(stream)));
        }
        try {
            Future.all(deleted).toCompletionStage().toCompletableFuture()
                    .get(config.writeTimeout().toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException | TimeoutException e) {
            LOG.warnf("warm-up: its stream %s was not deleted (%s); nothing reads it", warmUpStream(), e.toString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return warmUpOutbox.xaddOk();
    }

    @Override
    public void offer(DecisionRecord record) {
        if (outbox != null) {
            outbox.offer(record);
        }
    }

    @Override
    public boolean reserve() {
        return outbox == null || outbox.reserve();
    }

    @Override
    public void offerReserved(DecisionRecord record) {
        if (outbox != null) {
            outbox.offerReserved(record);
        }
    }

    /** The running outbox; null when disabled. For tests and the management API. */
    public Outbox outbox() {
        return outbox;
    }

    private static String hostName() {
        String env = System.getenv("HOSTNAME");
        if (env != null && !env.isBlank()) {
            return env;
        }
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (Exception e) {
            return "unknown";
        }
    }
}
