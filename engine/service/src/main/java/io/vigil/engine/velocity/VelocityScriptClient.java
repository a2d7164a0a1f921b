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

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;

/**
 * Answers a {@link VelocityRequest} with the velocity script (velocity.lua): non-blocking, one
 * EVALSHA per call, the script loaded again on NOSCRIPT.
 *
 * <p>Layout (docs/adr/0005-velocity-running-windows.md): per (dimension value, ruleset key) one HASH
 * with, per count/sum check, a running total and a ring of bucket slots, and per distinct check one
 * sorted set of members by last-seen time. The script reads and writes only the fields of the checks
 * it is asked, so its Redis work grows with the number of checks, not with a card's history.
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

    /** The Lua source, shipped as a resource next to this class. */
    public static final String SCRIPT = loadScript();
    public static final String SCRIPT_SHA = sha1(SCRIPT);
    /** Members kept per distinct check when none is configured ({@code vigil.velocity.distinct-cap}). */
    public static final int DEFAULT_DISTINCT_CAP = 1000;

    private final Vertx vertx;
    private final Redis redis;
    private final boolean cluster;
    private final int bucketsPerWindow;
    private final int distinctCap;
    private final LongAdder keysTouched = new LongAdder();
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
        VelocityPlan plan = VelocityPlan.of(request, cluster);
        if (plan.calls() == 0) {
            return CompletableFuture.completedFuture(new double[0]);
        }
        double[] values = new double[request.checks().size()];
        CompletableFuture<double[]> result = new CompletableFuture<>();
        AtomicInteger pending = plan.calls() == 1 ? null : new AtomicInteger(plan.calls());
        for (int call = 0; call < plan.calls(); call++) {
            int callIndex = call;
            sendOnce(encode(plan, call, nowMillis, Command.EVALSHA, SCRIPT_SHA))
                    .recover(err -> isNoScript(err)
                            // EVAL runs it and caches it on the node that owns the keys
                            ? sendOnce(encode(plan, callIndex, nowMillis, Command.EVAL, SCRIPT))
                            : Future.failedFuture(err))
                    .onComplete(ar -> {
                        if (ar.failed()) {
                            result.completeExceptionally(ar.cause());
                        } else if (answer(plan, callIndex, ar.result(), values, result)
                                && (pending == null || pending.decrementAndGet() == 0)) {
                            result.complete(values);
                        }
                    });
        }
        return result;
    }

    /**
     * {@code EVALSHA sha numkeys marker (hash distinct-set...)... now mode markerTtl cap}, then per
     * group: checks, span; per check: short id, bucket ms * 1024 + buckets, value (velocity.lua's header).
     */
    private Request encode(VelocityPlan plan, int call, long now, Command command, String scriptOrSha) {
        VelocityRequest request = plan.request();
        List<VelocityCheck> checks = request.checks();
        int first = plan.firstGroup(call);
        int last = plan.lastGroup(call);
        int keys = 1;
        long markerTtl = 0;
        for (int g = first; g < last; g++) {
            VelocityPlan.Group group = plan.group(g);
            keys += 1 + group.distincts;
            markerTtl = Math.max(markerTtl, group.span(this, checks));
        }
        if (command == Command.EVALSHA) {
            keysTouched.add(keys);
        }
        Request r = Request.cmd(command).arg(scriptOrSha).arg(keys);
        VelocityPlan.Group head = plan.group(first);
        r.arg(VelocityKeys.markerKey(head.tag, head.rulesetKey, request.transactionId()));
        for (int g = first; g < last; g++) {
            VelocityPlan.Group group = plan.group(g);
            r.arg(group.hashKey);
            for (int k = 0; k < group.size; k++) {
                VelocityCheck c = checks.get(group.checks[k]);
                if (c.aggregate() == Aggregate.DISTINCT) {
                    r.arg(VelocityKeys.distinctKey(group.tag, group.rulesetKey, group.ids[k]));
                }
            }
        }
        r.arg(now).arg(request.readOnly() ? "r" : "w").arg(markerTtl).arg(distinctCap);
        for (int g = first; g < last; g++) {
            VelocityPlan.Group group = plan.group(g);
            r.arg(group.size).arg(group.span(this, checks));
            for (int k = 0; k < group.size; k++) {
                VelocityCheck c = checks.get(group.checks[k]);
                long window = c.windowSeconds() * 1000L;
                int n = bucketsIn(window);
                r.arg(group.ids[k]).arg((window / n) * 1024 + n);
                switch (c.aggregate()) {
                    case COUNT -> r.arg("c");
                    case SUM -> r.arg("s" + scaled(c.sumValue()));
                    case DISTINCT -> r.arg(c.distinctValue() == null ? "d" : "d" + VelocityKeys.safeValue(c.distinctValue()));
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
    private static boolean answer(VelocityPlan plan, int call, Response reply, double[] values,
                                  CompletableFuture<double[]> result) {
        List<VelocityCheck> checks = plan.request().checks();
        int expected = plan.checksIn(call);
        if (reply == null || reply.type() != ResponseType.MULTI || reply.size() != expected) {
            result.completeExceptionally(new VelocityReplyException("velocity script answered "
                    + (reply == null ? "nil" : reply.size() + " values") + " for " + expected + " checks", null));
            return false;
        }
        try {
            int j = 0;
            for (int g = plan.firstGroup(call); g < plan.lastGroup(call); g++) {
                VelocityPlan.Group group = plan.group(g);
                for (int k = 0; k < group.size; k++) {
                    long v = reply.get(j++).toLong();
                    int i = group.checks[k];
                    values[i] = checks.get(i).aggregate() == Aggregate.SUM ? v / SUM_SCALE : v;
                }
            }
        } catch (RuntimeException e) {
            result.completeExceptionally(new VelocityReplyException("velocity script answered a non-number: " + reply, e));
            return false;
        }
        plan.copyDuplicates(values);
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
            Context context = Vertx.currentContext();
            if (context == null || !context.isEventLoopContext()) {
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
            if (requests.isEmpty()) {
                context.runOnContext(this);
            }
            requests.add(request);
            replies.add(reply);
            return reply.future();
        }

        /** End of the turn: write what it gathered. */
        @Override
        public void handle(Void ignored) {
            List<Request> batch = requests;
            List<Promise<Response>> waiting = replies;
            requests = new ArrayList<>(batch.size());
            replies = new ArrayList<>(batch.size());
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

    private static String loadScript() {
        try (InputStream in = VelocityScriptClient.class.getResourceAsStream("velocity.lua")) {
            if (in == null) {
                throw new IllegalStateException("velocity.lua missing from the classpath");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String sha1(String text) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-1").digest(text.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
