package io.vigil.engine.velocity;

/**
 * What stands between the decision path and Redis: a circuit breaker and a concurrency limit, both
 * plain and cheap (one short lock per call), on the hot path of every AUTH.
 *
 * <p><b>Breaker.</b> Opens when Redis fails: at least {@code failureRatio} of the last
 * {@code requestVolume} calls ended in an error (refused connection, closed connection, error reply),
 * or Redis went silent (calls in flight and no answer for {@code silence}, see {@link #silentFor}).
 * It never opens because answers are late under load: that is the limit's job. While open, calls are
 * refused without touching Redis; after {@code delay} one probe call goes through (half-open), and
 * {@code successThreshold} answered probes close it. Any answer while open closes it too: a Redis
 * that answers is back.
 *
 * <p><b>Limit.</b> Calls in flight are capped by an adaptive limit (additive increase while round
 * trips stay under {@code target}, multiplicative decrease when one is over it while at least half
 * the limit was in flight: a slow answer with few calls in flight is the machine, not queueing), so under overload
 * the calls that are admitted are answered within the deadline and the rest answer DEGRADED at once,
 * instead of everybody queueing past the deadline. The NORMAL share then stays near
 * capacity ÷ offered load.
 *
 * <p>Why not SmallRye Fault Tolerance's {@code TypedGuard}: it cost about 4 µs per call in a
 * profile (generic wrappers, metrics look-ups) and its breaker counted deadline misses caused by
 * load as Redis failures, turning overload into a fully open circuit (0 % NORMAL).
 */
final class VelocityGuard {

    enum State { CLOSED, HALF_OPEN, OPEN }

    /** Why a call was not admitted. */
    enum Refusal { NONE, CIRCUIT_OPEN, LIMIT }

    /** A state change, reported outside the lock. */
    interface Listener {
        void changed(State state);
    }

    private final int requestVolume;
    private final double failureRatio;
    private final long delayNanos;
    private final int successThreshold;
    private final long targetNanos;
    private final int minLimit;
    private final int maxLimit;
    private final Listener listener;

    // guarded by this
    private final boolean[] outcomes;
    private int outcomeCount;
    private int outcomeNext;
    private int failures;
    private State state = State.CLOSED;
    private long openedAt;
    private boolean probing;
    private int probeSuccesses;
    private int inFlight;
    private double limit;
    private long lastAnswer;
    private long lastDecrease;

    VelocityGuard(int requestVolume, double failureRatio, long delayNanos, int successThreshold, long targetNanos,
                  int minLimit, int maxLimit, Listener listener) {
        this.requestVolume = Math.max(1, requestVolume);
        this.failureRatio = failureRatio;
        this.delayNanos = delayNanos;
        this.successThreshold = Math.max(1, successThreshold);
        this.targetNanos = targetNanos;
        this.minLimit = Math.max(1, minLimit);
        this.maxLimit = Math.max(this.minLimit, maxLimit);
        this.listener = listener;
        this.outcomes = new boolean[this.requestVolume];
        this.limit = this.maxLimit;
    }

    /** May a call go to Redis now? If admitted, the caller must report it with {@link #done}. */
    Refusal admit(long now) {
        State changed = null;
        Refusal refusal;
        synchronized (this) {
            if (state == State.OPEN && now - openedAt >= delayNanos) {
                state = State.HALF_OPEN;
                probing = false;
                probeSuccesses = 0;
                changed = state;
            }
            if (state == State.OPEN || (state == State.HALF_OPEN && probing)) {
                refusal = Refusal.CIRCUIT_OPEN;
            } else if (inFlight >= (int) limit) {
                refusal = Refusal.LIMIT;
            } else {
                if (state == State.HALF_OPEN) {
                    probing = true;
                }
                if (inFlight == 0) {
                    lastAnswer = now; // silence is measured from the first call in flight
                }
                inFlight++;
                refusal = Refusal.NONE;
            }
        }
        report(changed);
        return refusal;
    }

    /** An admitted call ended: answered ({@code failed} false) or failed, after {@code roundTrip} ns. */
    void done(long now, long roundTrip, boolean failed) {
        State changed = null;
        synchronized (this) {
            boolean crowded = inFlight * 2 >= limit; // the limit, not the machine, is what the call waited on
            inFlight--;
            if (!failed) {
                lastAnswer = now;
                if (roundTrip > targetNanos && crowded) {
                    // at most one decrease per target period: one slow batch is one signal, not fifty
                    if (now - lastDecrease > targetNanos) {
                        limit = Math.max(minLimit, limit * 0.9);
                        lastDecrease = now;
                    }
                } else if (limit < maxLimit) {
                    limit = Math.min(maxLimit, limit + 1.0 / limit);
                }
            }
            changed = record(now, failed);
        }
        report(changed);
    }

    /**
     * Called periodically: calls are in flight and Redis has answered nothing for {@code silence}
     * (frozen, or a network that drops packets): open, as for failures.
     */
    void silentFor(long now, long silence) {
        State changed = null;
        synchronized (this) {
            if (inFlight > 0 && now - lastAnswer >= silence && state != State.OPEN) {
                changed = open(now);
            }
        }
        report(changed);
    }

    private State record(long now, boolean failed) {
        if (state != State.CLOSED) {
            if (!failed) {
                if (state == State.OPEN || ++probeSuccesses >= successThreshold) {
                    return close();
                }
                probing = false; // the next probe may go
                return null;
            }
            return state == State.HALF_OPEN ? open(now) : null;
        }
        if (outcomeCount == requestVolume) {
            if (outcomes[outcomeNext]) {
                failures--;
            }
        } else {
            outcomeCount++;
        }
        outcomes[outcomeNext] = failed;
        outcomeNext = (outcomeNext + 1) % requestVolume;
        if (failed) {
            failures++;
        }
        if (outcomeCount == requestVolume && failures >= failureRatio * requestVolume) {
            return open(now);
        }
        return null;
    }

    private State open(long now) {
        state = State.OPEN;
        openedAt = now;
        probing = false;
        return state;
    }

    private State close() {
        state = State.CLOSED;
        outcomeCount = 0;
        outcomeNext = 0;
        failures = 0;
        probing = false;
        return state;
    }

    private void report(State changed) {
        if (changed != null && listener != null) {
            listener.changed(changed);
        }
    }

    synchronized State state() {
        return state;
    }

    synchronized int limit() {
        return (int) limit;
    }

    synchronized int inFlight() {
        return inFlight;
    }
}
