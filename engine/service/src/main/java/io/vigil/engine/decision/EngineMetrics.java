package io.vigil.engine.decision;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.vigil.rules.eval.EngineErrorCode;
import io.vigil.rules.eval.EngineMode;
import io.vigil.rules.eval.EvaluationType;
import io.vigil.rules.eval.Outcome;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The decision path's meters, resolved once at start into arrays indexed by enum ordinals so that
 * recording an answer does no registry lookup and no tag allocation.
 */
public final class EngineMetrics {
    /** Histogram boundaries: fine below 1 ms so p50/p95/p99 of a sub-millisecond engine are readable. */
    static final Duration[] LATENCY_BUCKETS = {
            micros(50), micros(100), micros(150), micros(200), micros(300), micros(400), micros(500), micros(750),
            millis(1), micros(1500), millis(2), millis(3), millis(5), micros(7500), millis(10), millis(20), millis(50),
            millis(100)};

    private final Timer[][][] latency = new Timer[EvaluationType.values().length][Outcome.values().length][EngineMode.values().length];
    private final Counter[][] degraded = new Counter[EvaluationType.values().length][EngineErrorCode.values().length];
    private final Counter[][] failOpen = new Counter[EvaluationType.values().length][EngineErrorCode.values().length];
    private final Counter[] shed = new Counter[EvaluationType.values().length];
    private final Counter[] shedForOutbox = new Counter[EvaluationType.values().length];
    private final Counter sinkErrors;
    private final Counter[][] unwritten = new Counter[EvaluationType.values().length][Unwritten.values().length];
    private final Counter deadlineMissedEngineLate;
    private final Counter deadlineMissedStoreSlow;
    private final MeterRegistry registry;

    public EngineMetrics(MeterRegistry registry, AtomicInteger inFlight) {
        this.registry = registry;
        for (EvaluationType t : EvaluationType.values()) {
            String endpoint = endpoint(t);
            for (Outcome d : Outcome.values()) {
                for (EngineMode m : EngineMode.values()) {
                    latency[t.ordinal()][d.ordinal()][m.ordinal()] = Timer.builder("vigil.evaluate")
                            .description("Evaluate requests answered, by endpoint, decision and engine mode; "
                                    + "from the request handled to the answer written")
                            .tags("endpoint", endpoint, "decision", d.name(), "mode", m.name())
                            .serviceLevelObjectives(LATENCY_BUCKETS)
                            .register(registry);
                }
            }
            for (EngineErrorCode c : EngineErrorCode.values()) {
                degraded[t.ordinal()][c.ordinal()] = Counter.builder("vigil.engine.degraded")
                        .description("Answers with engine_mode DEGRADED, by cause")
                        .tags("endpoint", endpoint, "code", c.name()).register(registry);
                failOpen[t.ordinal()][c.ordinal()] = Counter.builder("vigil.engine.fail.open")
                        .description("Answers with engine_mode FAIL_OPEN (default decision), by cause")
                        .tags("endpoint", endpoint, "code", c.name()).register(registry);
            }
            shed[t.ordinal()] = Counter.builder("vigil.engine.load.shed")
                    .description("Requests shed before deciding (in-flight limit, or no room in the outbox), answered in-band with the shed decision")
                    .tags("endpoint", endpoint).register(registry);
            for (Unwritten u : Unwritten.values()) {
                unwritten[t.ordinal()][u.ordinal()] = Counter.builder("vigil.evaluate.unwritten")
                        .description("Decided requests whose answer was not written: caller_gone (the connection was "
                                + "closed before the answer), write_failed (writing it threw; the caller got a 500 if the "
                                + "response was still open)")
                        .tags("endpoint", endpoint, "reason", u.tag).register(registry);
            }
            shedForOutbox[t.ordinal()] = Counter.builder("vigil.engine.load.shed.outbox")
                    .description("Requests shed before deciding because the outbox had no room for their event "
                            + "(also counted in vigil.engine.load.shed)")
                    .tags("endpoint", endpoint).register(registry);
        }
        Gauge.builder("vigil.engine.in.flight", inFlight, AtomicInteger::get)
                .description("Evaluate requests being processed (mostly waiting for velocity)").register(registry);
        sinkErrors = Counter.builder("vigil.decision.sink.errors")
                .description("Decision records the sink threw on (the caller had its answer already)").register(registry);
        String missed = "Velocity waits the deadline ended before the store answered. cause=engine_late: the "
                + "deadline timer ran more than 1 ms after it was due (this machine's CPU: the answer may have "
                + "been waiting to be read); store_slow: it ran on time and Redis had not answered";
        deadlineMissedEngineLate = Counter.builder("vigil.velocity.deadline.missed").description(missed)
                .tags("cause", "engine_late").register(registry);
        deadlineMissedStoreSlow = Counter.builder("vigil.velocity.deadline.missed").description(missed)
                .tags("cause", "store_slow").register(registry);
    }

    /** The deadline timer ran this late or later: the event loop, not Redis, is what ran late (Vert.x timers have ms resolution). */
    static final long LATE_TIMER_NANOS = 1_000_000;

    /** Whether a deadline timer due at {@code dueNanos} that ran at {@code firedNanos} ran late (the engine's doing). */
    static boolean engineLate(long dueNanos, long firedNanos) {
        return firedNanos - dueNanos > LATE_TIMER_NANOS;
    }

    void velocityDeadlineMissed(long dueNanos, long firedNanos) {
        (engineLate(dueNanos, firedNanos) ? deadlineMissedEngineLate : deadlineMissedStoreSlow).increment();
    }

    public static String endpoint(EvaluationType type) {
        return type.name().toLowerCase(Locale.ROOT);
    }

    void answered(DecisionRecord r) {
        int t = r.type().ordinal();
        latency[t][r.decision().ordinal()][r.mode().ordinal()].record(r.processingNanos(), TimeUnit.NANOSECONDS);
        if (r.errorCode() != null) {
            if (r.mode() == EngineMode.FAIL_OPEN) {
                failOpen[t][r.errorCode().ordinal()].increment();
            } else {
                degraded[t][r.errorCode().ordinal()].increment();
            }
            if (r.errorCode() == EngineErrorCode.LOAD_SHED) {
                shed[t].increment();
            }
        }
    }

    /** Why a decided request's answer was not written ({@code vigil_evaluate_unwritten_total}). */
    public enum Unwritten {
        CALLER_GONE("caller_gone"), WRITE_FAILED("write_failed");

        final String tag;

        Unwritten(String tag) {
            this.tag = tag;
        }
    }

    /** A decided request whose answer could not be written (not the hot path: a rare branch). */
    public void unwritten(EvaluationType type, Unwritten reason) {
        unwritten[type.ordinal()][reason.ordinal()].increment();
    }

    void shedForOutbox(EvaluationType type) {
        shedForOutbox[type.ordinal()].increment();
    }

    void sinkError() {
        sinkErrors.increment();
    }

    /** A request refused before evaluation (4xx). Not the hot path: looked up per call. */
    public void rejected(String endpoint, int status, String code) {
        registry.counter("vigil.evaluate.rejected", "endpoint", endpoint, "status", Integer.toString(status), "code", code)
                .increment();
    }

    private static Duration micros(long us) {
        return Duration.ofNanos(us * 1000);
    }

    private static Duration millis(long ms) {
        return Duration.ofMillis(ms);
    }
}
