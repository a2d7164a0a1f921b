package io.vigil.engine.warmup;

import java.time.Duration;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The "JIT quiet" gate on a clock and a compilation counter the test moves by hand (ADR 0029). */
class JitQuietTest {

    static final long SECOND = 1_000_000_000L;

    /** 1 s intervals, 50 ms of compilation allowed per interval, 3 in a row, 100 decisions per interval. */
    static JitQuiet gate() {
        return new JitQuiet(Duration.ofSeconds(1), Duration.ofMillis(50), 3, 100);
    }

    @Test
    void quietAfterTheNeededIntervalsInARowUnderBudget() {
        JitQuiet q = gate();
        assertThat(q.quiet(0, 1_000, 0)).isFalse(); // opens the first interval
        assertThat(q.quiet(SECOND, 1_040, 500)).isFalse(); // 1 quiet
        assertThat(q.quiet(2 * SECOND, 1_090, 1_000)).isFalse(); // 2 (50 ms: at the budget counts)
        assertThat(q.quiet(3 * SECOND, 1_090, 1_500)).isTrue(); // 3
        assertThat(q.lastGrowthMillis()).isZero();
        assertThat(q.intervalsSeen()).isEqualTo(3);
    }

    @Test
    void anIntervalOverBudgetStartsTheCountAgain() {
        JitQuiet q = gate();
        q.quiet(0, 0, 0);
        assertThat(q.quiet(SECOND, 10, 500)).isFalse();
        assertThat(q.quiet(2 * SECOND, 20, 1_000)).isFalse();
        assertThat(q.quiet(3 * SECOND, 1_220, 1_500)).isFalse(); // 1.2 s of compilation: the JIT is busy
        assertThat(q.quietInARow()).isZero();
        assertThat(q.lastGrowthMillis()).isEqualTo(1_200);
        assertThat(q.quiet(4 * SECOND, 1_220, 2_000)).isFalse();
        assertThat(q.quiet(5 * SECOND, 1_220, 2_500)).isFalse();
        assertThat(q.quiet(6 * SECOND, 1_220, 3_000)).isTrue();
    }

    @Test
    void anIntervalWithTooFewDecisionsIsNoEvidence() {
        JitQuiet q = gate();
        q.quiet(0, 0, 0);
        q.quiet(SECOND, 0, 500);
        q.quiet(2 * SECOND, 0, 1_000);
        // the warm-up stalled (99 decisions): no compilation, and nothing to compile either
        assertThat(q.quiet(3 * SECOND, 0, 1_099)).isFalse();
        assertThat(q.quietInARow()).isZero();
    }

    @Test
    void samplesWithinAnIntervalDoNotCloseIt() {
        JitQuiet q = gate();
        q.quiet(0, 0, 0);
        for (long t = 1; t < SECOND; t += SECOND / 10) {
            assertThat(q.quiet(t, 0, 1_000)).isFalse();
        }
        assertThat(q.intervalsSeen()).isZero();
        assertThat(q.lastGrowthMillis()).isEqualTo(-1);
    }

    @Test
    void aLongerIntervalGetsABudgetInProportion() {
        JitQuiet q = new JitQuiet(Duration.ofSeconds(1), Duration.ofMillis(50), 1, 0);
        q.quiet(0, 0, 0);
        // 2 s since the last sample (a slow sampler): 100 ms is 50 ms a second
        assertThat(q.quiet(2 * SECOND, 100, 0)).isTrue();
        JitQuiet busy = new JitQuiet(Duration.ofSeconds(1), Duration.ofMillis(50), 1, 0);
        busy.quiet(0, 0, 0);
        assertThat(busy.quiet(2 * SECOND, 101, 0)).isFalse();
    }

    @Test
    void badSettingsAreRefusedWithTheirName() {
        assertThatThrownBy(() -> new JitQuiet(Duration.ZERO, Duration.ofMillis(50), 3, 100))
                .hasMessageContaining("jit-quiet.interval");
        assertThatThrownBy(() -> new JitQuiet(Duration.ofSeconds(1), Duration.ofMillis(-1), 3, 100))
                .hasMessageContaining("jit-quiet.budget");
        assertThatThrownBy(() -> new JitQuiet(Duration.ofSeconds(1), Duration.ofMillis(50), 0, 100))
                .hasMessageContaining("jit-quiet.intervals");
        assertThatThrownBy(() -> new JitQuiet(Duration.ofSeconds(1), Duration.ofMillis(50), 3, -1))
                .hasMessageContaining("jit-quiet.min-decisions");
        assertThatThrownBy(() -> new JitQuietPhase(gate(), 0, () -> 0, () -> 0))
                .hasMessageContaining("jit-quiet.max-duration");
    }

    @Test
    void thePhaseEndsQuietAndCountsWhatItRan() {
        long[] clock = {5 * SECOND};
        long[] compiled = {7_000};
        JitQuietPhase phase = new JitQuietPhase(gate(), 30 * SECOND, () -> clock[0], () -> compiled[0]);
        assertThat(phase.outcome()).isEqualTo(JitQuietPhase.Outcome.NOT_RUN);
        assertThat(phase.done(4_000)).isFalse(); // opens at the first call, with the decisions so far
        for (int s = 1; s <= 2; s++) {
            clock[0] += SECOND;
            compiled[0] += 10;
            assertThat(phase.done(4_000 + s * 1_000L)).isFalse();
        }
        clock[0] += SECOND;
        compiled[0] += 10;
        assertThat(phase.done(7_000)).isTrue();
        assertThat(phase.outcome()).isEqualTo(JitQuietPhase.Outcome.QUIET);
        assertThat(phase.decisions()).isEqualTo(3_000);
        assertThat(phase.compilationMillis()).isEqualTo(30);
        assertThat(phase.seconds()).isEqualTo(3.0);
        assertThat(phase.outcome().gauge).isEqualTo(1);
    }

    @Test
    void thePhaseEndsAtItsCapWhenTheJitNeverQuietens() {
        long[] clock = {0};
        long[] compiled = {0};
        JitQuietPhase phase = new JitQuietPhase(gate(), 10 * SECOND, () -> clock[0], () -> compiled[0]);
        long answered = 0;
        assertThat(phase.done(answered)).isFalse();
        for (int s = 1; s < 10; s++) {
            clock[0] += SECOND;
            compiled[0] += 400;
            answered += 1_000;
            assertThat(phase.done(answered)).as("second %d", s).isFalse();
        }
        clock[0] += SECOND;
        compiled[0] += 400;
        assertThat(phase.done(answered + 1_000)).isTrue();
        assertThat(phase.outcome()).isEqualTo(JitQuietPhase.Outcome.CAP);
        assertThat(phase.outcome().gauge).isZero();
        assertThat(phase.compilationMillis()).isEqualTo(4_000);
    }
}
