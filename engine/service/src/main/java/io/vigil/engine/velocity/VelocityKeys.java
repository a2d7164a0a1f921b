package io.vigil.engine.velocity;

import io.vigil.rules.velocity.Aggregate;
import io.vigil.rules.velocity.VelocityCheck;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * Redis key names of velocity windows and idempotency markers.
 *
 * <pre>
 * vel:{card_hash:abc}:CARD_AUTH:card-5min-velocity:300s:count    window of one rule (HASH bucket -> value)
 * vel:{card_hash:abc}:CARD_AUTH:card-devices:3600s:distinct:&lt;ms&gt; one HyperLogLog per bucket
 * veltx:{card_hash:abc}:CARD_AUTH:txn-7c1e                       marker of a counted transaction
 * </pre>
 *
 * The hash tag is the dimension and its value, so every key about one card (or device, ...) is in
 * one Redis Cluster slot and one script call can touch them all. Ruleset key, rule id, window and
 * aggregate are in the name so no two rules or windows ever share a counter.
 */
public final class VelocityKeys {

    /** Values that would break the hash tag or make keys huge are replaced by their SHA-256. */
    static final int MAX_PLAIN_VALUE = 128;

    private VelocityKeys() {
    }

    /** The hash tag content: {@code <dimension>:<value>}. */
    public static String tag(String dimension, String value) {
        return dimension + ':' + safeValue(value);
    }

    /** {@code <rulesetKey>:<ruleId>:<window>s:<aggregate>}: the check's id, also its marker field. */
    public static String checkId(VelocityCheck check) {
        return check.rulesetKey() + ':' + check.ruleId() + ':' + check.windowSeconds() + "s:" + aggregateName(check.aggregate());
    }

    public static String windowKey(String tag, String checkId) {
        return "vel:{" + tag + "}:" + checkId;
    }

    public static String markerKey(String tag, String rulesetKey, String transactionId) {
        return "veltx:{" + tag + "}:" + rulesetKey + ':' + transactionId;
    }

    static String aggregateName(Aggregate aggregate) {
        return switch (aggregate) {
            case COUNT -> "count";
            case SUM -> "sum";
            case DISTINCT -> "distinct";
        };
    }

    static String safeValue(String value) {
        if (value.length() <= MAX_PLAIN_VALUE && value.indexOf('{') < 0 && value.indexOf('}') < 0) {
            return value;
        }
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(value.getBytes(StandardCharsets.UTF_8));
            return "#" + HexFormat.of().formatHex(digest);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is part of every JDK", e);
        }
    }
}
