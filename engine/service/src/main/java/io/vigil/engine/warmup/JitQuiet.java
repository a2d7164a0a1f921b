package io.vigil.engine.warmup;

import java.time.Duration;

/**
 * Whether the JIT went quiet under the warm-up's traffic: the JVM's total compilation time grew by at
 * most {@code budget} in each of the last {@code intervals} intervals, and each of them ran at least
 * {@code minDecisions} warm-up decisions (an interval in which the warm-up stalled proves nothing).
 * Readiness waits for it (ADR 0029): a warm-up that only counts decisions left the HTTP server's code
 * below C2's thresholds, and the first seconds after ready spent a core compiling.
 *
 * <p>Pure: fed with the time, the compilation total and the decisions run, so that its logic is tested
 * without a clock. Not thread-safe: the warm-up's thread alone samples it.
 */
final class JitQuiet {

    private final long intervalNanos;
    private final long budgetMillis;
    private final int intervals;
    private final long minDecisions;

    private boolean started;
    private long intervalStart;
    private long compilationAtStart;
    private long decisionsAtStart;
    private int quietInARow;
    private long lastGrowthMillis = -1;
    private int intervalsSeen;

    JitQuiet(Duration interval, Duration budget, int intervals, long minDecisions) {
        if (interval == null || interval.isZero() || interval.isNegative()) {
            throw new IllegalArgumentException("vigil.engine.warm-up.jit-quiet.interval must be positive, was " + interval);
        }
        if (budget == null || budget.isNegative()) {
            throw new IllegalArgumentException("vigil.engine.warm-up.jit-quiet.budget must not be negative, was " + budget);
        }
        if (intervals < 1) {
            throw new IllegalArgumentException("vigil.engine.warm-up.jit-quiet.intervals must be at least 1, was " + intervals);
        }
        if (minDecisions < 0) {
            throw new IllegalArgumentException("vigil.engine.warm-up.jit-quiet.min-decisions must not be negative, was " + minDecisions);
        }
        this.intervalNanos = interval.toNanos();
        this.budgetMillis = budget.toMillis();
        this.intervals = intervals;
        this.minDecisions = minDecisions;
    }

    /**
     * One sample: {@code nanoTime} from a monotonic clock, {@code compilationMillis} the JVM's total
     * compilation time so far, {@code decisions} the warm-up decisions answered so far. An interval
     * closes at the first sample at least one interval after it opened; a longer one (a slow sampler)
     * gets a budget in proportion. True once the last {@code intervals} closed intervals were all quiet.
     */
    boolean quiet(long nanoTime, long compilationMillis, long decisions) {
        if (!started) {
            open(nanoTime, compilationMillis, decisions);
            started = true;
            return false;
        }
        long elapsed = nanoTime - intervalStart;
        if (elapsed < intervalNanos) {
            return quietInARow >= intervals;
        }
        long grew = compilationMillis - compilationAtStart;
        long ran = decisions - decisionsAtStart;
        // grew / elapsed <= budget / interval (ms times ns: far from a long's range for any real interval)
        boolean quietInterval = ran >= minDecisions && grew * intervalNanos <= budgetMillis * elapsed;
        quietInARow = quietInterval ? quietInARow + 1 : 0;
        lastGrowthMillis = grew;
        intervalsSeen++;
        open(nanoTime, compilationMillis, decisions);
        return quietInARow >= intervals;
    }

    private void open(long nanoTime, long compilationMillis, long decisions) {
        intervalStart = nanoTime;
        compilationAtStart = compilationMillis;
        decisionsAtStart = decisions;
    }

    /** Compilation time in the last closed interval (ms); -1 before the first closed. */
    long lastGrowthMillis() {
        return lastGrowthMillis;
    }

    /** Closed intervals so far. */
    int intervalsSeen() {
        return intervalsSeen;
    }

    /** Quiet intervals in a row, up to now. */
    int quietInARow() {
        return quietInARow;
    }
}
