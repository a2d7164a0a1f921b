package io.vigil.engine.decision;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.vertx.core.Vertx;
import io.vigil.engine.ruleset.KeyRulesets;
import io.vigil.engine.ruleset.LoadedRuleset;
import io.vigil.engine.ruleset.RulesetRegistry;
import io.vigil.rules.eval.CompiledRuleset;
import io.vigil.rules.eval.EngineErrorCode;
import io.vigil.rules.eval.EngineMode;
import io.vigil.rules.eval.Evaluation;
import io.vigil.rules.eval.EvaluationType;
import io.vigil.rules.eval.Outcome;
import io.vigil.rules.eval.VelocityFailurePolicy;
import io.vigil.rules.model.ExecutionMode;
import io.vigil.rules.txn.Field;
import io.vigil.rules.txn.Transaction;
import io.vigil.rules.velocity.Aggregate;
import io.vigil.rules.velocity.VelocityCheck;
import io.vigil.rules.velocity.VelocityRequest;
import io.vigil.rules.velocity.VelocityResults;
import io.vigil.rules.velocity.VelocityStore;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The decision path's control flow (deadline, velocity failures, evaluation errors, sink) with a
 * ruleset double whose behaviour each test sets, on a real Vert.x event loop.
 */
class DecisionPathTest {
    Vertx vertx;
    RulesetRegistry registry;
    SimpleMeterRegistry meters;
    final List<DecisionRecord> sunk = new CopyOnWriteArrayList<>();

    @BeforeEach
    void start() {
        vertx = Vertx.vertx();
        registry = new RulesetRegistry();
        meters = new SimpleMeterRegistry();
    }

    @AfterEach
    void stop() throws Exception {
        vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    DecisionPath path(VelocityStore store, long deadlineNanos, DecisionSink sink) {
        return new DecisionPath(vertx, registry, store, sink, meters,
                new DecisionPath.Settings(deadlineNanos, VelocityFailurePolicy.SKIP, 100, Outcome.APPROVE, Outcome.REVIEW));
    }

    DecisionPath path(VelocityStore store, long deadlineNanos) {
        return path(store, deadlineNanos, sunk::add);
    }

    /** Runs evaluate on an event loop, as the data routes do, and waits for the one answer. */
    DecisionRecord evaluate(DecisionPath path, String txnId) throws Exception {
        CompletableFuture<DecisionRecord> answer = new CompletableFuture<>();
        AtomicInteger replies = new AtomicInteger();
        Transaction txn = new Transaction().setText(Field.TRANSACTION_ID, txnId).setText(Field.CARD_HASH, "c-1");
        vertx.runOnContext(v -> path.evaluate(EvaluationType.AUTH, txn, null, System.nanoTime(), System.currentTimeMillis(), 0,
                r -> {
                    replies.incrementAndGet();
                    answer.complete(r);
                }));
        DecisionRecord r = answer.get(10, TimeUnit.SECONDS);
        assertThat(replies.get()).isEqualTo(1);
        return r;
    }

    /** Bounded wait for something that happens right after the answer (the sink runs after the reply). */
    static void awaitTrue(java.util.function.BooleanSupplier condition) throws InterruptedException {
        for (int i = 0; i < 500 && !condition.getAsBoolean(); i++) {
            Thread.sleep(10);
        }
        assertThat(condition.getAsBoolean()).isTrue();
    }

    void load(FakeRuleset ruleset) {
        registry.activate(new KeyRulesets("CARD_AUTH", 1,
                new LoadedRuleset("CARD_AUTH", null, ruleset, Instant.now(), "test"), Map.of()));
    }

    @Test
    void noRulesetFailsOpenWithTheDefaultDecision() throws Exception {
        DecisionRecord r = evaluate(path(VelocityStore.NONE, 5_000_000), "t1");
        assertThat(r.decision()).isEqualTo(Outcome.REVIEW); // this path's configured default
        assertThat(r.mode()).isEqualTo(EngineMode.FAIL_OPEN);
        assertThat(r.errorCode()).isEqualTo(EngineErrorCode.RULESET_NOT_LOADED);
        // the sink is offered the record after the answer went out
        awaitTrue(() -> sunk.size() == 1);
        assertThat(sunk).containsExactly(r);
        assertThat(meters.counter("vigil.engine.fail.open", "endpoint", "auth", "code", "RULESET_NOT_LOADED").count()).isEqualTo(1);
    }

    @Test
    void noTimeLeftBeforeVelocityIsDeadlineExceededAndTheStoreIsNotAsked() throws Exception {
        load(new FakeRuleset(true));
        AtomicInteger asked = new AtomicInteger();
        DecisionRecord r = evaluate(path(request -> {
            asked.incrementAndGet();
            return new CompletableFuture<>();
        }, 0), "t2");
        assertThat(r.mode()).isEqualTo(EngineMode.DEGRADED);
        assertThat(r.errorCode()).isEqualTo(EngineErrorCode.DEADLINE_EXCEEDED);
        assertThat(r.evaluation().errorCode()).isEqualTo(EngineErrorCode.VELOCITY_UNAVAILABLE);
        assertThat(asked.get()).isZero();
    }

    @Test
    void velocityThatNeverAnswersEndsAtTheDeadline() throws Exception {
        load(new FakeRuleset(true));
        DecisionRecord r = evaluate(path(request -> new CompletableFuture<>(), 20_000_000), "t3");
        assertThat(r.mode()).isEqualTo(EngineMode.DEGRADED);
        assertThat(r.errorCode()).isEqualTo(EngineErrorCode.VELOCITY_UNAVAILABLE);
        assertThat(r.decision()).isEqualTo(Outcome.APPROVE);
    }

    @Test
    void velocityAnsweredFromAnotherThreadContinuesOnTheEventLoop() throws Exception {
        load(new FakeRuleset(true));
        AtomicReference<String> decidedOn = new AtomicReference<>();
        FakeRuleset.decidedOn = decidedOn;
        VelocityStore store = request -> CompletableFuture.supplyAsync(() -> VelocityResults.of(new double[] {12}));
        DecisionRecord r = evaluate(path(store, 5_000_000_000L), "t4");
        assertThat(r.mode()).isEqualTo(EngineMode.NORMAL);
        assertThat(r.decision()).isEqualTo(Outcome.DECLINE);
        assertThat(r.velocityNanos()).isPositive();
        assertThat(decidedOn.get()).startsWith("vert.x-eventloop");
    }

    @Test
    void aStoreThatThrowsIsVelocityUnavailable() throws Exception {
        load(new FakeRuleset(true));
        DecisionRecord r = evaluate(path(request -> {
            throw new IllegalStateException("connection pool closed");
        }, 5_000_000_000L), "t5");
        assertThat(r.mode()).isEqualTo(EngineMode.DEGRADED);
        assertThat(r.errorCode()).isEqualTo(EngineErrorCode.VELOCITY_UNAVAILABLE);
    }

    @Test
    void anEvaluationErrorFailsOpenAndIsCounted() throws Exception {
        FakeRuleset broken = new FakeRuleset(false);
        broken.failPrepare = true;
        load(broken);
        DecisionRecord r = evaluate(path(VelocityStore.NONE, 5_000_000), "t6");
        assertThat(r.mode()).isEqualTo(EngineMode.FAIL_OPEN);
        assertThat(r.errorCode()).isEqualTo(EngineErrorCode.EVALUATION_ERROR);
        assertThat(r.decision()).isEqualTo(Outcome.REVIEW);
        assertThat(r.rulesetKey()).isEqualTo("CARD_AUTH");
        assertThat(meters.counter("vigil.engine.fail.open", "endpoint", "auth", "code", "EVALUATION_ERROR").count()).isEqualTo(1);
    }

    @Test
    void aFailingSinkDoesNotAffectTheAnswer() throws Exception {
        load(new FakeRuleset(false));
        DecisionRecord r = evaluate(path(VelocityStore.NONE, 5_000_000, record -> {
            throw new IllegalStateException("queue full");
        }), "t7");
        assertThat(r.mode()).isEqualTo(EngineMode.NORMAL);
        awaitTrue(() -> meters.counter("vigil.decision.sink.errors").count() == 1);
    }

    @Test
    void aReplyThatFailsStillQueuesTheDecision() throws Exception {
        load(new FakeRuleset(false));
        DecisionPath p = path(VelocityStore.NONE, 5_000_000);
        Transaction txn = new Transaction().setText(Field.TRANSACTION_ID, "t9").setText(Field.CARD_HASH, "c-1");
        vertx.runOnContext(v -> {
            try {
                p.evaluate(EvaluationType.AUTH, txn, null, System.nanoTime(), System.currentTimeMillis(), 0, r -> {
                    throw new IllegalStateException("connection closed");
                });
            } catch (IllegalStateException expected) {
                // the reply's failure reaches the route, as before
            }
        });
        awaitTrue(() -> sunk.size() == 1);
        assertThat(sunk.get(0).mode()).isEqualTo(EngineMode.NORMAL);
        assertThat(p.inFlight()).isZero();
    }

    @Test
    void inFlightIsReleasedOnEveryPath() throws Exception {
        load(new FakeRuleset(true));
        DecisionPath p = path(request -> new CompletableFuture<>(), 10_000_000);
        evaluate(p, "t8");
        assertThat(p.inFlight()).isZero();
    }

    /** One velocity rule (threshold 10) when {@code withVelocity}; decides DECLINE when the aggregate reaches it. */
    static final class FakeRuleset implements CompiledRuleset {
        static volatile AtomicReference<String> decidedOn = new AtomicReference<>();
        final boolean withVelocity;
        boolean failPrepare;

        FakeRuleset(boolean withVelocity) {
            this.withVelocity = withVelocity;
        }

        @Override public String key() { return "CARD_AUTH"; }
        @Override public int version() { return 1; }
        @Override public String checksum() { return "0".repeat(64); }
        @Override public ExecutionMode executionMode() { return ExecutionMode.FIRST_MATCH; }
        @Override public int ruleCount() { return 1; }
        @Override public VelocityFailurePolicy velocityFailurePolicy() { return null; }

        @Override
        public Pending prepare(Transaction txn, EvaluationType type) {
            if (failPrepare) {
                throw new IllegalStateException("defect in a rule");
            }
            VelocityRequest request = withVelocity ? new VelocityRequest(txn.transactionId(), List.of(new VelocityCheck(
                    "CARD_AUTH", "vel", "card_hash", "c-1", 60, Aggregate.COUNT, 0, null, 10)), false) : null;
            return new Pending() {
                @Override public VelocityRequest velocityRequest() { return request; }
                @Override public VelocityRequest readOnlyVelocityRequest() { return request; }

                @Override
                public Evaluation decide(VelocityResults results, VelocityFailurePolicy policy) {
                    decidedOn.set(Thread.currentThread().getName());
                    if (results == null) {
                        return new Evaluation(Outcome.APPROVE, EngineMode.NORMAL, null, "CARD_AUTH", 1, null, null, List.of(), List.of(), 1);
                    }
                    if (!results.available()) {
                        return new Evaluation(Outcome.APPROVE, EngineMode.DEGRADED, EngineErrorCode.VELOCITY_UNAVAILABLE,
                                "CARD_AUTH", 1, null, null, List.of(), List.of(), 1);
                    }
                    boolean exceeded = results.value(0) >= 10;
                    return new Evaluation(exceeded ? Outcome.DECLINE : Outcome.APPROVE, EngineMode.NORMAL, null, "CARD_AUTH", 1,
                            exceeded ? "vel" : null, exceeded ? "VEL" : null, List.of(), List.of(), 1);
                }
            };
        }
    }
}
