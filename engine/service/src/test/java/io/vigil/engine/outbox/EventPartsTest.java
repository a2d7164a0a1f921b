package io.vigil.engine.outbox;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
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
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The parts of the event encoded once per rule ({@link EventParts}) give, decision after decision,
 * the bytes of the event written field by field: each event is compared byte for byte with the
 * same event built by Jackson from the record (the reference below), over decisions that reuse a
 * rule's objects with other values, flags and thresholds, as a reloaded ruleset would.
 */
class EventPartsTest {

    static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    /** Rule ids as a compiled ruleset holds them: the same String instance in every decision. */
    static final String[] RULE_IDS = {"card-5min-velocity-decline", "card-1h-velocity", "card-24h-amount",
            "card-1h-distinct-merchants", "device-\"quoted\"-rule", "r\u00e9gle-caf\u00e9", "line\nbreak"};
    static final String[] DIMENSIONS = {"card_hash", "device_id", "email", "ip_address"};
    static final double[] VALUES = {0, 1, 2, 3, 8, 24.75, 1234.56, 0.1, 1.0e-4, -0.0, 9_999_999, 10_000_000,
            123_456_789, 1.5e300, Double.NaN};
    static final double[] THRESHOLDS = {3, 5, 8, 20, 5000, 0.5, 1.0e7, 12.25};
    /** Also text to escape (as Jackson does: control characters without hex letters, see JsonWriterTest for the rest). */
    static final String[] DIMENSION_VALUES = {"c-1251", "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
            "a\"b\\c", "caf\u00e9 \u6771\u4eac \ud83d\ude00", "ctl\u0001\t\r\n", ""};

    @Test
    void events_with_parts_encoded_once_are_the_bytes_of_each_decision() throws Exception {
        DecisionEvents events = new DecisionEvents("engine-0");
        SplittableRandom random = new SplittableRandom(22);
        MatchedRule[] rules = new MatchedRule[RULE_IDS.length];
        for (int i = 0; i < rules.length; i++) {
            rules[i] = new MatchedRule(RULE_IDS[i], 1 + i, 900 - i, Outcome.values()[i % Outcome.values().length],
                    i == 2 ? null : "REASON_" + i, i % 3 == 0);
        }
        for (int n = 0; n < 3_000; n++) {
            DecisionRecord r = record(random, rules, n);
            String expected = DecisionEventsTest.EXACT.writeValueAsString(reference(r, "engine-0"));
            assertThat(new String(events.toJson(r), StandardCharsets.UTF_8)).as("decision %d", n).isEqualTo(expected);
        }
    }

    @Test
    void a_rule_reloaded_with_another_threshold_or_dimension_is_encoded_again() {
        DecisionEvents events = new DecisionEvents("engine-0");
        String ruleId = "card-5min-velocity";
        VelocityResult before = new VelocityResult(ruleId, "card_hash", "c-1", 300, Aggregate.COUNT, 2, 5, false, true);
        // the same rule id object (an interned id, or a partition sharing it) with other constants
        VelocityResult threshold = new VelocityResult(ruleId, "card_hash", "c-1", 300, Aggregate.COUNT, 2, 8, false, true);
        VelocityResult window = new VelocityResult(ruleId, "card_hash", "c-1", 600, Aggregate.COUNT, 2, 8, false, true);
        VelocityResult aggregate = new VelocityResult(ruleId, "card_hash", "c-1", 600, Aggregate.SUM, 2, 8, false, true);
        VelocityResult dimension = new VelocityResult(ruleId, "device_id", "c-1", 600, Aggregate.SUM, 2, 8, false, true);
        for (VelocityResult v : List.of(before, threshold, window, aggregate, dimension, before)) {
            JsonNode e = Decisions.tree(events.toJson(withVelocity(v)));
            assertThat(e.at("/velocity_results/0/threshold").asDouble()).isEqualTo(v.threshold());
            assertThat(e.at("/velocity_results/0/window_seconds").asInt()).isEqualTo(v.windowSeconds());
            assertThat(e.at("/velocity_results/0/aggregate").asText()).isEqualTo(v.aggregate().name().toLowerCase(Locale.ROOT));
            assertThat(e.at("/velocity_results/0/dimension").asText()).isEqualTo(v.dimension());
        }
    }

    @Test
    void parts_are_bounded_when_rulesets_are_reloaded_many_times() {
        EventParts parts = new EventParts();
        for (int i = 0; i < 3 * EventParts.MAX_ENTRIES; i++) {
            String id = "rule-" + i; // a new rule object each time, as a reload brings
            parts.check(new VelocityResult(id, "card_hash", "c", 60, Aggregate.COUNT, 1, 2, false, true));
            parts.matchedRule(new MatchedRule(id, 1, 1, Outcome.DECLINE, "R", false));
        }
        assertThat(parts.size()).isLessThanOrEqualTo(2 * EventParts.MAX_ENTRIES);
    }

    private static DecisionRecord withVelocity(VelocityResult v) {
        DecisionRecord d = Decisions.declined(1);
        Evaluation e = new Evaluation(Outcome.APPROVE, EngineMode.NORMAL, null, "CARD_AUTH", 7, null, null, List.of(),
                List.of(v), 1_000);
        return new DecisionRecord(d.decisionId(), d.type(), d.transaction(), Outcome.APPROVE, EngineMode.NORMAL, null,
                "CARD_AUTH", 7, e, d.receivedAtEpochMillis(), 1_000, 2_000, 3_000);
    }

    private static DecisionRecord record(SplittableRandom random, MatchedRule[] rules, int n) {
        String txnId = "txn-" + n;
        String card = DIMENSION_VALUES[random.nextInt(DIMENSION_VALUES.length)];
        String body = "{\"transaction_id\":\"" + txnId + "\",\"amount\":12.50,\"nested\":{\"a\":[1,2.0,\"x\"]}}";
        Transaction txn = new Transaction().setText(Field.TRANSACTION_ID, txnId).setText(Field.CARD_HASH, card)
                .setText(Field.TIMESTAMP, "2026-03-01T10:00:00Z").raw(body.getBytes(StandardCharsets.UTF_8));
        List<MatchedRule> matched = new ArrayList<>();
        int m = random.nextInt(4);
        for (int i = 0; i < m; i++) {
            MatchedRule rule = rules[random.nextInt(rules.length)];
            // mostly the rule's own object; sometimes an equal one made apart (another ruleset's)
            matched.add(random.nextInt(5) == 0 ? new MatchedRule(rule.ruleId(), rule.ruleVersion(), rule.priority(),
                    rule.decision(), rule.reasonCode(), rule.shadow()) : rule);
        }
        List<VelocityResult> velocity = new ArrayList<>();
        int v = random.nextInt(11);
        for (int i = 0; i < v; i++) {
            int rule = random.nextInt(RULE_IDS.length);
            double value = VALUES[random.nextInt(VALUES.length)];
            boolean available = !Double.isNaN(value) && random.nextInt(10) > 0;
            velocity.add(new VelocityResult(RULE_IDS[rule],
                    // a rule keeps its dimension and window, but a reload may change its threshold or aggregate
                    DIMENSIONS[rule % DIMENSIONS.length], DIMENSION_VALUES[random.nextInt(DIMENSION_VALUES.length)],
                    60 * (rule + 1), Aggregate.values()[random.nextInt(Aggregate.values().length)], value,
                    THRESHOLDS[random.nextInt(THRESHOLDS.length)], random.nextBoolean(), available));
        }
        boolean degraded = random.nextInt(8) == 0;
        Outcome decision = Outcome.values()[random.nextInt(Outcome.values().length)];
        Evaluation e = new Evaluation(decision, degraded ? EngineMode.DEGRADED : EngineMode.NORMAL,
                degraded ? EngineErrorCode.VELOCITY_UNAVAILABLE : null, "CARD_AUTH", 2,
                m == 0 ? null : matched.get(0).ruleId(), m == 0 ? null : matched.get(0).reasonCode(), matched, velocity,
                random.nextInt(1_000_000));
        return new DecisionRecord("0190f00d-0000-7000-8000-" + String.format("%012x", n), EvaluationType.AUTH, txn,
                decision, e.mode(), e.errorCode(), "CARD_AUTH", 2, e, 1_795_000_000_000L + random.nextInt(5_000),
                random.nextInt(100_000), random.nextInt(5_000_000), random.nextInt(6_000_000));
    }

    /** The decision event built by Jackson from the record: the layout of docs/durability.md, field by field. */
    static ObjectNode reference(DecisionRecord r, String engineInstance) throws java.io.IOException {
        ObjectNode e = NODES.objectNode();
        Transaction txn = r.transaction();
        e.put("event_id", r.decisionId());
        e.put("event_version", 1);
        e.put("transaction_id", r.transactionId());
        e.put("card_hash", txn.text(Field.CARD_HASH));
        e.put("occurred_at", txn.text(Field.TIMESTAMP));
        e.put("received_at", Instant.ofEpochMilli(r.receivedAtEpochMillis()).toString());
        e.put("produced_at", Instant.ofEpochMilli(r.receivedAtEpochMillis() + r.processingNanos() / 1_000_000L).toString());
        e.put("evaluation_type", r.type().name());
        e.set("transaction", DecisionEventsTest.EXACT.readTree(txn.raw()));
        e.put("decision", r.decision() == null ? null : r.decision().name());
        e.put("engine_mode", r.mode().name());
        e.put("engine_error_code", r.errorCode() == null ? null : r.errorCode().name());
        e.put("ruleset_key", r.rulesetKey());
        if (r.rulesetVersion() > 0) {
            e.put("ruleset_version", r.rulesetVersion());
        } else {
            e.putNull("ruleset_version");
        }
        e.put("rule_id", r.ruleId());
        e.put("reason_code", r.reasonCode());
        ArrayNode matched = e.putArray("matched_rules");
        for (MatchedRule m : r.matchedRules()) {
            ObjectNode o = matched.addObject();
            o.put("rule_id", m.ruleId());
            o.put("rule_version", m.ruleVersion());
            o.put("priority", m.priority());
            o.put("decision", m.decision().name());
            o.put("reason_code", m.reasonCode());
            o.put("shadow", m.shadow());
        }
        ArrayNode velocity = e.putArray("velocity_results");
        for (VelocityResult v : r.velocityResults()) {
            ObjectNode o = velocity.addObject();
            o.put("rule_id", v.ruleId());
            o.put("dimension", v.dimension());
            o.put("dimension_value", v.dimensionValue());
            o.put("window_seconds", v.windowSeconds());
            o.put("aggregate", v.aggregate() == null ? null : v.aggregate().name().toLowerCase(Locale.ROOT));
            if (Double.isNaN(v.value()) || !v.available()) {
                o.putNull("value");
            } else {
                o.put("value", v.value());
            }
            o.put("threshold", v.threshold());
            o.put("exceeded", v.exceeded());
            o.put("available", v.available());
        }
        e.put("processing_time_us", r.processingNanos() / 1000L);
        ObjectNode timings = e.putObject("timings_us");
        timings.put("parse", r.parseNanos() / 1000L);
        timings.put("evaluation", r.evaluationNanos() / 1000L);
        timings.put("velocity", r.velocityNanos() / 1000L);
        e.put("engine_instance", engineInstance);
        return e;
    }
}
