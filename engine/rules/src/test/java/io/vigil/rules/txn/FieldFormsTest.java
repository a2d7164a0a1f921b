package io.vigil.rules.txn;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** The forms the contract gives known fields, and the 400 naming the field when a request breaks one. */
class FieldFormsTest {
    private final TransactionReader reader = new TransactionReader();

    @ParameterizedTest
    @ValueSource(strings = {"2026-01-15T10:45:30Z", "2026-01-15t10:45:30z", "2026-01-15T10:45:30.123Z",
            "2026-11-24T21:05:07.123456789+01:00", "2024-02-29T00:00:00-05:30", "2016-12-31T23:59:60Z",
            "0001-01-01T00:00:00+23:59", "2000-02-29T12:00:00Z"})
    void rfc3339Accepted(String s) {
        assertThat(FieldForms.isRfc3339(s)).isTrue();
    }

    @ParameterizedTest
    @ValueSource(strings = {"yesterday", "2026-13-01T00:00:00Z", "2026-00-10T00:00:00Z", "2026-02-29T00:00:00Z",
            "1900-02-29T00:00:00Z", "2026-04-31T00:00:00Z", "2026-01-32T00:00:00Z", "2026-01-15T24:00:00Z",
            "2026-01-15T10:60:00Z", "2026-01-15T10:45:61Z", "2026-01-15T10:45:30", "2026-01-15 10:45:30Z",
            "2026-01-15T10:45:30.Z", "2026-01-15T10:45:30+0100", "2026-01-15T10:45:30+24:00",
            "2026-01-15T10:45:30+01:60", "2026-01-15T10:45:30ZZ", "2026-01-15", "26-01-15T10:45:30Z",
            "2026-1-15T10:45:30Z", "+2026-01-15T10:45:30Z", "２０２６-01-15T10:45:30Z", "2026-01-15T10:45:30Z "})
    void rfc3339Refused(String s) {
        assertThat(FieldForms.isRfc3339(s)).isFalse();
    }

    @ParameterizedTest
    @CsvSource({"US,true", "GB,true", "DE,true", "CI,true", "XK,true", "USA,false", "us,false", "UK,false",
            "ZZ,false", "U,false", "'',false", "1A,false", "Us,false"})
    void countries(String code, boolean valid) {
        assertThat(FieldForms.isCountry(code)).isEqualTo(valid);
    }

    @ParameterizedTest
    @CsvSource({"USD,true", "EUR,true", "XOF,true", "JPY,true", "DOLLARS,false", "usd,false", "US,false",
            "ABC,false", "EU1,false"})
    void currencies(String code, boolean valid) {
        assertThat(FieldForms.isCurrency(code)).isEqualTo(valid);
    }

    @ParameterizedTest
    @CsvSource({"5411,true", "0742,true", "54111,false", "abcd,false", "541,false", "54 1,false", "５４１１,false"})
    void merchantCategoryCodes(String code, boolean valid) {
        assertThat(FieldForms.isMcc(code)).isEqualTo(valid);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
            "{\"transaction_id\":\"t\",\"timestamp\":\"yesterday\"}|timestamp|RFC 3339",
            "{\"transaction_id\":\"t\",\"timestamp\":\"2026-13-01T00:00:00Z\"}|timestamp|RFC 3339",
            "{\"transaction_id\":\"t\",\"occurred_at\":\"2026-01-01\"}|occurred_at|RFC 3339",
            "{\"transaction_id\":\"t\",\"country_code\":\"USA\"}|country_code|ISO 3166-1 alpha-2",
            "{\"transaction_id\":\"t\",\"currency\":\"DOLLARS\"}|currency|ISO 4217",
            "{\"transaction_id\":\"t\",\"merchant_category_code\":\"54111\"}|merchant_category_code|4 digits",
            "{\"transaction_id\":\"t\",\"merchant_category_code\":\"abcd\"}|merchant_category_code|4 digits",
            "{\"transaction_id\":\"t\",\"billing_address\":{\"country\":\"Germany\"}}|billing_address.country|ISO 3166-1 alpha-2",
            "{\"transaction_id\":\"t\",\"shipping_address\":{\"country\":\"fr\"}}|shipping_address.country|ISO 3166-1 alpha-2",
    })
    void wrongFormNamesTheField(String body, String field, String expected) {
        assertThatThrownBy(() -> reader.read(body.getBytes(StandardCharsets.UTF_8)))
                .isInstanceOfSatisfying(InvalidTransactionException.class, e -> {
                    assertThat(e.field()).isEqualTo(field);
                    assertThat(e.detail()).contains(expected);
                });
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "{\"transaction_id\":\"t\",\"timestamp\":null,\"country_code\":null,\"currency\":null,\"merchant_category_code\":null}",
            "{\"transaction_id\":\"t\",\"timestamp\":\"2026-01-15T10:45:30Z\",\"country_code\":\"CI\",\"currency\":\"XOF\","
                    + "\"merchant_category_code\":\"7995\",\"billing_address\":{\"country\":\"GB\"},\"shipping_address\":{\"country\":\"XK\"}}",
    })
    void wellFormedOrNullIsRead(String body) throws InvalidTransactionException {
        assertThat(reader.read(body.getBytes(StandardCharsets.UTF_8)).transactionId()).isEqualTo("t");
    }
}
