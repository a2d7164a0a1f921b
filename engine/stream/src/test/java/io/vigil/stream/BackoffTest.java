package io.vigil.stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class BackoffTest {

    private static List<Long> waits(Backoff b, int n) {
        List<Long> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            out.add(b.advance());
        }
        return out;
    }

    @Test
    void doubles_from_min_and_stays_at_max() {
        Backoff b = new Backoff(Duration.ofNanos(100), Duration.ofNanos(1000));
        assertThat(waits(b, 7)).containsExactly(100L, 200L, 400L, 800L, 1000L, 1000L, 1000L);
    }

    @Test
    void next_shows_the_coming_wait_without_taking_it() {
        Backoff b = new Backoff(Duration.ofMillis(50), Duration.ofSeconds(2));
        assertThat(b.nextNanos()).isEqualTo(Duration.ofMillis(50).toNanos());
        assertThat(b.nextNanos()).isEqualTo(Duration.ofMillis(50).toNanos());
        b.advance();
        assertThat(b.nextNanos()).isEqualTo(Duration.ofMillis(100).toNanos());
    }

    @Test
    void reset_starts_again_from_min() {
        Backoff b = new Backoff(Duration.ofNanos(10), Duration.ofNanos(1000));
        waits(b, 5);
        b.reset();
        assertThat(waits(b, 3)).containsExactly(10L, 20L, 40L);
    }

    @Test
    void a_max_below_min_is_taken_as_min() {
        Backoff b = new Backoff(Duration.ofNanos(300), Duration.ofNanos(100));
        assertThat(waits(b, 3)).containsExactly(300L, 300L, 300L);
    }

    @Test
    void a_max_that_is_not_a_power_of_two_of_min_is_reached_exactly() {
        Backoff b = new Backoff(Duration.ofNanos(2), Duration.ofNanos(5));
        assertThat(waits(b, 4)).containsExactly(2L, 4L, 5L, 5L);
    }

    @Test
    void doubling_near_the_largest_duration_does_not_overflow() {
        long huge = Long.MAX_VALUE / 2 + 1;
        Backoff b = new Backoff(Duration.ofNanos(huge), Duration.ofNanos(Long.MAX_VALUE));
        assertThat(waits(b, 3)).containsExactly(huge, Long.MAX_VALUE, Long.MAX_VALUE);
    }

    @Test
    void zero_min_never_waits() throws InterruptedException {
        Backoff b = new Backoff(Duration.ZERO, Duration.ofSeconds(5));
        b.sleep();
        b.sleep();
        assertThat(b.nextNanos()).isZero();
    }

    @Test
    void an_interrupted_thread_does_not_wait_and_the_wait_counts_as_taken() {
        Backoff b = new Backoff(Duration.ofHours(1), Duration.ofHours(4));
        Thread.currentThread().interrupt();
        assertThatThrownBy(b::sleep).isInstanceOf(InterruptedException.class);
        assertThat(b.nextNanos()).isEqualTo(Duration.ofHours(2).toNanos());
    }

    @Test
    void negative_durations_are_refused() {
        assertThatThrownBy(() -> new Backoff(Duration.ofMillis(-1), Duration.ofSeconds(1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("min PT-0.001S");
        assertThatThrownBy(() -> new Backoff(Duration.ZERO, Duration.ofSeconds(-1)))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
