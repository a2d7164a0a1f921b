package io.vigil.relay;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.networknt.schema.JsonSchema;
import com.networknt.schema.JsonSchemaFactory;
import com.networknt.schema.SpecVersion;
import com.networknt.schema.ValidationMessage;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Set;

/**
 * Decision events shaped like the engine writes them (engine/service DecisionEvents), and the committed
 * JSON Schema (engine/service/src/main/resources/schemas/decision-event-v1.json) to check them against.
 */
final class TestEvents {
    static final Path SCHEMA = Path.of("../service/src/main/resources/schemas/decision-event-v1.json");
    private static final ObjectMapper JSON = new ObjectMapper();
    private static JsonSchema schema;

    private TestEvents() {
    }

    static String cardOf(int i) {
        return "card-" + (i % 97);
    }

    static String event(String eventId, String txnId, String cardHash) {
        String now = Instant.now().toString();
        return """
                {"event_id":"%s","event_version":1,"transaction_id":"%s","card_hash":"%s","occurred_at":"2026-01-01T10:00:00Z",\
                "received_at":"%s","produced_at":"%s","evaluation_type":"AUTH",\
                "transaction":{"transaction_id":"%s","card_hash":"%s","amount":120.5,"currency":"EUR","merchant_category_code":"5411",\
                "billing_address":{"city":"Lyon","country":"FR"},"custom_fields":{"channel":"app"}},\
                "decision":"DECLINE","engine_mode":"NORMAL","engine_error_code":null,"ruleset_key":"CARD_AUTH","ruleset_version":3,\
                "rule_id":"card-5min-velocity","reason_code":"VELOCITY_CARD_5M",\
                "matched_rules":[{"rule_id":"card-5min-velocity","rule_version":2,"priority":100,"decision":"DECLINE","reason_code":"VELOCITY_CARD_5M","shadow":false}],\
                "velocity_results":[{"rule_id":"card-5min-velocity","dimension":"card_hash","dimension_value":"%s","window_seconds":300,\
                "aggregate":"count","value":6.0,"threshold":5.0,"exceeded":true,"available":true}],\
                "processing_time_us":412,"timings_us":{"parse":11,"evaluation":23,"velocity":310},"engine_instance":"test"}"""
                .formatted(eventId, txnId, cardHash, now, now, txnId, cardHash, cardHash);
    }

    static synchronized JsonSchema schema() {
        if (schema == null) {
            try (InputStream in = Files.newInputStream(SCHEMA)) {
                schema = JsonSchemaFactory.getInstance(SpecVersion.VersionFlag.V202012).getSchema(in);
            } catch (IOException e) {
                throw new UncheckedIOException("cannot read " + SCHEMA.toAbsolutePath(), e);
            }
        }
        return schema;
    }

    /** Schema violations of one Kafka message value (empty = valid). */
    static Set<ValidationMessage> violations(byte[] value) {
        try {
            JsonNode node = JSON.readTree(value);
            return schema().validate(node);
        } catch (IOException e) {
            throw new UncheckedIOException("not JSON: " + new String(value), e);
        }
    }

    static String eventIdOf(byte[] value) {
        try {
            return JSON.readTree(value).path("event_id").asText(null);
        } catch (IOException e) {
            return null;
        }
    }
}
