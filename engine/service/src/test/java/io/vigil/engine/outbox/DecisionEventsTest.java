package io.vigil.engine.outbox;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.cfg.JsonNodeFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import io.vigil.engine.decision.DecisionRecord;
import io.vigil.rules.txn.Field;
import io.vigil.rules.txn.Transaction;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** The decision event as serialized, checked field by field and against the committed JSON Schema. */
class DecisionEventsTest {

    final DecisionEvents events = new DecisionEvents("engine-0");

    @Test
    void a_declined_decision_carries_the_full_transaction_matches_and_velocity() {
        DecisionRecord r = Decisions.declined(3);
        byte[] json = events.toJson(r);
        assertThat(Decisions.violations(json)).isEmpty();
        JsonNode e = Decisions.tree(json);
        assertThat(e.get("event_id").asText()).isEqualTo(r.decisionId());
        assertThat(e.get("event_version").asInt()).isEqualTo(1);
        assertThat(e.get("transaction_id").asText()).isEqualTo("txn-3");
        assertThat(e.get("card_hash").asText()).isEqualTo(Decisions.cardOf(3));
        assertThat(e.get("occurred_at").asText()).isEqualTo("2026-03-01T10:00:00Z");
        assertThat(e.get("decision").asText()).isEqualTo("DECLINE");
        assertThat(e.get("engine_mode").asText()).isEqualTo("NORMAL");
        assertThat(e.get("engine_error_code").isNull()).isTrue();
        assertThat(e.get("ruleset_version").asInt()).isEqualTo(7);
        assertThat(e.get("rule_id").asText()).isEqualTo("card-5min-velocity");
        // the request exactly as sent, unknown fields included
        assertThat(e.get("transaction")).isEqualTo(Decisions.tree(r.transaction().raw()));
        assertThat(e.at("/transaction/unknown_to_the_engine/1").asInt()).isEqualTo(2);
        assertThat(e.get("matched_rules")).hasSize(2);
        assertThat(e.at("/matched_rules/1/shadow").asBoolean()).isTrue();
        assertThat(e.at("/matched_rules/1/reason_code").asText()).isEqualTo("SHADOW_MODEL");
        assertThat(e.at("/velocity_results/0/aggregate").asText()).isEqualTo("count");
        assertThat(e.at("/velocity_results/0/value").asDouble()).isEqualTo(6.0);
        assertThat(e.get("processing_time_us").asLong()).isEqualTo(480);
        assertThat(e.at("/timings_us/velocity").asLong()).isEqualTo(310);
        assertThat(e.at("/timings_us/evaluation").asLong()).isEqualTo(42);
        assertThat(e.get("engine_instance").asText()).isEqualTo("engine-0");
        assertThat(DecisionEvents.key(r)).isEqualTo(Decisions.cardOf(3));
    }

    @Test
    void fail_open_without_raw_bytes_is_written_from_the_parsed_fields() {
        DecisionRecord r = Decisions.failOpen(1);
        byte[] json = events.toJson(r);
        assertThat(Decisions.violations(json)).isEmpty();
        JsonNode e = Decisions.tree(json);
        assertThat(e.get("engine_mode").asText()).isEqualTo("FAIL_OPEN");
        assertThat(e.get("engine_error_code").asText()).isEqualTo("RULESET_NOT_LOADED");
        assertThat(e.get("ruleset_version").isNull()).isTrue();
        assertThat(e.get("matched_rules")).isEmpty();
        assertThat(e.at("/transaction/amount").asDouble()).isEqualTo(10.5);
        assertThat(e.at("/transaction/card_present").asBoolean()).isTrue();
        assertThat(e.at("/transaction/billing_address/city").asText()).isEqualTo("Paris");
        assertThat(e.at("/transaction/shipping_address/country").asText()).isEqualTo("DE");
        assertThat(e.at("/transaction/custom_fields/score").asDouble()).isEqualTo(0.7);
        // no card_hash: the Kafka key falls back to the transaction id
        assertThat(DecisionEvents.key(r)).isEqualTo("txn-fo-1");
    }

    @Test
    void unavailable_velocity_has_a_null_value_not_nan() {
        byte[] json = events.toJson(Decisions.degraded(1));
        assertThat(new String(json, StandardCharsets.UTF_8)).doesNotContain("NaN");
        assertThat(Decisions.violations(json)).isEmpty();
        JsonNode e = Decisions.tree(json);
        assertThat(e.at("/velocity_results/0/value").isNull()).isTrue();
        assertThat(e.at("/velocity_results/0/available").asBoolean()).isFalse();
        assertThat(e.get("engine_error_code").asText()).isEqualTo("VELOCITY_UNAVAILABLE");
    }

    /** Reads numbers as written (250.00 stays 250.00), so writing the tree back gives Jackson's own bytes. */
    static final ObjectMapper EXACT = JsonMapper.builder()
            .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
            .configure(JsonNodeFeature.STRIP_TRAILING_BIGDECIMAL_ZEROES, false)
            .build();

    @Test
    void the_bytes_are_those_jackson_writes_for_the_same_event() throws Exception {
        // the hand-written event replaced a Jackson generator: consumers must see the same bytes
        for (DecisionRecord r : new DecisionRecord[] {Decisions.declined(5), Decisions.failOpen(2), Decisions.degraded(4)}) {
            byte[] json = events.toJson(r);
            assertThat(new String(json, StandardCharsets.UTF_8))
                    .isEqualTo(new String(EXACT.writeValueAsBytes(EXACT.readTree(json)), StandardCharsets.UTF_8));
        }
    }

    @Test
    void timestamps_are_spelled_as_instant_to_string() {
        long base = Instant.parse("2026-11-21T12:34:56Z").toEpochMilli();
        // same second (cached prefix), whole seconds, the next second, a leap day, 1970
        long[] cases = {base, base + 1, base + 20, base + 999, base + 1000, base + 61_234,
                Instant.parse("2028-02-29T23:59:59.999Z").toEpochMilli(), 0, 86_400_000L + 7};
        for (long millis : cases) {
            DecisionRecord r = receivedAt(Decisions.declined(1), millis, 2_500_000);
            JsonNode e = Decisions.tree(events.toJson(r));
            assertThat(e.get("received_at").asText()).isEqualTo(Instant.ofEpochMilli(millis).toString());
            assertThat(e.get("produced_at").asText()).isEqualTo(Instant.ofEpochMilli(millis + 2).toString());
        }
    }

    @Test
    void a_raw_body_with_whitespace_or_non_ascii_text_is_embedded_as_valid_json() {
        String body = "\n  {\"transaction_id\":\"t-1\",\"card_hash\":\"c\",\"merchant_name\":\"Caf\u00e9 \u6771\u4eac \ud83d\ude00\"}\r\n ";
        Transaction txn = new Transaction().setText(Field.TRANSACTION_ID, "t-1").setText(Field.CARD_HASH, "c")
                .raw(body.getBytes(StandardCharsets.UTF_8));
        DecisionRecord d = Decisions.degraded(1);
        DecisionRecord r = new DecisionRecord(d.decisionId(), d.type(), txn, d.decision(), d.mode(), d.errorCode(),
                d.rulesetKey(), d.rulesetVersion(), d.evaluation(), d.receivedAtEpochMillis(), d.parseNanos(),
                d.velocityNanos(), d.processingNanos());
        byte[] json = events.toJson(r);
        assertThat(Decisions.violations(json)).isEmpty();
        assertThat(Decisions.tree(json).at("/transaction/merchant_name").asText()).isEqualTo("Caf\u00e9 \u6771\u4eac \ud83d\ude00");
        assertThat(new String(json, StandardCharsets.UTF_8)).contains("\"transaction\":{\"transaction_id\"");
        // the buffer is reused: the next event is not polluted by this one
        byte[] next = events.toJson(Decisions.declined(2));
        assertThat(Decisions.tree(next).at("/transaction/transaction_id").asText()).isEqualTo("txn-2");
    }

    static DecisionRecord receivedAt(DecisionRecord d, long millis, long processingNanos) {
        return new DecisionRecord(d.decisionId(), d.type(), d.transaction(), d.decision(), d.mode(), d.errorCode(),
                d.rulesetKey(), d.rulesetVersion(), d.evaluation(), millis, d.parseNanos(), d.velocityNanos(),
                processingNanos);
    }

    @Test
    void the_schema_rejects_an_event_without_event_id() {
        JsonNode e = Decisions.tree(events.toJson(Decisions.declined(1)));
        ((com.fasterxml.jackson.databind.node.ObjectNode) e).remove("event_id");
        assertThat(Decisions.schema().validate(e)).isNotEmpty();
    }
}
