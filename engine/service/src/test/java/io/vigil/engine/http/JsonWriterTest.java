package io.vigil.engine.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.vigil.engine.decision.DecisionIds;
import org.junit.jupiter.api.Test;

class JsonWriterTest {
    static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void stringsRoundTripThroughAJsonParser() throws Exception {
        String[] samples = {"plain", "quote \" and \\ backslash", "line\nbreak\ttab\r", "\u0001\u001f control",
                "é ü ß", "日本語", "emoji \uD83D\uDCB3 card", "lone \uD800 surrogate", ""};
        for (String s : samples) {
            JsonWriter w = JsonWriter.get().raw('{');
            w.key("s").string(s);
            w.key("n").number(-12345L);
            w.key("d").number(12.5);
            w.key("i").number(3.0);
            w.key("nan").number(Double.NaN);
            w.key("b").bool(true);
            w.key("z").nul();
            w.raw('}');
            JsonNode n = JSON.readTree(w.toBytes());
            String expected = s.replace('\uD800', '\uFFFD');
            assertThat(n.get("s").asText()).isEqualTo(expected);
            assertThat(n.get("n").asLong()).isEqualTo(-12345L);
            assertThat(n.get("d").asDouble()).isEqualTo(12.5);
            assertThat(n.get("i").isIntegralNumber()).isTrue();
            assertThat(n.get("nan").isNull()).isTrue();
            assertThat(n.get("b").asBoolean()).isTrue();
            assertThat(n.get("z").isNull()).isTrue();
        }
    }

    /** Keys, names and numbers are copied as bytes: each lands at the writer's position, also when the buffer grows. */
    @Test
    void keysNamesAndNumbersAreWrittenInPlaceWhileTheBufferGrows() throws Exception {
        JsonWriter w = new JsonWriter(16).raw('{');
        for (int i = 0; i < 300; i++) {
            w.key("key_number_" + i).raw('[').number(i * 1_000_003L).comma().number(i + 0.25).comma()
                    .name(i % 2 == 0 ? Thread.State.RUNNABLE : Thread.State.TIMED_WAITING).raw(']');
        }
        w.raw('}');
        JsonNode n = JSON.readTree(w.toBytes());
        assertThat(n.size()).isEqualTo(300);
        for (int i = 0; i < 300; i++) {
            JsonNode v = n.get("key_number_" + i);
            assertThat(v.get(0).asLong()).isEqualTo(i * 1_000_003L);
            assertThat(v.get(1).asDouble()).isEqualTo(i + 0.25);
            assertThat(v.get(2).asText()).isEqualTo(i % 2 == 0 ? "RUNNABLE" : "TIMED_WAITING");
        }
    }

    /** decimal() spells every double as Double.toString does (the event's bytes), its integral shortcut included. */
    @Test
    void decimalsAreSpelledAsDoubleToString() {
        double[] edges = {0.0, -0.0, 1.0, -1.0, 3.0, 8.0, 20.0, 5000.0, 9_999_999.0, -9_999_999.0, 10_000_000.0,
                123_456_789.0, 1e15, 1e16, 1e300, Double.MAX_VALUE, Double.MIN_VALUE, 0.1, 24.75, 1234.56, 1.0e-3,
                9.99e-4, 1.0e-4, Long.MAX_VALUE, (double) Long.MIN_VALUE, Math.nextUp(1.0), Math.nextDown(10_000_000.0)};
        java.util.SplittableRandom random = new java.util.SplittableRandom(42);
        double[] values = new double[edges.length + 20_000];
        System.arraycopy(edges, 0, values, 0, edges.length);
        for (int i = edges.length; i < values.length; i++) {
            values[i] = switch (i % 4) {
                case 0 -> random.nextInt(-20_000_000, 20_000_000);
                case 1 -> random.nextInt(0, 1_000_000) / 100.0;
                case 2 -> Double.longBitsToDouble(random.nextLong());
                default -> random.nextInt(0, 64) * (random.nextBoolean() ? 1 : -1);
            };
        }
        for (double v : values) {
            String expected = Double.isNaN(v) || Double.isInfinite(v) ? "null" : Double.toString(v);
            assertThat(new JsonWriter(4).decimal(v).toString()).as("%s", expected).isEqualTo(expected);
        }
    }

    /** Exact bytes of escaped strings: the short escapes, \\u00xx for the other controls, U+FFFD for a lone surrogate. */
    @Test
    void stringsAreEscapedToTheSameBytes() {
        assertThat(new JsonWriter(4).string("plain-ASCII_0123").toString()).isEqualTo("\"plain-ASCII_0123\"");
        assertThat(new JsonWriter(4).string("a\"b\\c\n\r\t\u0001\u001f\u007f").toString())
                .isEqualTo("\"a\\\"b\\\\c\\n\\r\\t\\u0001\\u001f\u007f\"");
        assertThat(new JsonWriter(4).string("ok then \u00e9\u6771\ud83d\ude00 x\ud800y").toBytes())
                .isEqualTo("\"ok then \u00e9\u6771\ud83d\ude00 x\ufffdy\"".getBytes(java.nio.charset.StandardCharsets.UTF_8));
        assertThat(new JsonWriter(4).string(null).toString()).isEqualTo("null");
        assertThat(new JsonWriter(4).key(JsonWriter.keyBytes("k")).string("").toString()).isEqualTo("\"k\":\"\"");
    }

    @Test
    void decisionIdsAreVersion7AndOrderedByTime() throws Exception {
        String a = DecisionIds.next();
        Thread.sleep(2);
        String b = DecisionIds.next();
        assertThat(a).matches("[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}");
        assertThat(java.util.UUID.fromString(a).version()).isEqualTo(7);
        assertThat(a.compareTo(b)).isNegative();
        assertThat(Long.parseLong(a.substring(0, 8) + a.substring(9, 13), 16)).isCloseTo(System.currentTimeMillis(),
                org.assertj.core.data.Offset.offset(60_000L));
    }
}
