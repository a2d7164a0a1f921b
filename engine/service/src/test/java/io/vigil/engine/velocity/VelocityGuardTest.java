package io.vigil.engine.velocity;

import io.vigil.engine.velocity.VelocityGuard.Refusal;
import io.vigil.engine.velocity.VelocityGuard.State;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The breaker and the concurrency limit, driven with explicit times (nanoseconds): no clock, no sleep. */
class VelocityGuardTest {

    static final long MS = 1_000_000L;
    final List<State> changes = new ArrayList<>();

    VelocityGuard guard(int maxLimit) {
        // 10 calls window, half failing opens; 1 s delay; 1 probe closes; target round trip 2 ms; limit 2..max
        return new VelocityGuard(10, 0.5, 1_000 * MS, 1, 2 * MS, 2, maxLimit, changes::add);
    }

    @Test
    void slowAnswersUnderLoadShrinkTheLimitButNeverOpenTheBreaker() {
        VelocityGuard g = guard(16);
        long t = 0;
        for (int round = 0; round < 50; round++) {
            int admitted = 0;
            while (g.admit(t) == Refusal.NONE) {
                admitted++;
            }
            t += 3 * MS;
            for (int i = 0; i < admitted; i++) {
                g.done(t, 5 * MS, false); // the calls queued behind each other: later than the target
                t += 3 * MS;
            }
        }
        assertThat(g.state()).isEqualTo(State.CLOSED);
        assertThat(changes).isEmpty();
        assertThat(g.limit()).isEqualTo(2);
        // and it grows back once answers are fast again
        for (int i = 0; i < 200; i++) {
            g.admit(t);
            g.done(t, MS / 2, false);
        }
        assertThat(g.limit()).isGreaterThan(10);
    }

    @Test
    void aSlowAnswerWithFewCallsInFlightIsTheMachineAndKeepsTheLimit() {
        VelocityGuard g = guard(16);
        long t = 0;
        for (int i = 0; i < 100; i++) {
            g.admit(t);
            t += 10 * MS;
            g.done(t, 10 * MS, false); // one call at a time, each slow (a descheduled engine, a GC pause)
        }
        assertThat(g.limit()).isEqualTo(16);
    }

    @Test
    void callsBeyondTheLimitAreRefusedAndAdmittedAgainWhenOthersEnd() {
        VelocityGuard g = guard(4);
        int admitted = 0;
        int refused = 0;
        for (int i = 0; i < 10; i++) {
            if (g.admit(0) == Refusal.NONE) {
                admitted++;
            } else {
                refused++;
            }
        }
        assertThat(admitted).isEqualTo(4);
        assertThat(refused).isEqualTo(6);
        assertThat(g.inFlight()).isEqualTo(4);
        g.done(MS, MS / 2, false);
        assertThat(g.admit(MS)).isEqualTo(Refusal.NONE);
        assertThat(g.admit(MS)).isEqualTo(Refusal.LIMIT);
    }

    @Test
    void failuresOpenTheBreakerAndOneAnsweredProbeClosesIt() {
        VelocityGuard g = guard(16);
        long t = 0;
        for (int i = 0; i < 10; i++) {
            g.admit(t);
            g.done(t, MS / 10, i % 2 == 0); // half fail: a refused connection, an error reply
        }
        assertThat(g.state()).isEqualTo(State.OPEN);
        assertThat(g.admit(t + 500 * MS)).isEqualTo(Refusal.CIRCUIT_OPEN);
        // after the delay: one probe at a time
        t += 1_000 * MS;
        assertThat(g.admit(t)).isEqualTo(Refusal.NONE);
        assertThat(g.state()).isEqualTo(State.HALF_OPEN);
        assertThat(g.admit(t)).isEqualTo(Refusal.CIRCUIT_OPEN);
        g.done(t + MS, MS, false);
        assertThat(g.state()).isEqualTo(State.CLOSED);
        assertThat(changes).containsExactly(State.OPEN, State.HALF_OPEN, State.CLOSED);
        assertThat(g.admit(t + MS)).isEqualTo(Refusal.NONE);
    }

    @Test
    void aFailedProbeOpensAgain() {
        VelocityGuard g = guard(16);
        for (int i = 0; i < 10; i++) {
            g.admit(0);
            g.done(0, MS, true);
        }
        long t = 1_000 * MS;
        g.admit(t);
        g.done(t, MS, true);
        assertThat(g.state()).isEqualTo(State.OPEN);
        assertThat(g.admit(t + 10 * MS)).isEqualTo(Refusal.CIRCUIT_OPEN);
    }

    @Test
    void aSilentRedisOpensTheBreakerAndItsLateAnswerClosesIt() {
        VelocityGuard g = guard(16);
        g.admit(0);
        g.admit(0);
        g.silentFor(50 * MS, 100 * MS);
        assertThat(g.state()).as("not silent long enough yet").isEqualTo(State.CLOSED);
        g.silentFor(100 * MS, 100 * MS);
        assertThat(g.state()).isEqualTo(State.OPEN);
        assertThat(g.admit(101 * MS)).isEqualTo(Refusal.CIRCUIT_OPEN);
        // Redis resumes: the queued calls are answered, and an answer means Redis is back
        g.done(300 * MS, 300 * MS, false);
        assertThat(g.state()).isEqualTo(State.CLOSED);
        assertThat(g.admit(300 * MS)).isEqualTo(Refusal.NONE);
    }

    @Test
    void nothingInFlightIsNeverSilence() {
        VelocityGuard g = guard(16);
        g.admit(0);
        g.done(MS, MS, false);
        g.silentFor(10_000 * MS, 100 * MS);
        assertThat(g.state()).isEqualTo(State.CLOSED);
    }
}
