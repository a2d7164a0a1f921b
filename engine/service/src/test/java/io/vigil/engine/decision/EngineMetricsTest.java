package io.vigil.engine.decision;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** A deadline miss is the engine's when its timer ran late, Redis' when the timer ran on time (no clock: given instants). */
class EngineMetricsTest {

    @Test
    void a_deadline_timer_that_ran_more_than_a_millisecond_late_is_the_engine_s_miss() {
        long due = 1_000_000_000L;
        assertThat(EngineMetrics.engineLate(due, due)).isFalse();
        assertThat(EngineMetrics.engineLate(due, due + EngineMetrics.LATE_TIMER_NANOS)).isFalse();
        assertThat(EngineMetrics.engineLate(due, due + EngineMetrics.LATE_TIMER_NANOS + 1)).isTrue();
        assertThat(EngineMetrics.engineLate(due, due - 1)).isFalse(); // Vert.x may run a timer a hair early
    }

    @Test
    void misses_are_counted_by_cause() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        EngineMetrics metrics = new EngineMetrics(registry, new AtomicInteger());
        long due = 5_000_000L;
        metrics.velocityDeadlineMissed(due, due + 200_000);
        metrics.velocityDeadlineMissed(due, due + 300_000);
        metrics.velocityDeadlineMissed(due, due + 8_000_000);
        assertThat(registry.get("vigil.velocity.deadline.missed").tag("cause", "store_slow").counter().count()).isEqualTo(2);
        assertThat(registry.get("vigil.velocity.deadline.missed").tag("cause", "engine_late").counter().count()).isEqualTo(1);
    }
}
