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
