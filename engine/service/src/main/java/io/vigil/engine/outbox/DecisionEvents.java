package io.vigil.engine.outbox;

import io.vigil.engine.decision.DecisionRecord;
import io.vigil.engine.http.JsonWriter;
import io.vigil.rules.eval.EngineErrorCode;
import io.vigil.rules.eval.MatchedRule;
import io.vigil.rules.eval.VelocityResult;
import io.vigil.rules.txn.Field;
import io.vigil.rules.txn.Transaction;
import io.vigil.rules.velocity.Aggregate;
import io.vigil.stream.DecisionStreams;
import java.nio.charset.StandardCharsets;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Serializes a {@link DecisionRecord} into the decision event, version 1
 * ({@code schemas/decision-event-v1.json}, documented in docs/durability.md). Runs on the outbox
 * writer thread, never on the request thread. One instance per thread: it reuses its buffer.
 *
 * <p>Written by hand into one reused buffer ({@link JsonWriter}) rather than through a Jackson
 * generator: the event is a fixed set of keys, and the generator's per-event setup, its re-encoding
 * of the embedded request and {@link java.time.Instant#toString()} were most of the outbox's CPU
 * (docs/benchmarks.md, "Engine CPU per request"). The bytes are the ones Jackson wrote: same key
 * order, numbers spelled the same way (doubles as {@link Double#toString(double)}), timestamps as
 * {@code Instant.toString()}. What depends only on a rule (a matched rule's object, a velocity
 * result's text around the card's value) is encoded once per rule ({@link EventParts}), and the
 * keys once per class.
 *
 * <p>The transaction is embedded from the request bytes as sent (fields the engine does not know
 * included), so it is neither parsed nor serialized a second time.
 */
public final class DecisionEvents {

    public static final int EVENT_VERSION = 1;
    // The event's keys, encoded once (JsonWriter.key(byte[])).
    private static final byte[] K_EVENT_ID = JsonWriter.keyBytes("event_id");
    private static final byte[] K_EVENT_VERSION = JsonWriter.keyBytes("event_version");
    private static final byte[] K_TRANSACTION_ID = JsonWriter.keyBytes("transaction_id");
    private static final byte[] K_CARD_HASH = JsonWriter.keyBytes("card_hash");
    private static final byte[] K_OCCURRED_AT = JsonWriter.keyBytes("occurred_at");
    private static final byte[] K_RECEIVED_AT = JsonWriter.keyBytes("received_at");
    private static final byte[] K_PRODUCED_AT = JsonWriter.keyBytes("produced_at");
    private static final byte[] K_EVALUATION_TYPE = JsonWriter.keyBytes("evaluation_type");
    private static final byte[] K_TRANSACTION = JsonWriter.keyBytes("transaction");
    private static final byte[] K_DECISION = JsonWriter.keyBytes("decision");
    private static final byte[] K_ENGINE_MODE = JsonWriter.keyBytes("engine_mode");
    private static final byte[] K_ENGINE_ERROR_CODE = JsonWriter.keyBytes("engine_error_code");
    private static final byte[] K_RULESET_KEY = JsonWriter.keyBytes("ruleset_key");
    private static final byte[] K_RULESET_VERSION = JsonWriter.keyBytes("ruleset_version");
    private static final byte[] K_RULE_ID = JsonWriter.keyBytes("rule_id");
    private static final byte[] K_REASON_CODE = JsonWriter.keyBytes("reason_code");
    private static final byte[] K_MATCHED_RULES = JsonWriter.keyBytes("matched_rules");
    private static final byte[] K_RULE_VERSION = JsonWriter.keyBytes("rule_version");
    private static final byte[] K_PRIORITY = JsonWriter.keyBytes("priority");
    private static final byte[] K_SHADOW = JsonWriter.keyBytes("shadow");
    private static final byte[] K_VELOCITY_RESULTS = JsonWriter.keyBytes("velocity_results");
    private static final byte[] K_DIMENSION = JsonWriter.keyBytes("dimension");
    private static final byte[] K_DIMENSION_VALUE = JsonWriter.keyBytes("dimension_value");
    private static final byte[] K_WINDOW_SECONDS = JsonWriter.keyBytes("window_seconds");
    private static final byte[] K_AGGREGATE = JsonWriter.keyBytes("aggregate");
    private static final byte[] K_VALUE = JsonWriter.keyBytes("value");
    private static final byte[] K_THRESHOLD = JsonWriter.keyBytes("threshold");
    private static final byte[] K_EXCEEDED = JsonWriter.keyBytes("exceeded");
    private static final byte[] K_AVAILABLE = JsonWriter.keyBytes("available");
    private static final byte[] K_PROCESSING_TIME_US = JsonWriter.keyBytes("processing_time_us");
    private static final byte[] K_TIMINGS_US = JsonWriter.keyBytes("timings_us");
    private static final byte[] K_PARSE = JsonWriter.keyBytes("parse");
    private static final byte[] K_EVALUATION = JsonWriter.keyBytes("evaluation");
    private static final byte[] K_VELOCITY = JsonWriter.keyBytes("velocity");
    private static final byte[] K_ENGINE_INSTANCE = JsonWriter.keyBytes("engine_instance");
    private static final String[] AGGREGATES = new String[Aggregate.values().length];

    static {
        for (Aggregate a : Aggregate.values()) {
            AGGREGATES[a.ordinal()] = a.name().toLowerCase(Locale.ROOT);
        }
    }

    private final JsonWriter w = new JsonWriter(4096);
    /** The parts of the event that are the same for every decision of a rule, encoded once. */
    private final EventParts parts = new EventParts();
    private final String engineInstance;
    private final PersonalData personalData;
    /** {@code yyyy-MM-ddTHH:mm:ss} of {@link #cachedSecond}: consecutive events mostly share their second. */
    private final byte[] secondText = new byte[19];
    private long cachedSecond = Long.MIN_VALUE;

    public DecisionEvents(String engineInstance) {
        this(engineInstance, null);
    }

    /** With personal data hashed or dropped from the embedded transaction (null: embedded as sent). */
    public DecisionEvents(String engineInstance, PersonalData personalData) {
        this.engineInstance = engineInstance;
        this.personalData = personalData;
    }

    /** The Kafka key of a record's event: card_hash, or transaction_id when the transaction has none. */
    public static String key(DecisionRecord r) {
        return DecisionStreams.key(r.transaction().text(Field.CARD_HASH), r.transactionId());
    }

    /** The event's UTF-8 JSON, a copy of this instance's buffer. */
    public byte[] toJson(DecisionRecord r) {
        return write(r).toBytes();
    }

    /** Writes the event into this instance's buffer and returns it; valid until the next call. */
    JsonWriter write(DecisionRecord r) {
        Transaction txn = r.transaction();
        w.reset().raw('{');
        w.key(K_EVENT_ID).string(r.decisionId());
        w.key(K_EVENT_VERSION).number(EVENT_VERSION);
        w.key(K_TRANSACTION_ID).string(r.transactionId());
        w.key(K_CARD_HASH).string(txn.text(Field.CARD_HASH));
        w.key(K_OCCURRED_AT).string(txn.text(Field.TIMESTAMP));
        w.key(K_RECEIVED_AT);
        instant(r.receivedAtEpochMillis());
        w.key(K_PRODUCED_AT);
        instant(r.receivedAtEpochMillis() + r.processingNanos() / 1_000_000L);
        w.key(K_EVALUATION_TYPE).name(r.type());
        w.key(K_TRANSACTION);
        writeTransaction(txn);
        w.key(K_DECISION).name(r.decision());
        w.key(K_ENGINE_MODE).name(r.mode());
        EngineErrorCode code = r.errorCode();
        w.key(K_ENGINE_ERROR_CODE).name(code);
        w.key(K_RULESET_KEY).string(r.rulesetKey());
        w.key(K_RULESET_VERSION);
        if (r.rulesetVersion() > 0) {
            w.number(r.rulesetVersion());
        } else {
            w.nul();
        }
        w.key(K_RULE_ID).string(r.ruleId());
        w.key(K_REASON_CODE).string(r.reasonCode());
        w.key(K_MATCHED_RULES).raw('[');
        List<MatchedRule> matched = r.matchedRules();
        for (int i = 0; i < matched.size(); i++) {
            if (i > 0) {
                w.comma();
            }
            w.raw(parts.matchedRule(matched.get(i)));
        }
        w.raw(']');
        w.key(K_VELOCITY_RESULTS).raw('[');
        List<VelocityResult> velocity = r.velocityResults();
        for (int i = 0; i < velocity.size(); i++) {
            if (i > 0) {
                w.comma();
            }
            velocityResult(velocity.get(i));
        }
        w.raw(']');
        w.key(K_PROCESSING_TIME_US).number(r.processingNanos() / 1000L);
        w.key(K_TIMINGS_US).raw('{');
        w.key(K_PARSE).number(r.parseNanos() / 1000L);
        w.key(K_EVALUATION).number(r.evaluationNanos() / 1000L);
        w.key(K_VELOCITY).number(r.velocityNanos() / 1000L);
        w.raw('}');
        w.key(K_ENGINE_INSTANCE).string(engineInstance);
        return w.raw('}');
    }

    /** One velocity result: its check's parts encoded once ({@link EventParts}), the card's value and the count written. */
    private void velocityResult(VelocityResult v) {
        EventParts.Check check = parts.check(v);
        w.raw(check.head()).string(v.dimensionValue()).raw(check.middle());
        if (Double.isNaN(v.value()) || !v.available()) {
            w.nul();
        } else {
            w.decimal(v.value());
        }
        w.raw(check.tail(v.exceeded(), v.available()));
    }

    /** A matched rule's object, as {@link EventParts} encodes it once per rule. */
    static void writeMatchedRule(JsonWriter w, MatchedRule m) {
        w.raw('{');
        w.key(K_RULE_ID).string(m.ruleId());
        w.key(K_RULE_VERSION).number(m.ruleVersion());
        w.key(K_PRIORITY).number(m.priority());
        w.key(K_DECISION).name(m.decision());
        w.key(K_REASON_CODE).string(m.reasonCode());
        w.key(K_SHADOW).bool(m.shadow());
        w.raw('}');
    }

    /** What of a velocity result comes before its dimension value: from the check (its rule). */
    static void writeCheckHead(JsonWriter w, VelocityResult v) {
        w.raw('{');
        w.key(K_RULE_ID).string(v.ruleId());
        w.key(K_DIMENSION).string(v.dimension());
        w.key(K_DIMENSION_VALUE);
    }

    /** Between the dimension value and the value: from the check. */
    static void writeCheckMiddle(JsonWriter w, VelocityResult v) {
        w.key(K_WINDOW_SECONDS).number(v.windowSeconds());
        w.key(K_AGGREGATE).string(v.aggregate() == null ? null : AGGREGATES[v.aggregate().ordinal()]);
        w.key(K_VALUE);
    }

    /** After the value: the check's threshold, then whether it was exceeded and available. */
    static void writeCheckTail(JsonWriter w, double threshold, boolean exceeded, boolean available) {
        w.key(K_THRESHOLD).decimal(threshold);
        w.key(K_EXCEEDED).bool(exceeded);
        w.key(K_AVAILABLE).bool(available);
        w.raw('}');
    }

    /**
     * {@link java.time.Instant#toString()} of a millisecond instant, quoted: {@code 2026-03-01T10:00:00Z},
     * or with {@code .SSS} when the millisecond is not 0. Years outside 0..9999 (never a real clock) go
     * through {@code Instant} itself.
     */
    private void instant(long epochMillis) {
        long second = Math.floorDiv(epochMillis, 1000L);
        int millis = (int) Math.floorMod(epochMillis, 1000L);
        if (second != cachedSecond) {
            LocalDateTime t = LocalDateTime.ofEpochSecond(second, 0, ZoneOffset.UTC);
            if (t.getYear() < 0 || t.getYear() > 9999) {
                w.string(java.time.Instant.ofEpochMilli(epochMillis).toString());
                return;
            }
            digits(0, t.getYear(), 4);
            secondText[4] = '-';
            digits(5, t.getMonthValue(), 2);
            secondText[7] = '-';
            digits(8, t.getDayOfMonth(), 2);
            secondText[10] = 'T';
            digits(11, t.getHour(), 2);
            secondText[13] = ':';
            digits(14, t.getMinute(), 2);
            secondText[16] = ':';
            digits(17, t.getSecond(), 2);
            cachedSecond = second;
        }
        w.raw('"').raw(secondText);
        if (millis != 0) {
            w.raw('.').raw((char) ('0' + millis / 100)).raw((char) ('0' + millis / 10 % 10)).raw((char) ('0' + millis % 10));
        }
        w.raw('Z').raw('"');
    }

    private void digits(int at, int value, int count) {
        for (int i = at + count - 1; i >= at; i--) {
            secondText[i] = (byte) ('0' + value % 10);
            value /= 10;
        }
    }

    /**
     * The request body as sent. The reader accepted it as one JSON object, so it is embedded raw
     * (surrounding whitespace trimmed); a body with non-ASCII bytes is decoded and re-encoded, so the
     * event is valid UTF-8 whatever the caller sent. A record built without raw bytes (tests, replay)
     * is written from the parsed fields instead.
     */
    private void writeTransaction(Transaction txn) {
        byte[] raw = txn.raw();
        if (raw != null && raw.length > 0 && personalData != null) {
            w.raw(personalData.redact(raw));
            return;
        }
        if (raw != null && raw.length > 0) {
            int from = 0;
            int to = raw.length;
            boolean ascii = true;
            for (byte b : raw) {
                if (b < 0) {
                    ascii = false;
                    break;
                }
            }
            if (ascii) {
                while (from < to && isJsonWhitespace(raw[from])) {
                    from++;
                }
                while (to > from && isJsonWhitespace(raw[to - 1])) {
                    to--;
                }
                w.raw(raw, from, to);
            } else {
                w.raw(new String(raw, StandardCharsets.UTF_8).strip().getBytes(StandardCharsets.UTF_8));
            }
            return;
        }
        w.raw('{');
        String nested = null;
        for (Field f : Field.values()) {
            if (!txn.has(f)) {
                continue;
            }
            String name = f.jsonName();
            int dot = name.indexOf('.');
            String parent = dot < 0 ? null : name.substring(0, dot);
            if (nested != null && !nested.equals(parent)) {
                w.raw('}');
                nested = null;
            }
            if (parent != null && nested == null) {
                w.key(parent).raw('{');
                nested = parent;
            }
            String leaf = dot < 0 ? name : name.substring(dot + 1);
            w.key(leaf);
            if (txn.isNumber(f)) {
                w.numberText(txn.text(f));
            } else if (txn.isBoolean(f)) {
                w.bool(txn.bool(f));
            } else {
                w.string(txn.text(f));
            }
        }
        if (nested != null) {
            w.raw('}');
        }
        Map<String, Object> custom = txn.customFields();
        if (!custom.isEmpty()) {
            w.key("custom_fields").raw('{');
            for (Map.Entry<String, Object> e : custom.entrySet()) {
                // custom field names come from the caller: escaped, unlike the fixed keys
                if (w.length() > 0 && w.array()[w.length() - 1] != '{') {
                    w.comma();
                }
                w.string(e.getKey()).raw(':');
                Object v = e.getValue();
                if (v instanceof Double d) {
                    w.decimal(d);
                } else if (v instanceof Boolean b) {
                    w.bool(b);
                } else {
                    w.string(String.valueOf(v));
                }
            }
            w.raw('}');
        }
        w.raw('}');
    }

    private static boolean isJsonWhitespace(byte b) {
        return b == ' ' || b == '\t' || b == '\n' || b == '\r';
    }
}
