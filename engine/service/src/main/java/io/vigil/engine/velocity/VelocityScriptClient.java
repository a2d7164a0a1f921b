package io.vigil.engine.velocity;

import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.redis.client.Command;
import io.vertx.redis.client.Redis;
import io.vertx.redis.client.RedisConnection;
import io.vertx.redis.client.Request;
import io.vertx.redis.client.Response;
import io.vertx.redis.client.ResponseType;
import io.vertx.redis.client.impl.types.ErrorType;
import io.vigil.rules.velocity.Aggregate;
import io.vigil.rules.velocity.VelocityCheck;
import io.vigil.rules.velocity.VelocityRequest;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;

/**
 * Answers a {@link VelocityRequest} with velocity scripts: non-blocking, one EVALSHA per call of the
 * request's plan ({@link VelocityPlan}, built once per request shape), with the script generated for
 * that plan ({@link VelocityScripts}; the generic velocity.lua beyond the cache), sent again as EVAL
 * on NOSCRIPT.
 *
 * <p>Layout (docs/adr/0005-velocity-running-windows.md, 0006-velocity-scripts-per-plan.md): per
 * (dimension value, ruleset key) one HASH with, per count/sum check, one packed field (a running total
 * and a ring of bucket slots), and per distinct check one sorted set of members by last-seen time.
 * The script reads and writes only the fields of the checks it is asked, so its Redis work grows with
 * the number of checks, not with a card's history.
 *
 * <p>Standalone Redis: one call answers every check of the transaction, and the calls of one
 * event-loop turn are written together. Redis Cluster: the keys of one script call must live in one
 * slot, and checks on different dimension values (card vs device) hash to different slots, so the
 * plan ({@link VelocityPlan}) groups the checks by velocity hash and the groups' calls are sent at
 * once: one network round trip, one atomic call per slot, one idempotency marker per slot.
 *
 * <p>No timer of its own: the decision path's deadline bounds the wait, and the store watches for a
 * Redis that stopped answering. Plain class (no CDI) so that tests drive it with their own clock and
 * Redis.
 */
public final class VelocityScriptClient {

    /** The generic script (velocity-functions.lua + velocity.lua): plans without a generated one, and the probe. */
    public static final String SCRIPT = VelocityScripts.GENERIC;
    public static final String SCRIPT_SHA = VelocityScripts.GENERIC_SHA;
    /** Members kept per distinct check when none is configured ({@code vigil.velocity.distinct-cap}). */
    public static final int DEFAULT_DISTINCT_CAP = 1000;

    private final Vertx vertx;
    private final Redis redis;
    private final boolean cluster;
    private final int bucketsPerWindow;
    private final int distinctCap;
    private final LongAdder keysTouched = new LongAdder();
    private final VelocityScripts scripts;
    private final AtomicReference<Future<RedisConnection>> clusterConnection = new AtomicReference<>();
    /** One {@link Turn} per event-loop thread. */
    private final ThreadLocal<Turn> turns = ThreadLocal.withInitial(Turn::new);
    /** Sums are kept as integers of 1/10,000. */
    static final double SUM_SCALE = 10_000;

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
        this(vertx, redis, cluster, bucketsPerWindow, distinctCap, true);
    }

    /** A client that sends every call to the generic script (benchmarks compare it with generated scripts). */
    public static VelocityScriptClient generic(Vertx vertx, Redis redis, boolean cluster, int bucketsPerWindow,
                                               int distinctCap) {
        return new VelocityScriptClient(vertx, redis, cluster, bucketsPerWindow, distinctCap, false);
    }

    private VelocityScriptClient(Vertx vertx, Redis redis, boolean cluster, int bucketsPerWindow, int distinctCap,
                                 boolean generated) {
        if (bucketsPerWindow < 10 || bucketsPerWindow > 1000) {
            throw new IllegalArgumentException("vigil.velocity.buckets-per-window must be 10..1000, got " + bucketsPerWindow);
        }
        if (distinctCap < 1) {
            throw new IllegalArgumentException("vigil.velocity.distinct-cap must be at least 1, got " + distinctCap);
        }
        this.vertx = vertx;
        this.redis = redis;
        this.cluster = cluster;
        this.bucketsPerWindow = bucketsPerWindow;
        this.distinctCap = distinctCap;
        this.scripts = new VelocityScripts(this, cluster, generated);
    }

    /**
     * Buckets in a window: the smallest count at least {@code buckets-per-window} that divides the
     * window, so a window is always a whole number of buckets (windows are whole seconds, so with
     * the default 10 this is 10).
     */
    public int bucketsIn(long windowMillis) {
        for (int n = bucketsPerWindow; n <= 1023 && n < windowMillis; n++) {
            if (windowMillis % n == 0) {
                return n;
            }
        }
        return 1000; // not reached: windows are whole seconds, and 1000 divides every one
    }

    /** Bucket length of a window (ms). */
    public long bucketMillis(long windowMillis) {
        return windowMillis / bucketsIn(windowMillis);
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
        if (request.checks().isEmpty()) {
            return CompletableFuture.completedFuture(new double[0]);
        }
        VelocityPlan plan = scripts.plan(request);
        double[] values = new double[request.checks().size()];
        CompletableFuture<double[]> result = new CompletableFuture<>();
        int calls = plan.calls.size();
        AtomicInteger pending = calls == 1 ? null : new AtomicInteger(calls);
        for (VelocityPlan.Call call : plan.calls) {
            sendOnce(encode(request, call, nowMillis, false))
                    .recover(err -> isNoScript(err)
                            // EVAL runs it and caches it on the node that owns the keys
                            ? sendOnce(encode(request, call, nowMillis, true))
                            : Future.failedFuture(err))
                    .onComplete(ar -> {
                        if (ar.failed()) {
                            result.completeExceptionally(ar.cause());
                        } else if (answer(request, call, ar.result(), values, result)
                                && (pending == null || pending.decrementAndGet() == 0)) {
                            plan.copyRepeats(values);
                            result.complete(values);
                        }
                    });
        }
        return result;
    }

    /**
     * {@code EVALSHA sha numkeys marker (hash distinct-set...)... now mode} and the values: a generated
     * script takes only sums and members; the generic one the whole plan (velocity.lua's header).
     */
    private Request encode(VelocityRequest request, VelocityPlan.Call call, long now, boolean eval) {
        boolean generated = call.sha != null;
        Request r = Request.cmd(eval ? Command.EVAL : Command.EVALSHA)
                .arg(eval ? (generated ? call.script : SCRIPT) : (generated ? call.sha : SCRIPT_SHA))
                .arg(call.keys);
        if (!eval) {
            keysTouched.add(call.keys);
        }
        List<VelocityCheck> checks = request.checks();
        List<VelocityPlan.Group> groups = call.groups;
        String[] tags = new String[groups.size()];
        for (int g = 0; g < tags.length; g++) {
            tags[g] = groups.get(g).tag(request);
        }
        r.arg(VelocityKeys.markerKey(tags[0], groups.get(0).rulesetKey, request.transactionId()));
        for (int g = 0; g < tags.length; g++) {
            VelocityPlan.Group group = groups.get(g);
            r.arg(VelocityKeys.velocityKey(tags[g], group.rulesetKey));
            for (VelocityPlan.Check c : group.checks) {
                if (c.distinctKeySuffix != null) {
                    r.arg("veld:{" + tags[g] + c.distinctKeySuffix);
                }
            }
        }
        r.arg(now).arg(request.readOnly() ? "r" : "w");
        if (generated) {
            for (VelocityPlan.Group group : groups) {
                for (VelocityPlan.Check c : group.checks) {
                    VelocityCheck check = checks.get(c.index);
                    switch (c.aggregate) {
                        case COUNT -> {
                        }
                        case SUM -> r.arg(scaled(check.sumValue()));
                        case DISTINCT -> r.arg(check.distinctValue() == null ? "" : VelocityKeys.safeValue(check.distinctValue()));
                    }
                }
            }
            return r;
        }
        r.arg(call.markerTtl).arg(distinctCap);
        for (VelocityPlan.Group group : groups) {
            r.arg(group.checks.size()).arg(group.span);
            for (VelocityPlan.Check c : group.checks) {
                VelocityCheck check = checks.get(c.index);
                r.arg(c.id).arg(c.bucketMillis * 1024 + c.buckets);
                switch (c.aggregate) {
                    case COUNT -> r.arg("c");
                    case SUM -> r.arg("s" + scaled(check.sumValue()));
                    case DISTINCT -> r.arg(check.distinctValue() == null ? "d" : "d" + VelocityKeys.safeValue(check.distinctValue()));
                }
            }
        }
        return r;
    }

    /** Sums travel and are kept as integers of 1/10,000 (exact running totals; docs/velocity.md). */
    static long scaled(double amount) {
        // a non-finite amount would poison the running total for the whole window
        return Double.isFinite(amount) ? Math.round(amount * SUM_SCALE) : 0;
    }

    /** Copies one call's answers into {@code values}; false (and {@code result} failed) on a bad reply. */
    private static boolean answer(VelocityRequest request, VelocityPlan.Call call, Response reply, double[] values,
                                  CompletableFuture<double[]> result) {
        if (reply == null || reply.type() != ResponseType.MULTI || reply.size() != call.size) {
            result.completeExceptionally(new VelocityReplyException("velocity script answered "
                    + (reply == null ? "nil" : reply.size() + " values") + " for " + call.size + " checks", null));
            return false;
        }
        try {
            int j = 0;
            for (VelocityPlan.Group group : call.groups) {
                for (VelocityPlan.Check c : group.checks) {
                    long v = reply.get(j++).toLong();
                    values[c.index] = c.aggregate == Aggregate.SUM ? v / SUM_SCALE : v;
                }
            }
        } catch (RuntimeException e) {
            result.completeExceptionally(new VelocityReplyException("velocity script answered a non-number: " + reply, e));
            return false;
        }
        return true;
    }

    /**
     * Standalone: the calls of one event-loop turn go out together ({@link Turn}). Cluster: one
     * long-lived cluster connection, shared by every call. Why not {@code redis.send} there: the
     * Vert.x cluster client (4.5.x) then takes one pooled connection per node per call and refreshes
     * the slot map with another pooled connection; under concurrency every pooled connection can end
     * up held by calls waiting for that refresh, a deadlock (vert-x3/vertx-redis-client#541, fixed
     * after the Vert.x this Quarkus ships). Holding one connection leaves the pool free for the
     * refresh, and pipelines all calls anyway.
     */
    private Future<Response> sendOnce(Request request) {
        if (!cluster) {
            // Only on the event loop's own thread: a blocking handler (simulate, replay) runs on a worker
            // thread whose current context is the event loop's, and a Turn shared across those threads lost
            // calls (never written, never answered: stuck in flight for good).
            Context context = Vertx.currentContext();
            if (context == null || !context.isEventLoopContext() || !Context.isOnEventLoopThread()) {
                return redis.send(request);
            }
            return turns.get().add(context, request);
        }
        return clusterConnection().compose(connection -> connection.send(request).onFailure(err -> {
            if (!(err instanceof ErrorType)) {
                forget(connection); // transport trouble: reconnect on the next call
            }
        }));
    }

    /**
     * The script calls made during one turn of an event loop, written to Redis as one batch (one
     * socket write, one pooled connection) when the turn ends: under load, concurrent requests share
     * their system calls on both sides, which costs Redis and the engine less CPU per call
     * (docs/adr/0005-velocity-running-windows.md). A batch answered with an error (Vert.x fails the
     * whole batch when one reply is an error) is sent again call by call: retries of a counted
     * transaction are answered from its marker, so nothing counts twice.
     */
    private final class Turn implements Handler<Void> {
        private ArrayList<Request> requests = new ArrayList<>();
        private ArrayList<Promise<Response>> replies = new ArrayList<>();

        Future<Response> add(Context context, Request request) {
            Promise<Response> reply = Promise.promise();
            boolean first = requests.isEmpty();
            requests.add(request);
            replies.add(reply);
            if (first) {
                context.runOnContext(this);
            }
            return reply.future();
        }

        /** End of the turn: write what it gathered. */
        @Override
        public void handle(Void ignored) {
            List<Request> batch = requests;
            List<Promise<Response>> waiting = replies;
            requests = new ArrayList<>(batch.size());
            replies = new ArrayList<>(batch.size());
            if (batch.isEmpty()) {
                return;
            }
            if (batch.size() == 1) {
                redis.send(batch.get(0)).onComplete(waiting.get(0));
                return;
            }
            redis.batch(batch).onComplete(ar -> {
                if (ar.succeeded()) {
                    List<Response> answers = ar.result();
                    for (int i = 0; i < waiting.size(); i++) {
                        waiting.get(i).complete(answers.get(i));
                    }
                } else if (ar.cause() instanceof ErrorType) {
                    for (int i = 0; i < waiting.size(); i++) {
                        redis.send(batch.get(i)).onComplete(waiting.get(i));
                    }
                } else {
                    for (Promise<Response> p : waiting) {
                        p.fail(ar.cause());
                    }
                }
            });
        }
    }

    private Future<RedisConnection> clusterConnection() {
        while (true) {
            Future<RedisConnection> current = clusterConnection.get();
            if (current != null && !current.failed()) {
                return current;
            }
            Promise<RedisConnection> promise = Promise.promise();
            Future<RedisConnection> next = promise.future();
            if (clusterConnection.compareAndSet(current, next)) {
                redis.connect().onComplete(ar -> {
                    if (ar.failed()) {
                        clusterConnection.compareAndSet(next, null);
                        promise.fail(ar.cause());
                        return;
                    }
                    RedisConnection connection = ar.result();
                    connection.exceptionHandler(e -> forget(connection));
                    connection.endHandler(v -> forget(connection));
                    promise.complete(connection);
                });
                return next;
            }
        }
    }

    private void forget(RedisConnection connection) {
        Future<RedisConnection> current = clusterConnection.get();
        if (current != null && current.succeeded() && current.result() == connection
                && clusterConnection.compareAndSet(current, null)) {
            connection.close();
        }
    }

    /** Closes the shared cluster connection, if any (the pooled client is closed by its owner). */
    public void close() {
        Future<RedisConnection> current = clusterConnection.getAndSet(null);
        if (current != null && current.succeeded()) {
            current.result().close();
        }
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
