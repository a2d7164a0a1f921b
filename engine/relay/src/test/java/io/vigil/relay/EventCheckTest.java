package io.vigil.relay;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The event check: what it lets through and what it refuses, for both ways of checking, and the scan
 * agreeing with Jackson on the engine's events and on thousands of broken copies of them.
 */
class EventCheckTest {

    private static final String EVENT = TestEvents.event("ev-1", "txn-1", "card-1");

    @ParameterizedTest
    @EnumSource(EventCheck.class)
    void an_engine_event_is_publishable(EventCheck check) {
        assertThat(check.problem(EVENT)).isNull();
        assertThat(check.problem(" \n{\"event_id\":\"a\"}\r\n\t")).isNull();
        assertThat(check.problem("{\"x\":[1,-2.5e+3,0,1E-2,true,false,null,{},[],\"\\u00e9\\n\\\"\"],\"event_id\":\"é\"}")).isNull();
    }

    @ParameterizedTest
    @EnumSource(EventCheck.class)
    void what_is_not_a_json_object_with_an_event_id_is_refused_with_its_reason(EventCheck check) {
        assertThat(check.problem((byte[]) null)).isEqualTo(EventCheck.NO_EVENT);
        assertThat(check.problem(new byte[0])).isEqualTo(EventCheck.NO_EVENT);
        assertThat(check.problem("[{\"event_id\":\"a\"}]")).isEqualTo(EventCheck.NOT_OBJECT);
        assertThat(check.problem("{\"decision\":\"APPROVE\"}")).isEqualTo(EventCheck.NO_ID);
        assertThat(check.problem("{\"event_id\":\"\"}")).isEqualTo(EventCheck.NO_ID);
        assertThat(check.problem("{\"event_id\":7}")).isEqualTo(EventCheck.NO_ID);
        assertThat(check.problem("{\"event_id\":null}")).isEqualTo(EventCheck.NO_ID);
        // only the top level counts, and the last of two
        assertThat(check.problem("{\"transaction\":{\"event_id\":\"a\"}}")).isEqualTo(EventCheck.NO_ID);
        assertThat(check.problem("{\"event_id\":\"a\",\"event_id\":\"\"}")).isEqualTo(EventCheck.NO_ID);
        assertThat(check.problem("{\"event_id\":\"a\"} {\"event_id\":\"b\"}")).isEqualTo(EventCheck.TRAILING);
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "{\"event_id\": \"poison-1\", \"decision\": ",
        "{\"event_id\":\"a\"",
        "{\"event_id\":\"a",
        "{\"event_id\":\"a\",}",
        "{\"event_id\":\"a\" \"b\":1}",
        "{event_id:\"a\"}",
        "{'event_id':'a'}",
        "{\"event_id\":\"a\",\"n\":01}",
        "{\"event_id\":\"a\",\"n\":1.}",
        "{\"event_id\":\"a\",\"n\":.5}",
        "{\"event_id\":\"a\",\"n\":+1}",
        "{\"event_id\":\"a\",\"n\":1e}",
        "{\"event_id\":\"a\",\"n\":-}",
        "{\"event_id\":\"a\",\"n\":NaN}",
        "{\"event_id\":\"a\",\"b\":tru}",
        "{\"event_id\":\"a\",\"b\":truex}",
        "{\"event_id\":\"a\",\"s\":\"\\x\"}",
        "{\"event_id\":\"a\",\"s\":\"\\u12g4\"}",
        "{\"event_id\":\"a\",\"s\":\"tab\there\"}",
        "{\"event_id\":\"a\",\"l\":[1,2}",
        "{\"event_id\":\"a\",\"l\":[1,]}",
        "{\"event_id\":\"a\"}}",
        "{\"event_id\":\"a\"} // comment",
    })
    void malformed_json_is_refused_by_both(String event) {
        assertThat(EventCheck.SCAN.problem(event)).as("scan").isNotNull();
        assertThat(EventCheck.JACKSON.problem(event)).as("jackson").isNotNull();
    }

    @Test
    void the_scan_says_where_the_json_breaks() {
        assertThat(EventCheck.SCAN.problem("{\"event_id\":\"a\",\"n\":01}"))
                .isEqualTo(EventCheck.INVALID + "expected ',' or '}' at byte 21");
        assertThat(EventCheck.SCAN.problem("{\"event_id\": \"poison-1\", \"decision\": ")).isEqualTo(EventCheck.ENDS_EARLY);
    }

    @Test
    void broken_utf8_in_a_string_is_refused_by_both() {
        byte[] lone = "{\"event_id\":\"a\",\"s\":\"?x\"}".getBytes(StandardCharsets.US_ASCII);
        lone[22] = (byte) 0xC3; // a two-byte lead followed by ASCII
        byte[] continuation = lone.clone();
        continuation[22] = (byte) 0x80; // a continuation byte with no lead
        for (byte[] event : List.of(lone, continuation)) {
            assertThat(EventCheck.SCAN.problem(event)).as("scan").startsWith(EventCheck.INVALID);
            assertThat(EventCheck.JACKSON.problem(event)).as("jackson").isNotNull();
        }
    }

    @Test
    void nesting_is_bounded_without_overflowing_the_stack() {
        String deep = "{\"event_id\":\"a\",\"x\":" + "[".repeat(100_000) + "]".repeat(100_000) + "}";
        assertThat(EventCheck.SCAN.problem(deep)).contains("nested deeper than " + EventCheck.MAX_DEPTH);
        assertThat(EventCheck.JACKSON.problem(deep)).isNotNull();
        String fine = "{\"event_id\":\"a\",\"x\":" + "[".repeat(100) + "]".repeat(100) + "}";
        assertThat(EventCheck.SCAN.problem(fine)).isNull();
        assertThat(EventCheck.JACKSON.problem(fine)).isNull();
    }

    @Test
    void a_field_name_written_with_escapes_is_not_read_as_the_event_id_by_the_scan() {
        // the one known difference: stricter, and the engine never escapes a name
        String escaped = "{\"event\\u005fid\":\"a\"}";
        assertThat(EventCheck.JACKSON.problem(escaped)).isNull();
        assertThat(EventCheck.SCAN.problem(escaped)).isEqualTo(EventCheck.NO_ID);
    }

    /** Every truncation of an engine event and thousands of one- and two-byte corruptions: both accept or both refuse. */
    @Test
    void the_scan_agrees_with_jackson_on_broken_copies_of_engine_events() {
        byte[] event = EVENT.getBytes(StandardCharsets.UTF_8);
        List<byte[]> cases = new ArrayList<>();
        for (int n = 0; n <= event.length; n++) {
            cases.add(Arrays.copyOf(event, n));
        }
        byte[] alphabet = "{}[]\":,.-+eE0123456789truefalsn \\/u\t\n".getBytes(StandardCharsets.US_ASCII);
        Random random = new Random(22);
        for (int k = 0; k < 20_000; k++) {
            byte[] broken = event.clone();
            for (int m = 1 + random.nextInt(2); m > 0; m--) {
                broken[random.nextInt(broken.length)] = random.nextInt(4) == 0
                        ? (byte) random.nextInt(256) : alphabet[random.nextInt(alphabet.length)];
            }
            cases.add(broken);
        }
        int refused = 0;
        for (byte[] c : cases) {
            String scan = EventCheck.SCAN.problem(c);
            String jackson = EventCheck.JACKSON.problem(c);
            assertThat(scan == null).as("%s: scan %s, jackson %s", new String(c, StandardCharsets.UTF_8), scan, jackson)
                    .isEqualTo(jackson == null);
            if (scan != null) {
                refused++;
            }
        }
        // the corpus really holds both kinds
        assertThat(refused).isGreaterThan(cases.size() / 4).isLessThan(cases.size());
    }
}
