package io.vigil.engine.velocity;

import java.util.ArrayDeque;

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
 * <p><b>Every admitted call ends exactly once</b> ({@link Call}): answered, failed, or expired by
 * {@link #expire} when it has waited longer than Redis could still usefully answer it (a call lost in the
 * client, or a Redis frozen for good). An answer that arrives after its call expired still tells the
 * breaker that Redis is back, but is not counted again. So calls in flight never leak, and neither the
 * limit nor the silence detector can be held by calls that will never end.
 *
 * <p><b>Busy machine versus queueing at Redis.</b> The limit shrinks only while the engine's own event
 * loop is punctual ({@link #busyUntil}): a round trip that is slow while the engine itself runs late is
 * CPU contention (a JVM starting beside it, a GC pause), which a smaller limit would not cure.
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

    /**
     * One admitted call (or one of the two shared refusals). It ends once: {@link #done} or
     * {@link #expire}, whichever comes first.
     */
    static final class Call {
        final Refusal refusal;
        final long start;
        boolean probe; // guarded by the guard
        boolean ended; // guarded by the guard

        Call(Refusal refusal, long start) {
            this.refusal = refusal;
            this.start = start;
        }

        boolean admitted() {
            return refusal == Refusal.NONE;
        }
    }

    static final Call CIRCUIT_OPEN = new Call(Refusal.CIRCUIT_OPEN, 0);
    static final Call LIMIT = new Call(Refusal.LIMIT, 0);

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
    /** Admitted calls not yet known to have ended, oldest first (ended ones leave when they reach the head). */
    private final ArrayDeque<Call> calls = new ArrayDeque<>();
    private double limit;
    private long lastAnswer;
    private long lastDecrease;
    private long busyUntil = Long.MIN_VALUE;

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

    /**
     * May a call go to Redis now? Admitted: a new {@link Call} that the caller must end with
     * {@link #done}; refused: {@link #CIRCUIT_OPEN} or {@link #LIMIT}.
     */
    Call admit(long now) {
        State changed = null;
        Call call;
        synchronized (this) {
            if (state == State.OPEN && now - openedAt >= delayNanos) {
                state = State.HALF_OPEN;
                probing = false;
                probeSuccesses = 0;
                changed = state;
            }
            if (state == State.OPEN || (state == State.HALF_OPEN && probing)) {
                call = CIRCUIT_OPEN;
            } else if (inFlight >= (int) limit) {
                call = LIMIT;
            } else {
                call = new Call(Refusal.NONE, now);
                if (state == State.HALF_OPEN) {
                    probing = true;
                    call.probe = true;
                }
                if (inFlight == 0) {
                    lastAnswer = now; // silence is measured from the first call in flight
                }
                inFlight++;
                calls.addLast(call);
            }
        }
        report(changed);
        return call;
    }

    /** An admitted call ended at {@code now}: answered ({@code failed} false) or failed. */
    void done(Call call, long now, boolean failed) {
        if (!call.admitted()) {
            return;
        }
        State changed = null;
        synchronized (this) {
            if (call.ended) {
                // expired before Redis answered: not in flight any more, but an answer says Redis is there
                if (!failed) {
                    lastAnswer = now;
                    if (state != State.CLOSED) {
                        changed = close();
                    }
                }
            } else {
                call.ended = true;
                boolean crowded = inFlight * 2 >= limit; // the limit, not the machine, is what the call waited on
                inFlight--;
                if (call.probe) {
                    probing = false;
                }
                if (!failed) {
                    lastAnswer = now;
                    long roundTrip = now - call.start;
                    if (roundTrip > targetNanos && crowded && now > busyUntil) {
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
            dropEndedHeads();
        }
        report(changed);
    }

    /**
     * Ends every call admitted {@code maxAge} or more before {@code now} that has not ended: it can no
     * longer be useful to anyone (its request was answered at its deadline long ago). An expired probe
     * counts as a failed one. Returns how many expired.
     */
    int expire(long now, long maxAge) {
        State changed = null;
        int expired = 0;
        synchronized (this) {
            Call head;
            while ((head = calls.peekFirst()) != null && (head.ended || now - head.start >= maxAge)) {
                calls.pollFirst();
                if (!head.ended) {
                    head.ended = true;
                    inFlight--;
                    expired++;
                    if (head.probe && state == State.HALF_OPEN) {
                        changed = open(now);
                    }
                }
            }
        }
        report(changed);
        return expired;
    }

    /**
     * Called periodically: calls are in flight and Redis has answered nothing for {@code silence}
     * (frozen, or a network that drops packets): open, as for failures. {@code engineLate}: this check
     * itself ran late (the engine was descheduled or paused), so the silence is the machine's, not
     * Redis': the count restarts.
     */
    void silentFor(long now, long silence, boolean engineLate) {
        State changed = null;
        synchronized (this) {
            if (engineLate) {
                lastAnswer = Math.max(lastAnswer, now);
            } else if (inFlight > 0 && now - lastAnswer >= silence && state != State.OPEN) {
                changed = open(now);
            }
        }
        report(changed);
    }

    /** The engine's own event loop ran late at {@code now}: slow round trips until {@code until} are not Redis'. */
    synchronized void busy(long until) {
        busyUntil = Math.max(busyUntil, until);
    }

    private void dropEndedHeads() {
        Call head;
        while ((head = calls.peekFirst()) != null && head.ended) {
            calls.pollFirst();
        }
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
