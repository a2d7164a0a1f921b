package io.vigil.engine.velocity;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.redis.client.Command;
import io.vertx.redis.client.Redis;
import io.vertx.redis.client.RedisOptions;
import io.vertx.redis.client.Request;
import io.vigil.rules.velocity.DistinctCap;
import io.vigil.rules.velocity.VelocityRequest;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

/**
 * Answers a {@link VelocityRequest} with velocity scripts: non-blocking, one EVALSHA per call of the
 * request's plan, sent again as EVAL on NOSCRIPT. It composes four parts with one job each:
 * <ul>
 * <li>{@link VelocityPlans}: the plan of each request shape ({@link VelocityPlan}: checks grouped by
 * velocity hash, groups into calls, cut into buckets by the {@link BucketLayout}), built once with its
 * generated scripts ({@link VelocityScripts}) and immutable after;</li>
 * <li>{@link VelocityCodec}: a call's arguments from the request's values, and its answers back;</li>
 * <li>{@link VelocityTransport}: writes the calls (batched per event-loop turn on that loop's own
 * connection, or on the cluster connection) and hands back the replies;</li>
 * <li>this class: one request's calls, the NOSCRIPT retry, the answers put together.</li>
 * </ul>
 *
 * <p>Layout (docs/velocity.md, docs/adr/0006-velocity-scripts-per-plan.md): per (dimension value,
 * ruleset key) one HASH with, per count/sum check, one packed field (a running total and a ring of
 * bucket slots), and per distinct check one sorted set of members by last-seen time. The script reads
 * and writes only the fields of the checks it is asked, so its Redis work grows with the number of
 * checks, not with a card's history. Standalone Redis: one call answers every check of the
 * transaction. Redis Cluster: one call per dimension value (a call's keys must share a slot), all sent
 * at once: one network round trip, one atomic call per slot, one idempotency marker per slot.
 *
 * <p>No timer of its own: the decision path's deadline bounds the wait, and the store watches for a
 * Redis that stopped answering. Plain class (no CDI) so that tests drive it with their own clock and
 * Redis.
 */
public final class VelocityScriptClient {

    /** The generic script (velocity-functions.lua + velocity.lua): plans without a generated one, and the probe. */
    public static final String SCRIPT = VelocityScripts.GENERIC.text();
    public static final String SCRIPT_SHA = VelocityScripts.GENERIC.sha();
    /** Members kept per distinct check when none is configured ({@code vigil.velocity.distinct-cap}). */
    public static final int DEFAULT_DISTINCT_CAP = DistinctCap.DEFAULT;

    private final Vertx vertx;
    private final BucketLayout buckets;
    private final int distinctCap;
    private final VelocityPlans plans;
    private final VelocityCodec codec;
    private final VelocityTransport transport;
    private final LongAdder keysTouched = new LongAdder();

    /** With the default distinct cap. */
    public VelocityScriptClient(Vertx vertx, Redis redis, boolean cluster, int bucketsPerWindow) {
        this(vertx, redis, cluster, bucketsPerWindow, DEFAULT_DISTINCT_CAP);
    }

    /**
     * @param cluster          group checks by slot (Redis Cluster) instead of one call per transaction
     * @param bucketsPerWindow at least 10: the error bound is one bucket, a tenth of the window
     * @param distinctCap      members kept per distinct check (at least 1); a distinct count saturates there
     */
    public VelocityScriptClient(Vertx vertx, Redis redis, boolean cluster, int bucketsPerWindow, int distinctCap) {
        this(vertx, redis, cluster, bucketsPerWindow, distinctCap, true, null, null);
    }

    /**
     * A client whose calls made on an event loop go out on that loop's own connection to the standalone
     * Redis {@code laneOptions} describe (the pooled client's options; ignored for a cluster): what the
     * engine runs (docs/adr/0021-velocity-connection-per-event-loop.md).
     */
    public static VelocityScriptClient withLanes(Vertx vertx, Redis redis, boolean cluster, int bucketsPerWindow,
                                                 int distinctCap, RedisOptions laneOptions) {
        return withLanes(vertx, redis, cluster, bucketsPerWindow, distinctCap, laneOptions, null);
    }

    /**
     * As {@link #withLanes(Vertx, Redis, boolean, int, int, RedisOptions)}, a transaction's answers kept
     * for its retries for at most {@code idempotencyWindow} (null: as long as its longest window). A
     * retry after it is counted again (docs/velocity.md, "Idempotency").
     */
    public static VelocityScriptClient withLanes(Vertx vertx, Redis redis, boolean cluster, int bucketsPerWindow,
                                                 int distinctCap, RedisOptions laneOptions, Duration idempotencyWindow) {
        return new VelocityScriptClient(vertx, redis, cluster, bucketsPerWindow, distinctCap, true, laneOptions,
                idempotencyWindow);
    }

    /** A client that sends every call to the generic script (benchmarks compare it with generated scripts). */
    public static VelocityScriptClient generic(Vertx vertx, Redis redis, boolean cluster, int bucketsPerWindow,
                                               int distinctCap) {
        return new VelocityScriptClient(vertx, redis, cluster, bucketsPerWindow, distinctCap, false, null, null);
    }

    private VelocityScriptClient(Vertx vertx, Redis redis, boolean cluster, int bucketsPerWindow, int distinctCap,
                                 boolean generated, RedisOptions laneOptions, Duration idempotencyWindow) {
        DistinctCap.requireValid(distinctCap);
        if (idempotencyWindow != null && idempotencyWindow.toMillis() < 1) {
            throw new IllegalArgumentException("vigil.velocity.idempotency-window must be at least 1ms, was " + idempotencyWindow);
        }
        this.vertx = vertx;
        this.buckets = new BucketLayout(bucketsPerWindow);
        this.distinctCap = distinctCap;
        this.plans = new VelocityPlans(buckets, cluster, distinctCap, generated,
                idempotencyWindow == null ? 0 : idempotencyWindow.toMillis());
        this.codec = new VelocityCodec(distinctCap);
        this.transport = new VelocityTransport(vertx, redis, cluster, laneOptions);
    }

    /** How windows are cut into buckets. */
    public BucketLayout buckets() {
        return buckets;
    }

    public int distinctCap() {
        return distinctCap;
    }

    /** Keys named by script calls so far (velocity hashes, distinct sets and markers): the keys-touched meter. */
    public long keysTouched() {
        return keysTouched.sum();
    }

    /**
     * Runs the checks at {@code nowMillis} (the engine's clock). Completes with one value per check,
     * in the request's order, or exceptionally (Redis error, bad reply). It has no timer of its own:
     * the caller's deadline bounds the wait.
     */
    public CompletionStage<double[]> run(VelocityRequest request, long nowMillis) {
        return run(request, nowMillis, null);
    }

    /**
     * {@link #run(VelocityRequest, long)} on the warm-up's stand-ins of the keys ({@code warmUp}; null:
     * the real keys): the same scripts, encoding and replies, on keys no real transaction reads.
     */
    public CompletionStage<double[]> run(VelocityRequest request, long nowMillis, WarmUpKeys warmUp) {
        if (request.checks().isEmpty()) {
            return CompletableFuture.completedFuture(new double[0]);
        }
        VelocityPlan plan = plans.plan(request);
        double[] values = new double[request.checks().size()];
        CompletableFuture<double[]> result = new CompletableFuture<>();
        int calls = plan.calls.size();
        AtomicInteger pending = calls == 1 ? null : new AtomicInteger(calls);
        for (VelocityPlan.Call call : plan.calls) {
            keysTouched.add(call.keys);
            transport.send(codec.encode(request, call, nowMillis, false, warmUp))
                    .recover(err -> isNoScript(err)
                            // EVAL runs it and caches it on the node that owns the keys
                            ? transport.send(codec.encode(request, call, nowMillis, true, warmUp))
                            : Future.failedFuture(err))
                    .onComplete(ar -> {
                        if (ar.failed()) {
                            result.completeExceptionally(ar.cause());
                            return;
                        }
                        try {
                            VelocityCodec.decode(call, ar.result(), values);
                        } catch (VelocityReplyException e) {
                            result.completeExceptionally(e);
                            return;
                        }
                        if (pending == null || pending.decrementAndGet() == 0) {
                            plan.copyRepeats(values);
                            result.complete(values);
                        }
                    });
        }
        return result;
    }

    /** Event loops with a connection of their own so far (0 without lanes). */
    public int lanes() {
        return transport.lanes();
    }

    /** Closes the shared cluster connection and the event loops' connections (the pooled client is closed by its owner). */
    public void close() {
        transport.close();
    }

    static boolean isNoScript(Throwable err) {
        String message = err.getMessage();
        return message != null && message.startsWith("NOSCRIPT");
    }

    /** SCRIPT LOAD on one node: a cheap "is Redis there" probe that also warms the script cache. */
    public CompletionStage<String> loadScript(Redis target) {
        CompletableFuture<String> loaded = new CompletableFuture<>();
        long timer = vertx.setTimer(1000, id -> loaded.completeExceptionally(
                new TimeoutException("SCRIPT LOAD not answered")));
        target.send(Request.cmd(Command.SCRIPT).arg("LOAD").arg(SCRIPT)).onComplete(ar -> {
            vertx.cancelTimer(timer);
            if (ar.succeeded()) {
                loaded.complete(ar.result().toString());
            } else {
                loaded.completeExceptionally(ar.cause());
            }
        });
        return loaded;
    }
}
