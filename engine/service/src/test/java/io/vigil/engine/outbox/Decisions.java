package io.vigil.engine.outbox;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.networknt.schema.JsonSchema;
import com.networknt.schema.JsonSchemaFactory;
import com.networknt.schema.SpecVersion;
import com.networknt.schema.ValidationMessage;
import io.vigil.engine.decision.DecisionIds;
import io.vigil.engine.decision.DecisionRecord;
import io.vigil.rules.eval.EngineErrorCode;
import io.vigil.rules.eval.EngineMode;
import io.vigil.rules.eval.Evaluation;
import io.vigil.rules.eval.EvaluationType;
import io.vigil.rules.eval.MatchedRule;
import io.vigil.rules.eval.Outcome;
import io.vigil.rules.eval.VelocityResult;
import io.vigil.rules.txn.Field;
import io.vigil.rules.txn.Transaction;
import io.vigil.rules.velocity.Aggregate;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Set;

/** Decision records for the outbox tests, and the committed event schema to check events against. */
final class Decisions {
    static final ObjectMapper JSON = new ObjectMapper();
    private static JsonSchema schema;

    private Decisions() {
    }

    static String cardOf(int i) {
        return "card-" + (i % 31);
    }

    /** A DECLINE by a velocity rule, with a shadow match, as the engine records it (raw request bytes kept). */
    static DecisionRecord declined(int i) {
        String txnId = "txn-" + i;
        String card = cardOf(i);
        String body = "{\"transaction_id\":\"" + txnId + "\",\"card_hash\":\"" + card + "\",\"amount\":250.00,"
                + "\"currency\":\"EUR\",\"merchant_category_code\":\"5999\",\"timestamp\":\"2026-03-01T10:00:00Z\","
                + "\"billing_address\":{\"city\":\"Lyon\",\"country\":\"FR\"},\"custom_fields\":{\"channel\":\"app\"},"
                + "\"unknown_to_the_engine\":[1,2]}";
        Transaction txn = new Transaction()
                .setText(Field.TRANSACTION_ID, txnId)
                .setText(Field.CARD_HASH, card)
                .setNumber(Field.AMOUNT, 250.0, "250.00")
                .setText(Field.TIMESTAMP, "2026-03-01T10:00:00Z")
                .raw(body.getBytes(StandardCharsets.UTF_8));
        Evaluation e = new Evaluation(Outcome.DECLINE, EngineMode.NORMAL, null, "CARD_AUTH", 7,
                "card-5min-velocity", "VELOCITY_CARD_5M",
                List.of(new MatchedRule("card-5min-velocity", 2, 100, Outcome.DECLINE, "VELOCITY_CARD_5M", false),
                        new MatchedRule("shadow-new-model", 1, 50, Outcome.REVIEW, "SHADOW_MODEL", true)),
                List.of(new VelocityResult("card-5min-velocity", "card_hash", card, 300, Aggregate.COUNT, 6, 5, true, true)),
                42_000);
        return new DecisionRecord(DecisionIds.next(), EvaluationType.AUTH, txn, Outcome.DECLINE, EngineMode.NORMAL,
                null, "CARD_AUTH", 7, e, System.currentTimeMillis(), 9_000, 310_000, 480_000);
    }

    /** FAIL_OPEN: nothing evaluated; a transaction without raw bytes and without card_hash. */
    static DecisionRecord failOpen(int i) {
        Transaction txn = new Transaction()
                .setText(Field.TRANSACTION_ID, "txn-fo-" + i)
                .setNumber(Field.AMOUNT, 10.5, "10.5")
                .setBoolean(Field.CARD_PRESENT, true)
                .setText(Field.BILLING_CITY, "Paris")
                .setText(Field.SHIPPING_COUNTRY, "DE")
                .setCustom("score", 0.7);
        return new DecisionRecord(DecisionIds.next(), EvaluationType.AUTH, txn, Outcome.APPROVE, EngineMode.FAIL_OPEN,
                EngineErrorCode.RULESET_NOT_LOADED, "CARD_AUTH", 0, null, System.currentTimeMillis(), 5_000, 0, 20_000);
    }

    /** DEGRADED: velocity unavailable (value NaN). */
    static DecisionRecord degraded(int i) {
        Transaction txn = new Transaction().setText(Field.TRANSACTION_ID, "txn-dg-" + i).setText(Field.CARD_HASH, "c")
                .raw(("{\"transaction_id\":\"txn-dg-" + i + "\",\"card_hash\":\"c\"}").getBytes(StandardCharsets.UTF_8));
        Evaluation e = new Evaluation(Outcome.APPROVE, EngineMode.DEGRADED, EngineErrorCode.VELOCITY_UNAVAILABLE,
                "CARD_AUTH", 7, null, null, List.of(),
                List.of(new VelocityResult("card-5min-velocity", "card_hash", "c", 300, Aggregate.COUNT, Double.NaN, 5, false, false)),
                30_000);
        return new DecisionRecord(DecisionIds.next(), EvaluationType.AUTH, txn, Outcome.APPROVE, EngineMode.DEGRADED,
                EngineErrorCode.VELOCITY_UNAVAILABLE, "CARD_AUTH", 7, e, System.currentTimeMillis(), 5_000, 2_000_000, 2_100_000);
    }

    static synchronized JsonSchema schema() {
        if (schema == null) {
            try (InputStream in = Decisions.class.getResourceAsStream("/schemas/decision-event-v1.json")) {
                schema = JsonSchemaFactory.getInstance(SpecVersion.VersionFlag.V202012).getSchema(in);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return schema;
    }

    static Set<ValidationMessage> violations(byte[] event) {
        try {
            return schema().validate(JSON.readTree(event));
        } catch (IOException e) {
            throw new UncheckedIOException("not JSON: " + new String(event, StandardCharsets.UTF_8), e);
        }
    }

    static JsonNode tree(byte[] event) {
        try {
            return JSON.readTree(event);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
