package io.vigil.engine.velocity;

import io.vigil.engine.velocity.VelocityGuard.Call;
import io.vigil.engine.velocity.VelocityGuard.Refusal;
import io.vigil.engine.velocity.VelocityGuard.State;
import org.junit.jupiter.api.Test;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The breaker and the concurrency limit, driven with explicit times (nanoseconds): no clock, no sleep. */
class VelocityGuardTest {

    static final long MS = 1_000_000L;
    final List<State> changes = new ArrayList<>();

    /** Admitted calls not yet ended, oldest first: {@link #done} ends the oldest, as a FIFO Redis answers. */
    final Deque<Call> open = new ArrayDeque<>();

    Refusal admit(VelocityGuard g, long now) {
        Call c = g.admit(now);
        if (c.admitted()) {
            open.addLast(c);
        }
        return c.refusal;
    }

    void done(VelocityGuard g, long now, boolean failed) {
        g.done(open.pollFirst(), now, failed);
    }

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
            while (admit(g, t) == Refusal.NONE) {
                admitted++;
            }
            t += 3 * MS;
            for (int i = 0; i < admitted; i++) {
                done(g, t, false); // the calls queued behind each other: later than the target
                t += 3 * MS;
            }
        }
        assertThat(g.state()).isEqualTo(State.CLOSED);
        assertThat(changes).isEmpty();
        assertThat(g.limit()).isEqualTo(2);
        // and it grows back once answers are fast again
        for (int i = 0; i < 200; i++) {
            admit(g, t);
            done(g, t, false);
        }
        assertThat(g.limit()).isGreaterThan(10);
    }

    @Test
    void aSlowAnswerWithFewCallsInFlightIsTheMachineAndKeepsTheLimit() {
        VelocityGuard g = guard(16);
        long t = 0;
        for (int i = 0; i < 100; i++) {
            admit(g, t);
            t += 10 * MS;
            done(g, t, false); // one call at a time, each slow (a descheduled engine, a GC pause)
        }
        assertThat(g.limit()).isEqualTo(16);
    }

    @Test
    void callsBeyondTheLimitAreRefusedAndAdmittedAgainWhenOthersEnd() {
        VelocityGuard g = guard(4);
        int admitted = 0;
        int refused = 0;
        for (int i = 0; i < 10; i++) {
            if (admit(g, 0) == Refusal.NONE) {
                admitted++;
            } else {
                refused++;
            }
        }
        assertThat(admitted).isEqualTo(4);
        assertThat(refused).isEqualTo(6);
        assertThat(g.inFlight()).isEqualTo(4);
        done(g, MS, false);
        assertThat(admit(g, MS)).isEqualTo(Refusal.NONE);
        assertThat(admit(g, MS)).isEqualTo(Refusal.LIMIT);
    }

    @Test
    void failuresOpenTheBreakerAndOneAnsweredProbeClosesIt() {
        VelocityGuard g = guard(16);
        long t = 0;
        for (int i = 0; i < 10; i++) {
            admit(g, t);
            done(g, t, i % 2 == 0); // half fail: a refused connection, an error reply
        }
        assertThat(g.state()).isEqualTo(State.OPEN);
        assertThat(admit(g, t + 500 * MS)).isEqualTo(Refusal.CIRCUIT_OPEN);
        // after the delay: one probe at a time
        t += 1_000 * MS;
        assertThat(admit(g, t)).isEqualTo(Refusal.NONE);
        assertThat(g.state()).isEqualTo(State.HALF_OPEN);
        assertThat(admit(g, t)).isEqualTo(Refusal.CIRCUIT_OPEN);
        done(g, t + MS, false);
        assertThat(g.state()).isEqualTo(State.CLOSED);
        assertThat(changes).containsExactly(State.OPEN, State.HALF_OPEN, State.CLOSED);
        assertThat(admit(g, t + MS)).isEqualTo(Refusal.NONE);
    }

    @Test
    void aFailedProbeOpensAgain() {
        VelocityGuard g = guard(16);
        for (int i = 0; i < 10; i++) {
            admit(g, 0);
            done(g, 0, true);
        }
        long t = 1_000 * MS;
        admit(g, t);
        done(g, t, true);
        assertThat(g.state()).isEqualTo(State.OPEN);
        assertThat(admit(g, t + 10 * MS)).isEqualTo(Refusal.CIRCUIT_OPEN);
    }

    @Test
    void aSilentRedisOpensTheBreakerAndItsLateAnswerClosesIt() {
        VelocityGuard g = guard(16);
        admit(g, 0);
        admit(g, 0);
        g.silentFor(50 * MS, 100 * MS, false);
        assertThat(g.state()).as("not silent long enough yet").isEqualTo(State.CLOSED);
        g.silentFor(100 * MS, 100 * MS, false);
        assertThat(g.state()).isEqualTo(State.OPEN);
        assertThat(admit(g, 101 * MS)).isEqualTo(Refusal.CIRCUIT_OPEN);
        // Redis resumes: the queued calls are answered, and an answer means Redis is back
        done(g, 300 * MS, false);
        assertThat(g.state()).isEqualTo(State.CLOSED);
        assertThat(admit(g, 300 * MS)).isEqualTo(Refusal.NONE);
    }

    @Test
    void nothingInFlightIsNeverSilence() {
        VelocityGuard g = guard(16);
        admit(g, 0);
        done(g, MS, false);
        g.silentFor(10_000 * MS, 100 * MS, false);
        assertThat(g.state()).isEqualTo(State.CLOSED);
    }

    @Test
    void aCallThatIsNeverAnsweredExpiresOnceAndItsLateAnswerIsNotCountedAgain() {
        VelocityGuard g = guard(4);
        Call lost = g.admit(0);
        Call answered = g.admit(0);
        assertThat(g.inFlight()).isEqualTo(2);
        assertThat(g.expire(400 * MS, 500 * MS)).as("not old enough").isZero();
        g.done(answered, MS, false);
        assertThat(g.expire(500 * MS, 500 * MS)).isEqualTo(1);
        assertThat(g.inFlight()).isZero();
        assertThat(g.expire(5_000 * MS, 500 * MS)).as("ended once").isZero();
        g.done(lost, 6_000 * MS, false); // Redis answers it after all
        g.done(answered, 6_000 * MS, false); // a second report of an ended call changes nothing
        assertThat(g.inFlight()).isZero();
        for (int i = 0; i < 4; i++) {
            assertThat(g.admit(6_000 * MS).refusal).isEqualTo(Refusal.NONE);
        }
        assertThat(g.admit(6_000 * MS).refusal).as("the limit counts only live calls").isEqualTo(Refusal.LIMIT);
    }

    @Test
    void expiredCallsDoNotMakeSilence() {
        VelocityGuard g = guard(16);
        g.admit(0); // lost: never answered
        g.expire(500 * MS, 500 * MS);
        g.silentFor(500 * MS, 500 * MS, false);
        g.silentFor(10_000 * MS, 500 * MS, false);
        assertThat(g.state()).as("nothing that can still be answered is waiting").isEqualTo(State.CLOSED);
        assertThat(changes).isEmpty();
    }

    @Test
    void anExpiredProbeOpensAgainAndALateAnswerAfterExpiryClosesTheBreaker() {
        VelocityGuard g = guard(16);
        g.admit(0);
        g.silentFor(200 * MS, 100 * MS, false);
        assertThat(g.state()).isEqualTo(State.OPEN);
        Call probe = g.admit(1_200 * MS);
        assertThat(probe.admitted()).isTrue();
        assertThat(g.state()).isEqualTo(State.HALF_OPEN);
        g.expire(1_800 * MS, 500 * MS);
        assertThat(g.state()).isEqualTo(State.OPEN);
        assertThat(g.inFlight()).isZero();
        g.done(probe, 1_900 * MS, false); // Redis resumed and answered the probe late: it is there
        assertThat(g.state()).isEqualTo(State.CLOSED);
        assertThat(g.inFlight()).isZero();
    }

    @Test
    void aLateWatchdogIsTheMachineNotASilentRedis() {
        VelocityGuard g = guard(16);
        g.admit(0);
        g.silentFor(600 * MS, 500 * MS, true); // the engine itself did not run for 600 ms
        assertThat(g.state()).isEqualTo(State.CLOSED);
        g.silentFor(900 * MS, 500 * MS, false);
        assertThat(g.state()).isEqualTo(State.CLOSED);
        g.silentFor(1_100 * MS, 500 * MS, false); // a full silence of Redis' own after that
        assertThat(g.state()).isEqualTo(State.OPEN);
    }

    @Test
    void slowAnswersWhileTheEngineRunsLateKeepTheLimit() {
        VelocityGuard g = guard(16);
        long t = 0;
        for (int round = 0; round < 50; round++) {
            g.busy(t + 100 * MS); // the event loop was seen late: CPU contention
            int admitted = 0;
            while (admit(g, t) == Refusal.NONE) {
                admitted++;
            }
            t += 3 * MS;
            for (int i = 0; i < admitted; i++) {
                done(g, t, false);
                t += 3 * MS;
            }
        }
        assertThat(g.limit()).isEqualTo(16);
    }
}
