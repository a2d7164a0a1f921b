package io.vigil.engine.outbox;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.util.ByteArrayBuilder;
import io.vigil.engine.decision.DecisionRecord;
import io.vigil.rules.eval.EngineErrorCode;
import io.vigil.rules.eval.MatchedRule;
import io.vigil.rules.eval.VelocityResult;
import io.vigil.rules.txn.Field;
import io.vigil.rules.txn.Transaction;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * Serializes a {@link DecisionRecord} into the decision event, version 1
 * ({@code schemas/decision-event-v1.json}, documented in docs/durability.md). Runs on the outbox
 * writer thread, never on the request thread. One instance per thread: it reuses its buffer.
 *
 * <p>The transaction is embedded from the request bytes as sent (fields the engine does not know
 * included), so it is neither parsed nor serialized a second time.
 */
public final class DecisionEvents {

    public static final int EVENT_VERSION = 1;
    private static final JsonFactory JSON = new JsonFactory();

    private final ByteArrayBuilder buffer = new ByteArrayBuilder(2048);
    private final String engineInstance;

    public DecisionEvents(String engineInstance) {
        this.engineInstance = engineInstance;
    }

    /** The Kafka key of a record's event: card_hash, or transaction_id when the transaction has none. */
    public static String key(DecisionRecord r) {
        String cardHash = r.transaction().text(Field.CARD_HASH);
        return cardHash != null ? cardHash : r.transactionId();
    }

    public byte[] toJson(DecisionRecord r) {
        buffer.reset();
        try (JsonGenerator g = JSON.createGenerator(buffer, JsonEncoding.UTF8)) {
            Transaction txn = r.transaction();
            g.writeStartObject();
            g.writeStringField("event_id", r.decisionId());
            g.writeNumberField("event_version", EVENT_VERSION);
            g.writeStringField("transaction_id", r.transactionId());
            g.writeStringField("card_hash", txn.text(Field.CARD_HASH));
            g.writeStringField("occurred_at", txn.text(Field.TIMESTAMP));
            g.writeStringField("received_at", Instant.ofEpochMilli(r.receivedAtEpochMillis()).toString());
            long producedAt = r.receivedAtEpochMillis() + r.processingNanos() / 1_000_000L;
            g.writeStringField("produced_at", Instant.ofEpochMilli(producedAt).toString());
            g.writeStringField("evaluation_type", r.type().name());
            g.writeFieldName("transaction");
            writeTransaction(g, txn);
            g.writeStringField("decision", r.decision().name());
            g.writeStringField("engine_mode", r.mode().name());
            EngineErrorCode code = r.errorCode();
            g.writeStringField("engine_error_code", code == null ? null : code.name());
            g.writeStringField("ruleset_key", r.rulesetKey());
            if (r.rulesetVersion() > 0) {
                g.writeNumberField("ruleset_version", r.rulesetVersion());
            } else {
                g.writeNullField("ruleset_version");
            }
            g.writeStringField("rule_id", r.ruleId());
            g.writeStringField("reason_code", r.reasonCode());
            g.writeArrayFieldStart("matched_rules");
            for (MatchedRule m : r.matchedRules()) {
                g.writeStartObject();
                g.writeStringField("rule_id", m.ruleId());
                g.writeNumberField("rule_version", m.ruleVersion());
                g.writeNumberField("priority", m.priority());
                g.writeStringField("decision", m.decision() == null ? null : m.decision().name());
                g.writeStringField("reason_code", m.reasonCode());
                g.writeBooleanField("shadow", m.shadow());
                g.writeEndObject();
            }
            g.writeEndArray();
            g.writeArrayFieldStart("velocity_results");
            for (VelocityResult v : r.velocityResults()) {
                g.writeStartObject();
                g.writeStringField("rule_id", v.ruleId());
                g.writeStringField("dimension", v.dimension());
                g.writeStringField("dimension_value", v.dimensionValue());
                g.writeNumberField("window_seconds", v.windowSeconds());
                g.writeStringField("aggregate", v.aggregate().name().toLowerCase(java.util.Locale.ROOT));
                if (Double.isNaN(v.value()) || !v.available()) {
                    g.writeNullField("value");
                } else {
                    g.writeNumberField("value", v.value());
                }
                g.writeNumberField("threshold", v.threshold());
                g.writeBooleanField("exceeded", v.exceeded());
                g.writeBooleanField("available", v.available());
                g.writeEndObject();
            }
            g.writeEndArray();
            g.writeNumberField("processing_time_us", r.processingNanos() / 1000L);
            g.writeObjectFieldStart("timings_us");
            g.writeNumberField("parse", r.parseNanos() / 1000L);
            g.writeNumberField("evaluation", r.evaluationNanos() / 1000L);
            g.writeNumberField("velocity", r.velocityNanos() / 1000L);
            g.writeEndObject();
            g.writeStringField("engine_instance", engineInstance);
            g.writeEndObject();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot serialize decision " + r.decisionId(), e);
        }
        return buffer.toByteArray();
    }

    /**
     * The request body as sent. The reader accepted it as one JSON object, so it is embedded raw; a
     * record built without raw bytes (tests, replay) is written from the parsed fields instead.
     */
    private static void writeTransaction(JsonGenerator g, Transaction txn) throws IOException {
        byte[] raw = txn.raw();
        if (raw != null && raw.length > 0) {
            g.writeRawValue(new String(raw, StandardCharsets.UTF_8).strip());
            return;
        }
        g.writeStartObject();
        String nested = null;
        for (Field f : Field.values()) {
            if (!txn.has(f)) {
                continue;
            }
            String name = f.jsonName();
            int dot = name.indexOf('.');
            String parent = dot < 0 ? null : name.substring(0, dot);
            if (nested != null && !nested.equals(parent)) {
                g.writeEndObject();
                nested = null;
            }
            if (parent != null && nested == null) {
                g.writeObjectFieldStart(parent);
                nested = parent;
            }
            String leaf = dot < 0 ? name : name.substring(dot + 1);
            if (txn.isNumber(f)) {
                g.writeFieldName(leaf);
                g.writeNumber(txn.text(f));
            } else if (txn.isBoolean(f)) {
                g.writeBooleanField(leaf, txn.bool(f));
            } else {
                g.writeStringField(leaf, txn.text(f));
            }
        }
        if (nested != null) {
            g.writeEndObject();
        }
        Map<String, Object> custom = txn.customFields();
        if (!custom.isEmpty()) {
            g.writeObjectFieldStart("custom_fields");
            for (Map.Entry<String, Object> e : custom.entrySet()) {
                Object v = e.getValue();
                if (v instanceof Double d) {
                    g.writeNumberField(e.getKey(), d);
                } else if (v instanceof Boolean b) {
                    g.writeBooleanField(e.getKey(), b);
                } else {
                    g.writeStringField(e.getKey(), String.valueOf(v));
                }
            }
            g.writeEndObject();
        }
        g.writeEndObject();
    }
}
