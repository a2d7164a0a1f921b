package io.vigil.engine.outbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import io.vigil.engine.decision.DecisionIds;
import io.vigil.engine.decision.DecisionRecord;
import io.vigil.rules.eval.EngineMode;
import io.vigil.rules.eval.EvaluationType;
import io.vigil.rules.eval.Outcome;
import io.vigil.rules.txn.Field;
import io.vigil.rules.txn.Transaction;
import io.vigil.rules.txn.TransactionReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.List;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Named personal fields hashed (keyed) or dropped from the event's transaction, read by the real transaction reader. */
class PersonalDataTest {
    static final String BODY = "{\"transaction_id\":\"t-pii\",\"card_hash\":\"c-9\",\"amount\":10,"
            + "\"email\":\"Jane.Doe@example.com\",\"ip_address\":\"203.0.113.7\",\"phone\":\"+33612345678\",\"device_id\":\"dev-42\","
            + "\"billing_address\":{\"city\":\"Lyon\",\"country\":\"FR\"},\"custom_fields\":{\"loyalty_id\":\"L-1\",\"channel\":\"app\"}}";
    static final byte[] KEY = "a-test-key-of-32-bytes-0123456789".getBytes(StandardCharsets.UTF_8);

    @TempDir
    Path dir;

    private Path key() throws Exception {
        Path k = dir.resolve("key");
        Files.write(k, KEY);
        return k;
    }

    private static DecisionRecord record(Transaction txn) {
        return new DecisionRecord(DecisionIds.next(), EvaluationType.AUTH, txn, Outcome.APPROVE, EngineMode.NORMAL,
                null, "CARD_AUTH", 1, null, System.currentTimeMillis(), 1_000, 0, 2_000);
    }

    private static String hmac(String value) throws Exception {
        Mac mac = Mac.getInstance("HmacSHA256");
        mac.init(new SecretKeySpec(KEY, "HmacSHA256"));
        return "hmac-sha256:" + HexFormat.of().formatHex(mac.doFinal(value.getBytes(StandardCharsets.UTF_8)));
    }

    @Test
    void namedFieldsAreHashedOrDroppedAndTheRestIsAsSent() throws Exception {
        PersonalData pd = PersonalData.of(List.of("email", "phone", "billing_address.city"),
                List.of("ip_address", "device_id", "custom_fields.loyalty_id"), key());
        Transaction txn = new TransactionReader().read(BODY.getBytes(StandardCharsets.UTF_8));
        byte[] json = new DecisionEvents("engine-0", pd).toJson(record(txn));
        assertThat(Decisions.violations(json)).isEmpty();
        JsonNode t = Decisions.tree(json).get("transaction");
        assertThat(t.get("email").asText()).isEqualTo(hmac("Jane.Doe@example.com"));
        assertThat(t.get("phone").asText()).isEqualTo(hmac("+33612345678"));
        assertThat(t.at("/billing_address/city").asText()).isEqualTo(hmac("Lyon"));
        assertThat(t.has("ip_address")).isFalse();
        assertThat(t.has("device_id")).isFalse();
        assertThat(t.at("/custom_fields").has("loyalty_id")).isFalse();
        assertThat(t.at("/custom_fields/channel").asText()).isEqualTo("app");
        assertThat(t.at("/billing_address/country").asText()).isEqualTo("FR");
        assertThat(t.get("amount").asInt()).isEqualTo(10);
        assertThat(new String(json, StandardCharsets.UTF_8)).doesNotContain("Jane.Doe").doesNotContain("203.0.113.7")
                .doesNotContain("+33612345678").doesNotContain("dev-42");
        // what velocity reads is the parsed transaction, which the event does not touch
        assertThat(txn.text(Field.EMAIL)).isEqualTo("Jane.Doe@example.com");
        assertThat(txn.text(Field.IP_ADDRESS)).isEqualTo("203.0.113.7");
    }

    @Test
    void theSameValueHashesTheSameSoEventsStillJoin() throws Exception {
        PersonalData pd = PersonalData.of(List.of("email"), List.of(), key());
        DecisionEvents events = new DecisionEvents("engine-0", pd);
        TransactionReader reader = new TransactionReader();
        String a = Decisions.tree(events.toJson(record(reader.read(BODY.getBytes(StandardCharsets.UTF_8))))).at("/transaction/email").asText();
        String b = Decisions.tree(events.toJson(record(reader.read(BODY.replace("t-pii", "t-pii-2").getBytes(StandardCharsets.UTF_8)))))
                .at("/transaction/email").asText();
        assertThat(a).isEqualTo(b).startsWith("hmac-sha256:");
    }

    @Test
    void nothingNamedEmbedsTheBodyAsSent() {
        assertThat(PersonalData.of(List.of(), List.of(), null)).isNull();
    }

    @Test
    void hashingNeedsAKeyOfSixteenBytesOrMore() throws Exception {
        assertThatThrownBy(() -> PersonalData.of(List.of("email"), List.of(), null))
                .hasMessageContaining("vigil.outbox.personal-data.hash-key-file: required");
        Path shortKey = dir.resolve("short");
        Files.writeString(shortKey, "tiny");
        assertThatThrownBy(() -> PersonalData.of(List.of("email"), List.of(), shortKey))
                .hasMessageContaining("at least 16");
    }
}
