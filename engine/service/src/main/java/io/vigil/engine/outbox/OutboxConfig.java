package io.vigil.engine.outbox;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import io.vigil.stream.DecisionStreams;
import java.time.Duration;

/** The decision outbox ({@code vigil.outbox.*}); the operator sets the capacity from FraudEngine queueCapacity. */
@ConfigMapping(prefix = "vigil.outbox")
public interface OutboxConfig {

    /** Off: decisions are not written anywhere (tests without Redis). */
    @WithDefault("true")
    boolean enabled();

    /** Decisions held in memory while the writer catches up; beyond it they are dropped and counted. */
    @WithDefault("10000")
    int queueCapacity();

    /** Most decisions written in one pipelined round trip. */
    @WithDefault("256")
    int batchSize();

    /**
     * How long the writer waits for a short batch to fill before writing it. Fewer, fuller pipelined
     * round trips at moderate rates (per-round-trip cost dominates the per-decision cost in the engine
     * and in Redis); adds at most this much to the decision → stream delay. 0 writes whatever is queued.
     */
    @WithDefault("5ms")
    Duration linger();

    /** Stream name; with {@code streams > 1} the shards are {@code <stream>:0 .. <stream>:N-1}. */
    @WithDefault(DecisionStreams.DEFAULT_STREAM)
    String stream();

    /** Number of streams decisions are sharded over (by card_hash), so several relays and cluster nodes share the load. */
    @WithDefault("1")
    int streams();

    /**
     * Approximate bound of each stream ({@code XADD MAXLEN ~}). Entries the relay has not read yet are
     * trimmed too once a stream is this long: size it for the longest relay outage (docs/durability.md).
     */
    @WithDefault("1000000")
    long maxLength();

    /** One pipelined XADD round trip fails after this long (and is retried). */
    @WithDefault("2s")
    Duration writeTimeout();

    /** First wait after a failed write; doubles up to {@link #retryBackoffMax()}. */
    @WithDefault("50ms")
    Duration retryBackoffMin();

    @WithDefault("2s")
    Duration retryBackoffMax();

    /** On shutdown the writer keeps draining the queue at most this long. */
    @WithDefault("5s")
    Duration shutdownTimeout();

    /** Personal data kept out of the event's transaction (ADR 0013); nothing by default. */
    PersonalDataFields personalData();

    interface PersonalDataFields {
        /** Fields replaced by {@code "hmac-sha256:<hex>"} of their value (e.g. email, phone, ip_address, device_id). */
        java.util.Optional<java.util.List<String>> hashFields();

        /** Fields removed. */
        java.util.Optional<java.util.List<String>> dropFields();

        /** The hashing key (at least 16 bytes; a mounted Secret), required when hash-fields is set. */
        java.util.Optional<java.nio.file.Path> hashKeyFile();
    }
}
