package io.vigil.relay;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class StreamEntryTest {

    @Test
    void the_append_time_is_the_millisecond_part_of_the_entry_id() {
        assertThat(StreamEntry.appendedAtMillis("1700000000123-7")).isEqualTo(1700000000123L);
        assertThat(StreamEntry.appendedAtMillis("1700000000123")).isEqualTo(1700000000123L);
        assertThat(StreamEntry.appendedAtMillis("not-an-id")).isZero();
    }

    @Test
    void an_entry_without_fields_was_deleted_from_the_stream() {
        assertThat(new StreamEntry("1-0", null).deleted()).isTrue();
        assertThat(new StreamEntry("1-0", null).payload()).isEmpty();
    }
}
