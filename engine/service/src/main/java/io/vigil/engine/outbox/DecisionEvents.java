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
 * {@code Instant.toString()}.
 *
 * <p>The transaction is embedded from the request bytes as sent (fields the engine does not know
 * included), so it is neither parsed nor serialized a second time.
 */
public final class DecisionEvents {

    public static final int EVENT_VERSION = 1;
    private static final String[] AGGREGATES = new String[Aggregate.values().length];

    static {
        for (Aggregate a : Aggregate.values()) {
            AGGREGATES[a.ordinal()] = a.name().toLowerCase(Locale.ROOT);
        }
    }

    private final JsonWriter w = new JsonWriter(2048);
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
        w.key("event_id").string(r.decisionId());
        w.key("event_version").number(EVENT_VERSION);
        w.key("transaction_id").string(r.transactionId());
        w.key("card_hash").string(txn.text(Field.CARD_HASH));
        w.key("occurred_at").string(txn.text(Field.TIMESTAMP));
        w.key("received_at");
        instant(r.receivedAtEpochMillis());
        w.key("produced_at");
        instant(r.receivedAtEpochMillis() + r.processingNanos() / 1_000_000L);
        w.key("evaluation_type").name(r.type());
        w.key("transaction");
        writeTransaction(txn);
        w.key("decision").name(r.decision());
        w.key("engine_mode").name(r.mode());
        EngineErrorCode code = r.errorCode();
        w.key("engine_error_code").name(code);
        w.key("ruleset_key").string(r.rulesetKey());
        w.key("ruleset_version");
        if (r.rulesetVersion() > 0) {
            w.number(r.rulesetVersion());
        } else {
            w.nul();
        }
        w.key("rule_id").string(r.ruleId());
        w.key("reason_code").string(r.reasonCode());
        w.key("matched_rules").raw('[');
        List<MatchedRule> matched = r.matchedRules();
        for (int i = 0; i < matched.size(); i++) {
            MatchedRule m = matched.get(i);
            if (i > 0) {
                w.comma();
            }
            w.raw('{');
            w.key("rule_id").string(m.ruleId());
            w.key("rule_version").number(m.ruleVersion());
            w.key("priority").number(m.priority());
            w.key("decision").name(m.decision());
            w.key("reason_code").string(m.reasonCode());
            w.key("shadow").bool(m.shadow());
            w.raw('}');
        }
        w.raw(']');
        w.key("velocity_results").raw('[');
        List<VelocityResult> velocity = r.velocityResults();
        for (int i = 0; i < velocity.size(); i++) {
            VelocityResult v = velocity.get(i);
            if (i > 0) {
                w.comma();
            }
            w.raw('{');
            w.key("rule_id").string(v.ruleId());
            w.key("dimension").string(v.dimension());
            w.key("dimension_value").string(v.dimensionValue());
            w.key("window_seconds").number(v.windowSeconds());
            w.key("aggregate").string(v.aggregate() == null ? null : AGGREGATES[v.aggregate().ordinal()]);
            w.key("value");
            if (Double.isNaN(v.value()) || !v.available()) {
                w.nul();
            } else {
                w.decimal(v.value());
            }
            w.key("threshold").decimal(v.threshold());
            w.key("exceeded").bool(v.exceeded());
            w.key("available").bool(v.available());
            w.raw('}');
        }
        w.raw(']');
        w.key("processing_time_us").number(r.processingNanos() / 1000L);
        w.key("timings_us").raw('{');
        w.key("parse").number(r.parseNanos() / 1000L);
        w.key("evaluation").number(r.evaluationNanos() / 1000L);
        w.key("velocity").number(r.velocityNanos() / 1000L);
        w.raw('}');
        w.key("engine_instance").string(engineInstance);
        return w.raw('}');
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
