package io.vigil.stream;

/**
 * The decision streams as the engine's outbox writes them and the relay reads them: the one place that
 * says what the two deployables share in Redis. Each entry is
 * {@code XADD <shard> * event_id <decision id> key <Kafka key> event <JSON>}; the relay publishes
 * {@code event} to Kafka byte for byte under {@code key}, and names the entry by {@code event_id} when it
 * dead-letters it (the dead-letter stream is the relay's own, not part of this contract).
 *
 * <p>Sharding: with {@code streams > 1} the engine spreads entries over {@code <stream>:0 .. <stream>:N-1}
 * by the key, so one card's events stay in one stream, in order; the relay must be configured with the
 * same stream name and count (vigil.outbox.stream/streams, vigil.relay.stream/streams).
 */
public final class DecisionStreams {

    /** Default base name of the streams (vigil.outbox.stream, vigil.relay.stream). */
    public static final String DEFAULT_STREAM = "vigil:decisions";

    /** The decision id, the event's {@code event_id}: duplicates downstream carry the same one. */
    public static final String FIELD_EVENT_ID = "event_id";

    /** The Kafka record key (see {@link #key}); also what picks the shard. */
    public static final String FIELD_KEY = "key";

    /** The event's UTF-8 JSON (schema decision-event-v1), published as stored: never decoded and re-encoded. */
    public static final String FIELD_EVENT = "event";

    private DecisionStreams() {
    }

    /** Name of shard {@code index}: {@code base} for one stream, else {@code base:0 .. base:n-1}. */
    public static String shard(String base, int streams, int index) {
        return streams <= 1 ? base : base + ":" + index;
    }

    /** Names of every shard, in index order (at least one). */
    public static String[] shards(String base, int streams) {
        String[] names = new String[Math.max(1, streams)];
        for (int i = 0; i < names.length; i++) {
            names[i] = shard(base, streams, i);
        }
        return names;
    }

    /** The shard of a key: the same card always goes to the same stream (its events stay in order). */
    public static int shardOf(String key, int streams) {
        return streams <= 1 || key == null ? 0 : Math.floorMod(key.hashCode(), streams);
    }

    /**
     * The Kafka key of a decision: its card_hash, so one card's events share a partition, else its
     * transaction_id (a transaction without a card).
     */
    public static String key(String cardHash, String transactionId) {
        return cardHash != null ? cardHash : transactionId;
    }
}
