package io.vigil.engine.outbox;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.vigil.engine.decision.DecisionRecord;
import java.nio.charset.StandardCharsets;
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

    @Test
    void the_schema_rejects_an_event_without_event_id() {
        JsonNode e = Decisions.tree(events.toJson(Decisions.declined(1)));
        ((com.fasterxml.jackson.databind.node.ObjectNode) e).remove("event_id");
        assertThat(Decisions.schema().validate(e)).isNotEmpty();
    }
}
