package io.vigil.engine.decision;

import io.micrometer.core.instrument.Clock;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.composite.CompositeMeterRegistry;
import io.micrometer.prometheus.PrometheusConfig;
import io.micrometer.prometheus.PrometheusMeterRegistry;
import io.vertx.core.Context;
import io.vertx.core.Handler;
import io.vertx.core.Vertx;
import io.vigil.engine.VigilConfig;
import io.vigil.engine.ruleset.LoadedRuleset;
import io.vigil.engine.ruleset.RulesetRegistry;
import io.vigil.rules.eval.CompiledRuleset;
import io.vigil.rules.eval.EngineErrorCode;
import io.vigil.rules.eval.EngineMode;
import io.vigil.rules.eval.Evaluation;
import io.vigil.rules.eval.EvaluationType;
import io.vigil.rules.eval.Outcome;
import io.vigil.rules.eval.VelocityFailurePolicy;
import io.vigil.rules.txn.Field;
import io.vigil.rules.txn.Transaction;
import io.vigil.rules.velocity.VelocityRequest;
import io.vigil.rules.velocity.VelocityResults;
import io.vigil.rules.velocity.VelocityStore;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiConsumer;
import org.jboss.logging.Logger;

/**
 * The decision path of one evaluate request, after parsing: in-flight limit → ruleset pick (country
 * partition, then global) → {@code prepare} → at most one velocity round trip bounded by what is left
 * of the deadline (a Vert.x timer, never a blocked thread) → {@code decide} → answer → sink.
 *
 * <p>Runs on the request's event loop; when the velocity store completes on another thread the rest
 * hops back onto the request's context. It never throws at the caller: an evaluation error is a
 * FAIL_OPEN answer with the policy's default decision.
 */
@ApplicationScoped
public class DecisionPath {
    private static final Logger LOG = Logger.getLogger(DecisionPath.class);
    public static final String AUTH_KEY = "CARD_AUTH";
    public static final String MONITORING_KEY = "CARD_MONITORING";

    static final VelocityResults DEADLINE_PASSED = VelocityResults.unavailable("no velocity answer within the deadline");
    static final VelocityResults NO_TIME_LEFT = VelocityResults.unavailable("deadline exceeded before the velocity call");

    /** The engine policy knobs of the decision path. */
    public record Settings(long deadlineNanos, VelocityFailurePolicy velocityFailurePolicy, int maxInFlight,
                           Outcome shedDecision, Outcome defaultDecision) {

        static Settings of(VigilConfig.Engine c) {
            return new Settings(c.deadline().toNanos(), c.velocityFailurePolicy(), c.maxInFlight(), c.shedDecision(),
                    c.defaultDecision());
        }
    }

    /** Receives the answer of one request (exactly once). */
    @FunctionalInterface
    public interface Reply {
        void send(DecisionRecord record);
    }

    private final Vertx vertx;
    private final RulesetRegistry rulesets;
    /**
     * Real and warm-up targets are chosen when a request is made and kept in it, as objects of one class
     * on both sides: the compiled decision path then holds no branch on the warm-up, and does not
     * deoptimise at the first real decision after ready (docs/adr/0029-ready-when-the-jit-is-quiet.md).
     */
    private final VelocityStore velocity;
    private final VelocityStore warmUpVelocity;
    private final DecisionSink sink;
    /** Where warm-up decisions' events go: the same code, a stream nothing relays (set by {@link #startWarmUp}). */
    private volatile DecisionSink warmUpSink = DecisionSink.NOWHERE;
    /** The sink as injected: opens and ends the warm-up's place. */
    private final DecisionSink outbox;
    private final Settings settings;
    private final AtomicInteger inFlight = new AtomicInteger();
    private final EngineMetrics metrics;
    /**
     * Where warm-up answers are recorded: the same meter classes as the exported registry's (a composite
     * over a Prometheus registry, as Quarkus builds it), so that the warm-up compiles the answer-metrics
     * code real traffic runs, but a registry nobody scrapes (docs/adr/0020-warm-up-depth.md).
     */
    private final MeterRegistry warmUpMeters = new CompositeMeterRegistry(Clock.SYSTEM,
            List.of(new PrometheusMeterRegistry(PrometheusConfig.DEFAULT)));
    private final EngineMetrics warmUpMetrics = new EngineMetrics(warmUpMeters, new AtomicInteger());
    private final AtomicLong lastErrorLog = new AtomicLong();
    /** A field updater rather than an AtomicBoolean per request: one allocation less on the hot path. */
    private static final AtomicIntegerFieldUpdater<Request> VELOCITY_DONE =
            AtomicIntegerFieldUpdater.newUpdater(Request.class, "velocityDone");

    @Inject
    public DecisionPath(Vertx vertx, RulesetRegistry rulesets, VelocityStore velocity, DecisionSink sink,
                        MeterRegistry meters, VigilConfig config) {
        this(vertx, rulesets, velocity, sink, meters, Settings.of(config.engine()));
    }

    public DecisionPath(Vertx vertx, RulesetRegistry rulesets, VelocityStore velocity, DecisionSink sink,
                        MeterRegistry meters, Settings settings) {
        this.vertx = vertx;
        this.rulesets = rulesets;
        this.velocity = velocity.forTraffic();
        this.warmUpVelocity = velocity.forWarmUp();
        this.sink = sink.traffic();
        this.outbox = sink;
        this.settings = settings;
        this.metrics = new EngineMetrics(meters, inFlight);
    }

    public EngineMetrics metrics() {
        return metrics;
    }

    /** The warm-up's answer metrics, in a registry that is never exported. */
    public EngineMetrics warmUpMetrics() {
        return warmUpMetrics;
    }

    public int inFlight() {
        return inFlight.get();
    }

    /** Warm-up answers recorded apart from the exported metrics (their own registry). */
    public long warmUpAnswersRecorded() {
        return warmUpMeters.find("vigil.evaluate").timers().stream().mapToLong(Timer::count).sum();
    }

    public static String rulesetKey(EvaluationType type) {
        return type == EvaluationType.AUTH ? AUTH_KEY : MONITORING_KEY;
    }

    /**
     * Evaluates a parsed transaction and answers through {@code reply}.
     *
     * @param callerDecision MONITORING: the decision the caller took (echoed back); AUTH: null
     * @param startNanos     {@link System#nanoTime()} when the request was first handled; the deadline counts from it
     */
    public void evaluate(EvaluationType type, Transaction txn, Outcome callerDecision, long startNanos,
                         long receivedAtMillis, long parseNanos, Reply reply) {
        Request req = new Request(type, txn, callerDecision, startNanos, receivedAtMillis, parseNanos, reply,
                metrics, sink, velocity);
        if (inFlight.incrementAndGet() > settings.maxInFlight) {
            shed(req);
            return;
        }
        if (!sink.reserve()) {
            // no room left in the outbox for this decision's event: shed before deciding, never decide and drop
            metrics.shedForOutbox(type);
            shed(req);
            return;
        }
        req.run();
    }

    /** Answers an admitted-then-refused request with the shed decision, before any rule ran. */
    private void shed(Request req) {
        inFlight.decrementAndGet();
        req.answer(req.answerOf(settings.shedDecision, EngineMode.DEGRADED, EngineErrorCode.LOAD_SHED, null, 0), false);
    }

    /** Opens the sink's warm-up place (its writer starts); before the first {@link #warm}. */
    public void startWarmUp() {
        warmUpSink = outbox.warmUp();
    }

    /**
     * Ends the warm-up's events: what is queued is written, then deleted ({@link DecisionSink#endWarmUp}).
     * Answers how many warm-up events were written.
     */
    public long endWarmUp() {
        warmUpSink = DecisionSink.NOWHERE;
        return outbox.endWarmUp();
    }

    /**
     * A warm-up decision (readiness, docs/adr/0020-warm-up-depth.md): the very path of
     * {@link #evaluate} — outbox reservation, ruleset pick, prepare, the velocity round trip with its
     * writes within the deadline, decide, the event — but apart from everything real: velocity on the
     * store's warm-up keys ({@link VelocityStore#checkWarmUp}), the event to the sink's warm-up stream
     * ({@link DecisionSink#warmUp}, nothing relays it), the answer metrics in a registry that is never
     * exported. No trace in velocity, Kafka or the SLO.
     */
    public void warm(EvaluationType type, Transaction txn, Outcome callerDecision, Reply reply) {
        long now = System.nanoTime();
        DecisionSink to = warmUpSink;
        Request req = new Request(type, txn, callerDecision, now, System.currentTimeMillis(), 0, reply,
                warmUpMetrics, to, warmUpVelocity);
        inFlight.incrementAndGet();
        if (!to.reserve()) {
            warmUpMetrics.shedForOutbox(type);
            shed(req);
            return;
        }
        req.run();
    }

    /** Per-request state; also the velocity timer's handler and the store's completion callback. */
    private final class Request implements Handler<Long>, BiConsumer<VelocityResults, Throwable> {
        final EvaluationType type;
        final Transaction txn;
        final Outcome callerDecision;
        final long start;
        final long receivedAt;
        final long parseNanos;
        final Reply reply;
        LoadedRuleset ruleset;
        CompiledRuleset.Pending pending;
        Context context;
        long velocityStart;
        long timerId = -1;
        /** When the deadline timer is due ({@link System#nanoTime()}); how late it runs tells the engine from Redis. */
        long timerDueNanos;
        /** Real or warm-up (warm-up keys, the warm-up's stream, {@link #warmUpMeters}): chosen once, see {@link DecisionPath#velocity}. */
        final EngineMetrics metrics;
        final DecisionSink sink;
        final VelocityStore velocity;
        /** 0 until the velocity wait ended (answer, failure or timer); the first to flip it decides. */
        volatile int velocityDone;

        Request(EvaluationType type, Transaction txn, Outcome callerDecision, long start, long receivedAt,
                long parseNanos, Reply reply, EngineMetrics metrics, DecisionSink sink, VelocityStore velocity) {
            this.type = type;
            this.txn = txn;
            this.callerDecision = callerDecision;
            this.start = start;
            this.receivedAt = receivedAt;
            this.parseNanos = parseNanos;
            this.reply = reply;
            this.metrics = metrics;
            this.sink = sink;
            this.velocity = velocity;
        }

        void run() {
            ruleset = rulesets.current().pick(rulesetKey(type), txn.text(Field.COUNTRY_CODE));
            if (ruleset == null) {
                answer(answerOf(settings.defaultDecision, EngineMode.FAIL_OPEN, EngineErrorCode.RULESET_NOT_LOADED, null, 0), true);
                return;
            }
            VelocityRequest velocityRequest;
            try {
                pending = ruleset.compiled().prepare(txn, type);
                velocityRequest = pending.velocityRequest();
            } catch (RuntimeException e) {
                evaluationFailed(e);
                return;
            }
            if (velocityRequest == null) {
                decide(null, 0, null);
                return;
            }
            long remaining = settings.deadlineNanos - (System.nanoTime() - start);
            if (remaining <= 0) {
                decide(NO_TIME_LEFT, 0, EngineErrorCode.DEADLINE_EXCEEDED);
                return;
            }
            askVelocity(velocityRequest, remaining);
        }

        private void askVelocity(VelocityRequest velocityRequest, long remainingNanos) {
            context = Vertx.currentContext();
            velocityStart = System.nanoTime();
            CompletionStage<VelocityResults> stage;
            try {
                stage = velocity.check(velocityRequest);
            } catch (RuntimeException e) {
                stage = CompletableFuture.failedFuture(e);
            }
            if (stage instanceof CompletableFuture<VelocityResults> done && done.isDone()) {
                // Answered synchronously (e.g. no store configured): no timer needed.
                velocityDone = 1;
                VelocityResults results;
                try {
                    results = done.getNow(null);
                } catch (RuntimeException e) {
                    results = unavailable(e);
                }
                decide(results == null ? unavailable(null) : results, System.nanoTime() - velocityStart, null);
                return;
            }
            // Vert.x timers have millisecond resolution: round the remaining budget up.
            long delayMillis = Math.max(1, (remainingNanos + 999_999) / 1_000_000);
            timerDueNanos = velocityStart + delayMillis * 1_000_000;
            timerId = vertx.setTimer(delayMillis, this);
            stage.whenComplete(this);
        }

        /** The deadline timer fired before the store answered. */
        @Override
        public void handle(Long timer) {
            if (VELOCITY_DONE.compareAndSet(this, 0, 1)) {
                long now = System.nanoTime();
                metrics.velocityDeadlineMissed(timerDueNanos, now);
                decide(DEADLINE_PASSED, now - velocityStart, null);
            }
        }

        /** The store answered (on whatever thread its client completes). */
        @Override
        public void accept(VelocityResults results, Throwable failure) {
            if (!VELOCITY_DONE.compareAndSet(this, 0, 1)) {
                return; // the deadline already answered
            }
            vertx.cancelTimer(timerId);
            long velocityNanos = System.nanoTime() - velocityStart;
            VelocityResults r = failure != null || results == null ? unavailable(failure) : results;
            if (context == null || Vertx.currentContext() == context) {
                decide(r, velocityNanos, null);
            } else {
                context.runOnContext(v -> decide(r, velocityNanos, null));
            }
        }

        private void decide(VelocityResults results, long velocityNanos, EngineErrorCode override) {
            Evaluation e;
            try {
                e = pending.decide(results, settings.velocityFailurePolicy);
            } catch (RuntimeException ex) {
                evaluationFailed(ex);
                return;
            }
            Outcome decision = type == EvaluationType.MONITORING ? callerDecision : e.decision();
            EngineMode mode = override == null ? e.mode() : EngineMode.DEGRADED;
            EngineErrorCode code = override == null ? e.errorCode() : override;
            answer(new DecisionRecord(DecisionIds.next(), type, txn, decision, mode, code, ruleset.key(),
                    ruleset.version(), e, receivedAt, parseNanos, velocityNanos, System.nanoTime() - start), true);
        }

        private void evaluationFailed(RuntimeException e) {
            long now = System.currentTimeMillis();
            long last = lastErrorLog.get();
            if (now - last >= 1000 && lastErrorLog.compareAndSet(last, now)) { // at most one stack trace a second
                LOG.errorf(e, "evaluation of transaction %s against %s v%d failed; answering %s / FAIL_OPEN",
                        txn.transactionId(), ruleset.key(), ruleset.version(), settings.defaultDecision);
            }
            answer(answerOf(settings.defaultDecision, EngineMode.FAIL_OPEN, EngineErrorCode.EVALUATION_ERROR,
                    ruleset.key(), ruleset.version()), true);
        }

        DecisionRecord answerOf(Outcome policyDecision, EngineMode mode, EngineErrorCode code, String key, int version) {
            Outcome decision = type == EvaluationType.MONITORING ? callerDecision : policyDecision;
            return new DecisionRecord(DecisionIds.next(), type, txn, decision, mode, code, key, version, null,
                    receivedAt, parseNanos, 0, System.nanoTime() - start);
        }

        /** {@code admitted}: the request passed admission (in flight, its outbox place reserved). */
        void answer(DecisionRecord record, boolean admitted) {
            if (admitted) {
                inFlight.decrementAndGet();
            }
            try {
                metrics.answered(record);
                reply.send(record);
            } catch (RuntimeException e) {
                // thrown inside the velocity store's completion (CompletableFuture.whenComplete) it would
                // vanish without a trace, and the request stay unanswered without a word
                metrics.unwritten(type, EngineMetrics.Unwritten.WRITE_FAILED);
                long now = System.currentTimeMillis();
                long last = lastErrorLog.get();
                if (now - last >= 1000 && lastErrorLog.compareAndSet(last, now)) {
                    LOG.errorf(e, "the answer to %s (transaction %s) could not be sent", type, txn.transactionId());
                }
            } finally {
                // even when the reply failed (the caller may still have the answer): the reserved place
                // is used, or it would be lost to the queue for good
                queue(record, admitted);
            }
        }

        private void queue(DecisionRecord record, boolean admitted) {
            try {
                if (admitted) {
                    sink.offerReserved(record);
                } else {
                    sink.offer(record);
                }
            } catch (RuntimeException e) {
                metrics.sinkError();
                LOG.debugf(e, "decision sink refused %s", record.decisionId());
            }
        }
    }

    private static VelocityResults unavailable(Throwable failure) {
        return VelocityResults.unavailable(failure == null ? "velocity store gave no answer"
                : "velocity store failed: " + failure);
    }
}
