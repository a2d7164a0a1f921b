package io.vigil.engine.velocity;

import io.vigil.rules.velocity.Aggregate;
import io.vigil.rules.velocity.VelocityCheck;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * Redis key and field names of velocity state and idempotency markers (docs/velocity.md, "Keys").
 *
 * <pre>
 * vel:{card_hash:abc}:CARD_AUTH              HASH: every velocity check of ruleset CARD_AUTH on that card
 *   Xq3a9LkP                                 -> a count/sum check's packed ring (head, total, slots)
 *   b81Kz0_e                                 -> a distinct check's packed state (last trim, members kept)
 *   |exp                                     -> deadline (engine ms) the key's TTL was set to
 * veld:{card_hash:abc}:CARD_AUTH:b81Kz0_e    ZSET: the distinct check's members by last-seen ms
 * veltx:{card_hash:abc}:CARD_AUTH:txn-7c1e   STRING: the answers given to that transaction (packed)
 * </pre>
 *
 * The hash tag is the dimension and its value, so every key about one card (or device, ...) is in
 * one Redis Cluster slot and one script call can touch them all. The key carries the ruleset key, the
 * field the rule id, window and aggregate, so no two rulesets, rules or windows ever share a counter.
 */
public final class VelocityKeys {

    /** Values that would break the hash tag or make keys (or fields) huge are replaced by their SHA-256. */
    static final int MAX_PLAIN_VALUE = 128;

    private VelocityKeys() {
    }

    /** The hash tag content: {@code <dimension>:<value>}. */
    public static String tag(String dimension, String value) {
        return dimension + ':' + safeValue(value);
    }

    /**
     * {@code <ruleId>:<window>s:<aggregate>}: the check's id, the prefix of its fields in the
     * velocity hash and its field in the marker.
     */
    public static String checkId(VelocityCheck check) {
        return check.ruleId() + ':' + check.windowSeconds() + "s:" + aggregateName(check.aggregate());
    }

    /**
     * The check's short id on the wire and in Redis: 8 characters (48 bits, base64url) of the SHA-256
     * of its {@link #checkId}. It names the check's fields in the velocity hash and its line in the
     * marker; script arguments and fields are then a few bytes instead of ~40, which Redis parses on
     * every call. Stable across ruleset versions (same rule, window and aggregate, same counters);
     * two checks of one value colliding is a 2^-48 event. Cached: a ruleset has few checks.
     */
    public static String wireId(VelocityCheck check) {
        String id = checkId(check);
        String wire = WIRE_IDS.get(id);
        if (wire == null) {
            wire = digest(id);
            if (WIRE_IDS.size() < 100_000) {
                WIRE_IDS.put(id, wire);
            }
        }
        return wire;
    }

    private static final java.util.concurrent.ConcurrentHashMap<String, String> WIRE_IDS =
            new java.util.concurrent.ConcurrentHashMap<>();

    static String digest(String checkId) {
        try {
            byte[] d = MessageDigest.getInstance("SHA-256").digest(checkId.getBytes(StandardCharsets.UTF_8));
            return java.util.Base64.getUrlEncoder().withoutPadding().encodeToString(java.util.Arrays.copyOf(d, 6));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is part of every JDK", e);
        }
    }

    /** The HASH holding every check of {@code rulesetKey} on the dimension value of {@code tag}. */
    public static String velocityKey(String tag, String rulesetKey) {
        return "vel:{" + tag + "}:" + rulesetKey;
    }

    /** The field of a count or sum bucket starting at {@code bucketStartMillis}. */
    public static String bucketField(String checkId, long bucketStartMillis) {
        return checkId + '|' + bucketStartMillis;
    }

    /** The field of a distinct check's member (holding when it was last seen). */
    public static String memberField(String checkId, String member) {
        return checkId + '|' + safeValue(member);
    }

    /** The sorted set of a distinct check's members, scored by when each was last seen (epoch ms). */
    public static String distinctKey(String tag, String rulesetKey, String checkId) {
        return "veld:{" + tag + "}:" + rulesetKey + ':' + checkId;
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
