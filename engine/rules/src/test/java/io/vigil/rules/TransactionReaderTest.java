package io.vigil.rules;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vigil.rules.txn.Field;
import io.vigil.rules.txn.InvalidTransactionException;
import io.vigil.rules.txn.Transaction;
import io.vigil.rules.txn.TransactionReader;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class TransactionReaderTest {
    private final TransactionReader reader = new TransactionReader();

    private Transaction read(String json) throws InvalidTransactionException {
        return reader.read(json.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void readsEveryKnownField() throws Exception {
        String body = """
                {"transaction_id":"t-1","card_hash":"ch","amount":125.50,"currency":"EUR","merchant_id":"m1",
                 "merchant_name":"Shop","merchant_category":"retail","merchant_category_code":"5411","card_present":false,
                 "transaction_type":"PURCHASE","entry_mode":"ECOM","country_code":"DE","ip_address":"10.0.0.1",
                 "device_id":"d1","email":"a@b.c","phone":"+4930","occurred_at":"2026-01-01T00:00:00Z",
                 "card_network":"VISA","card_bin":"41111111","card_logo":"CLASSIC","decision":"APPROVE",
                 "billing_address":{"city":"Berlin","country":"DE","postal_code":"10115","state":"BE","line1":"x"},
                 "shipping_address":{"city":"Paris","country":"FR","postal_code":"75001","state":null},
                 "custom_fields":{"score":87,"tier":"gold","vip":true,"none":null},
                 "unknown":{"deep":[1,2,{"x":3}]},"unknown2":[1,2]}
                """;
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        Transaction t = reader.read(bytes);
        assertThat(t.raw()).isSameAs(bytes);
        assertThat(t.transactionId()).isEqualTo("t-1");
        assertThat(t.isNumber(Field.AMOUNT)).isTrue();
        assertThat(t.number(Field.AMOUNT)).isEqualTo(125.5);
        assertThat(t.text(Field.AMOUNT)).isEqualTo("125.50");
        assertThat(t.isBoolean(Field.CARD_PRESENT)).isTrue();
        assertThat(t.bool(Field.CARD_PRESENT)).isFalse();
        assertThat(t.text(Field.TIMESTAMP)).isEqualTo("2026-01-01T00:00:00Z");
        assertThat(t.text(Field.MERCHANT_CATEGORY_CODE)).isEqualTo("5411");
        assertThat(t.text(Field.CARD_BIN)).isEqualTo("41111111");
        assertThat(t.text(Field.BILLING_CITY)).isEqualTo("Berlin");
        assertThat(t.text(Field.BILLING_STATE)).isEqualTo("BE");
        assertThat(t.text(Field.SHIPPING_COUNTRY)).isEqualTo("FR");
        assertThat(t.has(Field.SHIPPING_STATE)).isFalse();
        assertThat(t.text(Field.DECISION)).isEqualTo("APPROVE");
        assertThat(t.custom("score")).isEqualTo(87.0);
        assertThat(t.custom("tier")).isEqualTo("gold");
        assertThat(t.custom("vip")).isEqualTo(true);
        assertThat(t.custom("none")).isNull();
        for (Field f : Field.values()) {
            assertThat(t.has(f)).as(f.jsonName()).isNotEqualTo(f == Field.SHIPPING_STATE);
        }
    }

    @Test
    void nullMeansMissing() throws Exception {
        Transaction t = read("{\"transaction_id\":\"t\",\"amount\":null,\"card_hash\":null,\"card_present\":null,"
                + "\"billing_address\":null,\"custom_fields\":null}");
        assertThat(t.has(Field.AMOUNT)).isFalse();
        assertThat(t.has(Field.CARD_HASH)).isFalse();
        assertThat(t.has(Field.CARD_PRESENT)).isFalse();
        assertThat(t.customFields()).isEmpty();
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
            "{\"transaction_id\":\"t\",\"amount\":\"12\"}|amount|expected a number",
            "{\"transaction_id\":\"t\",\"amount\":true}|amount|expected a number",
            "{\"transaction_id\":\"t\",\"card_present\":\"yes\"}|card_present|expected a boolean",
            "{\"transaction_id\":\"t\",\"card_hash\":12}|card_hash|expected a string",
            "{\"transaction_id\":\"t\",\"merchant_category_code\":5411}|merchant_category_code|expected a string",
            "{\"transaction_id\":\"t\",\"country_code\":[\"US\"]}|country_code|expected a string",
            "{\"transaction_id\":\"t\",\"occurred_at\":1}|occurred_at|expected a string",
            "{\"transaction_id\":\"t\",\"card_bin\":\"4111\"}|card_bin|expected 6 to 8 digits",
            "{\"transaction_id\":\"t\",\"card_bin\":\"411111111\"}|card_bin|expected 6 to 8 digits",
            "{\"transaction_id\":\"t\",\"card_bin\":\"41111a\"}|card_bin|expected 6 to 8 digits",
            "{\"transaction_id\":\"t\",\"card_bin\":411111}|card_bin|expected a string",
            "{\"transaction_id\":\"t\",\"billing_address\":\"Berlin\"}|billing_address|expected an object",
            "{\"transaction_id\":\"t\",\"billing_address\":{\"city\":1}}|billing_address.city|expected a string",
            "{\"transaction_id\":\"t\",\"shipping_address\":{\"postal_code\":false}}|shipping_address.postal_code|expected a string",
            "{\"transaction_id\":\"t\",\"custom_fields\":[1]}|custom_fields|expected an object",
            "{\"transaction_id\":\"t\",\"custom_fields\":{\"x\":{\"a\":1}}}|custom_fields.x|expected a scalar",
            "{\"transaction_id\":\"t\",\"custom_fields\":{\"y\":[1]}}|custom_fields.y|expected a scalar",
            "{\"amount\":1}|transaction_id|is required",
            "{\"transaction_id\":null}|transaction_id|is required",
            "{\"transaction_id\":\"\"}|transaction_id|must be 1 to 128 characters",
            "{\"transaction_id\":7}|transaction_id|expected a string",
    })
    void wrongFieldIsNamed(String body, String field, String detail) {
        assertThatThrownBy(() -> read(body))
                .isInstanceOfSatisfying(InvalidTransactionException.class, e -> {
                    assertThat(e.field()).isEqualTo(field);
                    assertThat(e.detail()).isEqualTo(detail);
                    assertThat(e.getMessage()).isEqualTo(field + ": " + detail);
                });
    }

    @Test
    void overlongTransactionId() {
        String id = "x".repeat(129);
        assertThatThrownBy(() -> read("{\"transaction_id\":\"" + id + "\"}"))
                .isInstanceOfSatisfying(InvalidTransactionException.class,
                        e -> assertThat(e.field()).isEqualTo("transaction_id"));
        String ok = "x".repeat(128);
        assertThat(TestRulesets.txn("{\"transaction_id\":\"" + ok + "\"}").transactionId()).isEqualTo(ok);
    }

    @ParameterizedTest(name = "[{index}] {0}")
    @CsvSource(delimiter = '|', value = {
            "''|",
            "'   '|",
            "not json|",
            "[1,2]|expected a JSON object",
            "\"txn\"|expected a JSON object",
            "42|expected a JSON object",
            "{\"transaction_id\":\"t\"} {}|unexpected content after the JSON object",
            "{\"transaction_id\":\"t\"} x|",
            "{\"transaction_id\":\"t\"|",
            "{\"transaction_id\":\"t\",}|",
    })
    void notATransactionObject(String body, String detail) {
        assertThatThrownBy(() -> read(body))
                .isInstanceOfSatisfying(InvalidTransactionException.class, e -> {
                    assertThat(e.field()).isNull();
                    if (detail != null) {
                        assertThat(e.getMessage()).isEqualTo(detail);
                    } else {
                        assertThat(e.getMessage()).isNotBlank();
                    }
                });
    }
}
