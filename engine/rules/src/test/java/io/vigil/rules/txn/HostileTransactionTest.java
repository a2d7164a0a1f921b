package io.vigil.rules.txn;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Requests from a hostile corpus: ill-formed UTF-8, duplicate keys, numbers that overflow a double. */
class HostileTransactionTest {
    private final TransactionReader reader = new TransactionReader();

    /** {@code prefix + bytes + suffix}, so a test can put raw bytes inside a JSON string. */
    private static byte[] body(String prefix, int[] bytes, String suffix) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.writeBytes(prefix.getBytes(StandardCharsets.UTF_8));
        for (int b : bytes) {
            out.write(b);
        }
        out.writeBytes(suffix.getBytes(StandardCharsets.UTF_8));
        return out.toByteArray();
    }

    private InvalidTransactionException refused(byte[] body) {
        try {
            reader.read(body);
        } catch (InvalidTransactionException e) {
            return e;
        }
        throw new AssertionError("accepted: " + new String(body, StandardCharsets.ISO_8859_1));
    }

    private InvalidTransactionException refused(String body) {
        return refused(body.getBytes(StandardCharsets.UTF_8));
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
            "overlong slash C0 AF|C0,AF",
            "overlong NUL C0 80|C0,80",
            "overlong 3-byte E0 80 AF|E0,80,AF",
            "overlong 4-byte F0 80 80 AF|F0,80,80,AF",
            "CESU-8 high surrogate ED A0 80|ED,A0,80",
            "CESU-8 pair for U+1F600|ED,A0,BD,ED,B8,80",
            "lone low surrogate ED B0 80|ED,B0,80",
            "above U+10FFFF F4 90 80 80|F4,90,80,80",
            "F5 start byte|F5,80,80,80",
            "FF byte|FF",
            "stray continuation 80|80",
            "truncated 3-byte E2 82|E2,82",
            "bad second byte C3 28|C3,28",
    })
    void illFormedUtf8IsRefusedWithTheField(String name, String hex) {
        String[] parts = hex.split(",");
        int[] bytes = new int[parts.length];
        for (int i = 0; i < parts.length; i++) {
            bytes[i] = Integer.parseInt(parts[i], 16);
        }
        InvalidTransactionException e = refused(body("{\"transaction_id\":\"t\",\"merchant_name\":\"shop", bytes, "\",\"amount\":1}"));
        assertThat(e.field()).as(name).isEqualTo("merchant_name");
        assertThat(e.detail()).isEqualTo("invalid UTF-8 at byte 43");
    }

    @Test
    void illFormedUtf8InNestedAndUnknownFieldsNamesTheirPath() {
        int[] cesu = {0xED, 0xA0, 0x80};
        assertThat(refused(body("{\"transaction_id\":\"t\",\"billing_address\":{\"city\":\"", cesu, "\"}}")).field())
                .isEqualTo("billing_address.city");
        assertThat(refused(body("{\"transaction_id\":\"t\",\"custom_fields\":{\"note\":\"", cesu, "\"}}")).field())
                .isEqualTo("custom_fields.note");
        assertThat(refused(body("{\"transaction_id\":\"t\",\"extra\":[\"a\",\"", cesu, "\"]}")).field())
                .isEqualTo("extra[1]");
        assertThat(refused(body("{\"transaction_id\":\"t\",\"email\":\"", new int[] {0xC0, 0x80}, "\"}")).field())
                .isEqualTo("email");
    }

    @Test
    void wellFormedMultiByteTextIsRead() throws InvalidTransactionException {
        Transaction t = reader.read("{\"transaction_id\":\"t\",\"merchant_name\":\"Café 東京 😀 \u007f\"}".getBytes(StandardCharsets.UTF_8));
        assertThat(t.text(Field.MERCHANT_NAME)).isEqualTo("Café 東京 😀 \u007f");
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
            "{\"transaction_id\":\"a\",\"transaction_id\":\"b\"}|transaction_id",
            "{\"transaction_id\":\"a\",\"amount\":1,\"amount\":1}|amount",
            "{\"transaction_id\":\"a\",\"amount\":null,\"amount\":5}|amount",
            "{\"transaction_id\":\"a\",\"country_code\":\"US\",\"card_hash\":\"c\",\"country_code\":\"FR\"}|country_code",
            "{\"transaction_id\":\"a\",\"timestamp\":\"2026-01-01T00:00:00Z\",\"timestamp\":\"2026-01-01T00:00:00Z\"}|timestamp",
            "{\"transaction_id\":\"a\",\"billing_address\":{},\"billing_address\":{}}|billing_address",
            "{\"transaction_id\":\"a\",\"custom_fields\":{},\"custom_fields\":{}}|custom_fields",
            "{\"transaction_id\":\"a\",\"billing_address\":{\"city\":\"x\",\"city\":\"y\"}}|billing_address.city",
            "{\"transaction_id\":\"a\",\"shipping_address\":{\"line1\":\"x\",\"line1\":\"y\"}}|shipping_address.line1",
            "{\"transaction_id\":\"a\",\"custom_fields\":{\"tier\":\"gold\",\"tier\":\"silver\"}}|custom_fields.tier",
            "{\"transaction_id\":\"a\",\"custom_fields\":{\"tier\":null,\"tier\":\"silver\"}}|custom_fields.tier",
            "{\"transaction_id\":\"a\",\"extra\":1,\"extra\":2}|extra",
            "{\"transaction_id\":\"a\",\"extra\":{\"k\":[{\"x\":1,\"x\":2}]}}|extra.k[0].x",
            "{\"transaction_id\":\"a\",\"timestamp\":\"2026-01-01T00:00:00Z\",\"occurred_at\":\"2026-01-02T00:00:00Z\"}|occurred_at",
            "{\"transaction_id\":\"a\",\"occurred_at\":\"2026-01-01T00:00:00Z\",\"timestamp\":null}|timestamp",
    })
    void duplicateKeysAreRefusedWithTheKey(String body, String field) {
        InvalidTransactionException e = refused(body);
        assertThat(e.field()).isEqualTo(field);
        assertThat(e.detail()).satisfiesAnyOf(d -> assertThat(d).isEqualTo("duplicate key"),
                d -> assertThat(d).startsWith("differs from its alias"));
    }

    @Test
    void timestampAndItsAliasWithTheSameValueAreOneField() throws InvalidTransactionException {
        Transaction t = reader.read(("{\"transaction_id\":\"a\",\"timestamp\":\"2026-01-01T00:00:00Z\","
                + "\"occurred_at\":\"2026-01-01T00:00:00Z\"}").getBytes(StandardCharsets.UTF_8));
        assertThat(t.text(Field.TIMESTAMP)).isEqualTo("2026-01-01T00:00:00Z");
    }

    @Test
    void manyUnknownKeysAreReadWhenDistinct() throws InvalidTransactionException {
        StringBuilder sb = new StringBuilder("{\"transaction_id\":\"a\"");
        for (int i = 0; i < 40; i++) {
            sb.append(",\"x").append(i).append("\":").append(i);
        }
        assertThat(reader.read(sb.append('}').toString().getBytes(StandardCharsets.UTF_8)).transactionId()).isEqualTo("a");
        assertThat(refused(sb.insert(sb.length() - 1, ",\"x17\":0").toString()).field()).isEqualTo("x17");
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
            "{\"transaction_id\":\"a\",\"custom_fields\":{\"score\":1e400}}|custom_fields.score",
            "{\"transaction_id\":\"a\",\"custom_fields\":{\"score\":-1e400}}|custom_fields.score",
            "{\"transaction_id\":\"a\",\"amount\":1e400}|amount",
    })
    void numbersThatOverflowAreRefusedLikeAmount(String body, String field) {
        InvalidTransactionException e = refused(body);
        assertThat(e.field()).isEqualTo(field);
        assertThat(e.detail()).isEqualTo("number out of range");
    }

    @Test
    void hugeIntegerInCustomFieldsOverflowsToo() {
        String digits = "9".repeat(400);
        assertThat(refused("{\"transaction_id\":\"a\",\"custom_fields\":{\"n\":" + digits + "}}").field())
                .isEqualTo("custom_fields.n");
    }

    @Test
    void theBadByteIsFoundWhereverItIsInTheWord() {
        // the checker skips ASCII eight bytes at a time: every position, range start and end must still be exact
        for (int len = 0; len < 40; len++) {
            byte[] ascii = "a".repeat(len).getBytes(StandardCharsets.US_ASCII);
            assertThat(Utf8.firstInvalid(ascii, 0, len)).isEqualTo(-1);
            for (int bad = 0; bad < len; bad++) {
                byte[] b = ascii.clone();
                b[bad] = (byte) 0xC0;
                assertThat(Utf8.firstInvalid(b, 0, len)).as("len %d bad %d", len, bad).isEqualTo(bad);
                for (int from = 0; from <= bad; from += 3) {
                    assertThat(Utf8.firstInvalid(b, from, len)).isEqualTo(bad);
                }
                assertThat(Utf8.firstInvalid(b, 0, bad)).as("range ends before it").isEqualTo(-1);
            }
        }
        byte[] euro = "€€€€€€€€€€".getBytes(StandardCharsets.UTF_8);
        assertThat(Utf8.firstInvalid(euro, 0, euro.length)).isEqualTo(-1);
        assertThat(Utf8.firstInvalid(euro, 0, euro.length - 1)).as("cut inside the last one").isEqualTo(euro.length - 3);
    }

    @Test
    void bodyAtAnOffsetIsCheckedWithinItsRange() throws InvalidTransactionException {
        byte[] framed = body("", new int[] {0xFF}, "{\"transaction_id\":\"t\"}");
        assertThat(reader.read(framed, 1, framed.length - 1).transactionId()).isEqualTo("t");
        byte[] bad = body("xx{\"transaction_id\":\"t\",\"email\":\"", new int[] {0xC0, 0x80}, "\"}");
        assertThatThrownBy(() -> reader.read(bad, 2, bad.length - 2))
                .isInstanceOfSatisfying(InvalidTransactionException.class, e -> {
                    assertThat(e.field()).isEqualTo("email");
                    assertThat(e.detail()).isEqualTo("invalid UTF-8 at byte 31");
                });
    }
}
