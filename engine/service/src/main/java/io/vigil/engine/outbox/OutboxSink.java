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
import java.net.InetAddress;
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

    private final OutboxConfig config;
    private final Outbox outbox;

    OutboxSink(OutboxConfig config, MeterRegistry registry, @RedisClientName("outbox") Instance<Redis> redis) {
        this.config = config;
        if (config.enabled()) {
            StreamAppender appender = new RedisStreamAppender(redis.get(), config.stream(), config.streams(),
                    config.maxLength(), config.writeTimeout());
            outbox = new Outbox(config.queueCapacity(), config.batchSize(), config.streams(), config.linger(),
                    config.retryBackoffMin(), config.retryBackoffMax(), appender,
                    new DecisionEvents(hostName(), PersonalData.of(
                            config.personalData().hashFields().orElse(java.util.List.of()),
                            config.personalData().dropFields().orElse(java.util.List.of()),
                            config.personalData().hashKeyFile().orElse(null))), registry);
        } else {
            outbox = null;
        }
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
            outbox.stop(config.shutdownTimeout());
        }
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
