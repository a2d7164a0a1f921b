package io.vigil.relay;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import io.vigil.stream.DecisionStreams;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;

/** The relay's settings ({@code vigil.relay.*}). Extra producer settings: {@code vigil.relay.producer.<kafka key>=value}. */
@ConfigMapping(prefix = "vigil.relay")
public interface RelayConfig {

    /**
     * Base stream name; with {@code streams > 1} the shards are {@code <stream>:0 .. <stream>:N-1}
     * ({@link DecisionStreams}, as the engine writes them).
     */
    @WithDefault(DecisionStreams.DEFAULT_STREAM)
    String stream();

    @WithDefault("1")
    int streams();

    /** Consumer group on every stream. */
    @WithDefault("vigil-relay")
    String group();

    /**
     * This instance's consumer name; default $HOSTNAME (the pod name). A restarted instance with the
     * same name resumes its own pending entries first; entries of vanished consumers are reclaimed.
     */
    Optional<String> consumerName();

    /** Kafka topic of the decision events. */
    @WithDefault("fraud.card.decisions.v1")
    String topic();

    @WithDefault("127.0.0.1:19092")
    String bootstrapServers();

    /**
     * Whether an entry is deleted from the stream (XDEL) right after its XACK. On (default), the stream
     * holds only what is not relayed yet, so {@code MAXLEN} bounds the backlog of an outage and Redis
     * does not carry up to {@code max-length} already-published events (about 3 KB each: 3 GB at the
     * default 1,000,000), which every AOF rewrite forks and copies (ADR 0016). Off only if another
     * consumer group reads the same stream: the relay's group must then not decide what others keep.
     */
    @WithDefault("true")
    boolean deleteRelayed();

    /**
     * Most entries per Kafka batch: gathered from several reads of at most {@code entries-per-command}
     * each, sent together so the producer fills large requests (broker CPU per event), then XACKed once
     * the broker answered all of them.
     */
    @WithDefault("1000")
    int batchSize();

    /**
     * Most entries one Redis command reads, acknowledges, deletes or claims (XREADGROUP and XAUTOCLAIM
     * COUNT, ids per XACK, XDEL and XCLAIM). Redis runs one command at a time, so this bounds how long
     * the relay holds it: a 1,000-entry XREADGROUP of ~2.4 KB events took 7 ms, longer than the
     * engine's deadline, and every velocity call waited behind it (ADR 0022).
     */
    @WithDefault("100")
    int entriesPerCommand();

    /**
     * Batches sent to Kafka and not yet acknowledged, per stream: the worker reads and sends the next
     * batch while the broker acknowledges the previous ones (XACK still only after each entry's ack).
     */
    @WithDefault("4")
    int batchesInFlight();

    /**
     * Extra Kafka producer settings ({@code vigil.relay.producer.linger.ms=20}); acks, idempotence and
     * max.in.flight.requests.per.connection are fixed by the relay and not overridable.
     */
    Map<String, String> producer();

    /**
     * After a read that did not fill a batch, the worker waits until this long has passed since that
     * read before reading again, so batches fill at moderate rates too: one XREADGROUP, one Kafka
     * request and one XACK per linger instead of per few entries (relay and broker CPU per event).
     * It bounds the extra time an event waits before it is sent to Kafka. 0 reads again at once.
     */
    @WithDefault("50ms")
    Duration linger();

    /** How long one XREADGROUP waits for new entries (the worker's own thread, never an event loop). */
    @WithDefault("1s")
    Duration block();

    /** Pending entries idle longer than this (their consumer crashed or hangs) are reclaimed with XAUTOCLAIM. */
    @WithDefault("30s")
    Duration claimMinIdle();

    /** How often each worker looks for entries to reclaim. */
    @WithDefault("5s")
    Duration reclaimInterval();

    /** An entry delivered more often than this goes to the dead-letter stream instead of Kafka. */
    @WithDefault("5")
    int maxDeliveries();

    /**
     * How each entry's event is checked before it is published (not a JSON object with an
     * {@code event_id}: dead-lettered as {@code unparseable}). {@code scan} (default): one pass over the
     * bytes; {@code jackson}: Jackson's streaming parser, the check before ADR 0030. Both refuse the
     * same events; the setting exists to compare their CPU on one machine.
     */
    @WithDefault("scan")
    EventCheck eventCheck();

    /** Dead-letter stream of stream S: {@code S<suffix>}. */
    @WithDefault(":dead-letter")
    String deadLetterSuffix();

    /** Approximate bound of each dead-letter stream. */
    @WithDefault("100000")
    long deadLetterMaxLength();

    /** While waiting for Kafka, the worker keeps its entries claimed (XCLAIM JUSTID) this often, so others do not reclaim them. */
    @WithDefault("10s")
    Duration heartbeatInterval();

    /** First wait after Redis or Kafka failed; doubles up to 5 s. */
    @WithDefault("100ms")
    Duration retryBackoff();

    /** How often lag, pending and readiness are refreshed. */
    @WithDefault("5s")
    Duration monitorInterval();

    /** On shutdown, workers finish their in-flight batch for at most this long. */
    @WithDefault("20s")
    Duration shutdownTimeout();
}
