package io.vigil.stream;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * Exponential backoff of one retry loop: waits {@code min}, {@code 2·min}, {@code 4·min} ... up to
 * {@code max}, back to {@code min} after {@link #reset} (call it on success). Both ends of the decision
 * streams retry with it: the outbox writer while Redis refuses its XADDs, the relay while Redis or Kafka
 * is away. Owned by the one thread that retries (not thread-safe); no allocation per wait.
 */
public final class Backoff {

    private final long minNanos;
    private final long maxNanos;
    private long nextNanos;

    /** {@code max} below {@code min} is taken as {@code min}; a zero {@code min} never waits (tests). */
    public Backoff(Duration min, Duration max) {
        if (min.isNegative() || max.isNegative()) {
            throw new IllegalArgumentException("backoff must not be negative: min " + min + ", max " + max);
        }
        this.minNanos = min.toNanos();
        this.maxNanos = Math.max(minNanos, max.toNanos());
        this.nextNanos = minNanos;
    }

    /** The wait the next {@link #sleep} takes (for log lines). */
    public long nextNanos() {
        return nextNanos;
    }

    /** Takes the next wait and doubles the one after it, up to {@code max}. */
    public long advance() {
        long wait = nextNanos;
        nextNanos = wait > maxNanos - wait ? maxNanos : wait * 2; // min(2·wait, max) without overflow
        return wait;
    }

    /** Sleeps the next wait; an interrupt ends the sleep at once (the wait still counts as taken). */
    public void sleep() throws InterruptedException {
        TimeUnit.NANOSECONDS.sleep(advance());
    }

    /** Back to {@code min}: the next failure waits the shortest time again. */
    public void reset() {
        nextNanos = minNanos;
    }
}
