package io.vigil.engine.warmup;

import io.vigil.engine.VigilConfig;
import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.jboss.logging.Logger;

/**
 * The warm-up's last phase (ADR 0029): decisions through the data port go on until {@link JitQuiet} says
 * the JIT is quiet, or until {@code max-duration}, after which the engine is ready anyway with a warning.
 * Opens at its first {@link #done} call; the clock and the compilation total are given so that tests
 * drive it without waiting.
 */
final class JitQuietPhase {

    private static final Logger LOG = Logger.getLogger(JitQuietPhase.class);

    enum Outcome {
        /** Not run (off, no compilation time from this JVM, or not reached yet). */
        NOT_RUN(-1),
        /** Ready at the cap, the JIT still compiling. */
        CAP(0),
        QUIET(1);

        final int gauge;

        Outcome(int gauge) {
            this.gauge = gauge;
        }
    }

    private final JitQuiet quiet;
    private final long maxNanos;
    private final LongSupplier nanoClock;
    private final LongSupplier compilationMillis;
    private long start;
    private long compilationAtStart;
    private long decisionsAtStart;
    private boolean opened;
    private volatile Outcome outcome = Outcome.NOT_RUN;
    private volatile long decisions;
    private volatile long compilationMillisSpent;
    private volatile long nanosSpent;

    JitQuietPhase(JitQuiet quiet, long maxNanos, LongSupplier nanoClock, LongSupplier compilationMillis) {
        if (maxNanos <= 0) {
            throw new IllegalArgumentException("vigil.engine.warm-up.jit-quiet.max-duration must be positive");
        }
        this.quiet = quiet;
        this.maxNanos = maxNanos;
        this.nanoClock = nanoClock;
        this.compilationMillis = compilationMillis;
    }

    /** The phase as configured, on this JVM's compilation time; null when off or the JVM does not count it. */
    static JitQuietPhase of(VigilConfig.JitQuiet settings) {
        if (!settings.enabled()) {
            return null;
        }
        CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
        if (jit == null || !jit.isCompilationTimeMonitoringSupported()) {
            LOG.warn("warm-up: this JVM does not report its compilation time; ready without waiting for the JIT to be quiet");
            return null;
        }
        return new JitQuietPhase(new JitQuiet(settings.interval(), settings.budget(), settings.intervals(), settings.minDecisions()),
                settings.maxDuration().toNanos(), System::nanoTime, jit::getTotalCompilationTime);
    }

    /**
     * True when the phase is over: the JIT quiet, or the cap reached (each logged once).
     * {@code answered} counts the warm-up's answered decisions so far.
     */
    boolean done(long answered) {
        long now = nanoClock.getAsLong();
        long compiled = compilationMillis.getAsLong();
        if (!opened) {
            opened = true;
            start = now;
            compilationAtStart = compiled;
            decisionsAtStart = answered;
        }
        decisions = answered - decisionsAtStart;
        compilationMillisSpent = compiled - compilationAtStart;
        nanosSpent = now - start;
        if (quiet.quiet(now, compiled, answered)) {
            outcome = Outcome.QUIET;
            LOG.infof("warm-up: JIT quiet after %d ms and %d more decisions through the data port (%d ms compiling, the last interval %d ms)",
                    TimeUnit.NANOSECONDS.toMillis(nanosSpent), decisions, compilationMillisSpent, quiet.lastGrowthMillis());
            return true;
        }
        if (nanosSpent >= maxNanos) {
            outcome = Outcome.CAP;
            LOG.warnf("warm-up: the JIT still compiled %d ms in the last interval (%d quiet in a row, %d intervals) after %d ms,"
                            + " %d ms compiling and %d more decisions through the data port (vigil.engine.warm-up.jit-quiet.max-duration);"
                            + " ready anyway", quiet.lastGrowthMillis(), quiet.quietInARow(), quiet.intervalsSeen(),
                    TimeUnit.NANOSECONDS.toMillis(nanosSpent), compilationMillisSpent, decisions);
            return true;
        }
        return false;
    }

    Outcome outcome() {
        return outcome;
    }

    /** Decisions answered through the data port in this phase. */
    long decisions() {
        return decisions;
    }

    /** The JVM's compilation time during this phase (ms). */
    long compilationMillis() {
        return compilationMillisSpent;
    }

    double seconds() {
        return nanosSpent / 1e9;
    }
}
