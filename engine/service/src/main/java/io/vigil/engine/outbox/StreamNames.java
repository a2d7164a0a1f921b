package io.vigil.engine.outbox;

/**
 * Names of the decision streams. The relay computes the same names from the same two settings
 * (vigil.relay.stream / vigil.relay.streams); keep the two in step.
 */
public final class StreamNames {
    private StreamNames() {
    }

    /** {@code base} for one stream, else {@code base:0 .. base:n-1}. */
    public static String shard(String base, int streams, int index) {
        return streams <= 1 ? base : base + ":" + index;
    }

    /** The shard of a key: the same card always goes to the same stream (its events stay in order). */
    public static int shardOf(String key, int streams) {
        return streams <= 1 || key == null ? 0 : Math.floorMod(key.hashCode(), streams);
    }
}
