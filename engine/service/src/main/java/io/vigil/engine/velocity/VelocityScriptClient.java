package io.vigil.engine.velocity;

import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.redis.client.Command;
import io.vertx.redis.client.Redis;
import io.vertx.redis.client.RedisConnection;
import io.vertx.redis.client.Request;
import io.vertx.redis.client.Response;
import io.vertx.redis.client.ResponseType;
import io.vertx.redis.client.impl.types.ErrorType;
import io.vigil.rules.velocity.VelocityCheck;
import io.vigil.rules.velocity.VelocityRequest;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;

/**
 * Answers a {@link VelocityRequest} with the velocity script: non-blocking, one script call
 * (EVALSHA, falling back to EVAL on NOSCRIPT, which also caches the script on that node) per hash
 * slot group.
 *
 * <p>Key layout (docs/adr/0004-velocity-storage.md): one HASH per (dimension value, ruleset key)
 * holds every check's buckets and distinct members, so the script reads each dimension value with one
 * HGETALL and writes it with one HSET whatever the number of checks on it.
 *
 * <p>Standalone Redis: one call answers every check of the transaction. Redis Cluster: the keys of
 * one script call must live in one slot, and checks on different dimension values (card vs device)
 * hash to different slots, so the checks are grouped by velocity hash (dimension value and ruleset
 * key) and the groups' calls are sent at once (the client pipelines them over its connections): one
 * network round trip, one atomic call per slot, one idempotency marker per slot. A request mixing
 * ruleset keys (the engine never sends one) gets one call per ruleset key, so marker fields never
 * mix rulesets.
 *
 * <p>Plain class (no CDI) so that tests drive it with their own clock and Redis.
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
    private final long timeoutMillis;
    private final int bucketsPerWindow;
    private final int distinctCap;
    private final LongAdder keysTouched = new LongAdder();
    private final AtomicReference<Future<RedisConnection>> clusterConnection = new AtomicReference<>();

    /** With the default distinct cap. */
    public VelocityScriptClient(Vertx vertx, Redis redis, boolean cluster, long timeoutMillis, int bucketsPerWindow) {
        this(vertx, redis, cluster, timeoutMillis, bucketsPerWindow, DEFAULT_DISTINCT_CAP);
    }

    /**
     * @param cluster          group checks by slot (Redis Cluster) instead of one call per transaction
     * @param timeoutMillis    a call not answered by then fails with {@link TimeoutException}; the
     *                         command itself stays queued on its connection (Redis has no cancel)
     * @param bucketsPerWindow at least 10: the error bound is one bucket, a tenth of the window
     * @param distinctCap      members kept per distinct check (at least 1); a distinct count saturates there
     */
    public VelocityScriptClient(Vertx vertx, Redis redis, boolean cluster, long timeoutMillis, int bucketsPerWindow,
                                int distinctCap) {
        if (bucketsPerWindow < 10) {
            throw new IllegalArgumentException("vigil.velocity.buckets-per-window must be at least 10, got " + bucketsPerWindow);
        }
        if (distinctCap < 1) {
            throw new IllegalArgumentException("vigil.velocity.distinct-cap must be at least 1, got " + distinctCap);
        }
        this.vertx = vertx;
        this.redis = redis;
        this.cluster = cluster;
        this.timeoutMillis = timeoutMillis;
        this.bucketsPerWindow = bucketsPerWindow;
        this.distinctCap = distinctCap;
    }

    /** Bucket length of a window: a tenth (or finer) of it, at least 1 ms. */
    public long bucketMillis(long windowMillis) {
        return Math.max(1, (windowMillis + bucketsPerWindow - 1) / bucketsPerWindow);
    }

    public int distinctCap() {
        return distinctCap;
    }

    /** Keys named by script calls so far (velocity hashes and markers): the keys-touched meter. */
    public long keysTouched() {
        return keysTouched.sum();
    }

    /**
     * Runs the checks at {@code nowMillis} (the engine's clock). Completes with one value per check,
     * in the request's order, or exceptionally (Redis error, timeout, bad reply).
     */
    public CompletionStage<double[]> run(VelocityRequest request, long nowMillis) {
        List<VelocityCheck> checks = request.checks();
        int n = checks.size();
        if (n == 0) {
            return CompletableFuture.completedFuture(new double[0]);
        }
        // per check: its velocity hash, the script call it goes in, its hash's index in that call
        String[] tags = new String[n];
        String[] hashKeys = new String[n];
        int[] callOf = new int[n];
        int[] hashIndex = new int[n];
        int[] hashesInCall = new int[n];
        int calls = 0;
        for (int i = 0; i < n; i++) {
            VelocityCheck c = checks.get(i);
            tags[i] = VelocityKeys.tag(c.dimension(), c.dimensionValue());
            hashKeys[i] = VelocityKeys.velocityKey(tags[i], c.rulesetKey());
            int sameHash = -1;
            int sameCall = -1;
            for (int j = 0; j < i && sameHash < 0; j++) {
                if (hashKeys[j].equals(hashKeys[i])) {
                    sameHash = j;
                } else if (sameCall < 0 && !cluster && checks.get(j).rulesetKey().equals(c.rulesetKey())) {
                    sameCall = j;
                }
            }
            if (sameHash >= 0) {
                callOf[i] = callOf[sameHash];
                hashIndex[i] = hashIndex[sameHash];
            } else {
                callOf[i] = sameCall >= 0 ? callOf[sameCall] : calls++;
                hashIndex[i] = ++hashesInCall[callOf[i]];
            }
        }

        double[] values = new double[n];
        CompletableFuture<double[]> result = new CompletableFuture<>();
        long timer = vertx.setTimer(timeoutMillis, id -> result.completeExceptionally(
                new TimeoutException("velocity script not answered within " + timeoutMillis + " ms")));
        result.whenComplete((v, e) -> vertx.cancelTimer(timer));
        AtomicInteger pending = new AtomicInteger(calls);
        for (int g = 0; g < calls; g++) {
            Call call = new Call(request, g, callOf, hashIndex, hashesInCall[g], tags, hashKeys, nowMillis);
            keysTouched.add(1 + hashesInCall[g]);
            send(call, values, result, pending);
        }
        return result;
    }

    /** One script call: the checks of {@code request} whose {@code callOf} is {@code group}. */
    private final class Call {
        final VelocityRequest request;
        final int group;
        final int[] callOf;
        final int[] hashIndex;
        final int hashes;
        final String[] tags;
        final String[] hashKeys;
        final long now;
        int size;

        Call(VelocityRequest request, int group, int[] callOf, int[] hashIndex, int hashes, String[] tags,
             String[] hashKeys, long now) {
            this.request = request;
            this.group = group;
            this.callOf = callOf;
            this.hashIndex = hashIndex;
            this.hashes = hashes;
            this.tags = tags;
            this.hashKeys = hashKeys;
            this.now = now;
        }

        /**
         * {@code <command> <script|sha> <numkeys> marker hash... now mode markerTtl cap}, then per
         * check: hash index, aggregate, window, bucket, id, field, amount (velocity.lua's header).
         */
        Request build(Command command, String scriptOrSha) {
            List<VelocityCheck> checks = request.checks();
            int n = checks.size();
            Request r = Request.cmd(command).arg(scriptOrSha).arg(1 + hashes);
            int first = -1;
            long markerTtl = 0;
            int named = 0;
            size = 0;
            for (int i = 0; i < n; i++) {
                if (callOf[i] != group) {
                    continue;
                }
                if (first < 0) {
                    first = i;
                    r.arg(VelocityKeys.markerKey(tags[i], checks.get(i).rulesetKey(), request.transactionId()));
                }
                if (hashIndex[i] > named) { // hashes are numbered in order of first use
                    r.arg(hashKeys[i]);
                    named++;
                }
                long window = checks.get(i).windowSeconds() * 1000L;
                markerTtl = Math.max(markerTtl, window + bucketMillis(window));
                size++;
            }
            r.arg(now).arg(request.readOnly() ? "r" : "w").arg(markerTtl).arg(distinctCap);
            for (int i = 0; i < n; i++) {
                if (callOf[i] != group) {
                    continue;
                }
                VelocityCheck c = checks.get(i);
                long window = c.windowSeconds() * 1000L;
                long bucket = bucketMillis(window);
                String id = VelocityKeys.checkId(c);
                r.arg(hashIndex[i]);
                switch (c.aggregate()) {
                    case COUNT -> r.arg("c");
                    case SUM -> r.arg("s");
                    case DISTINCT -> r.arg("d");
                }
                r.arg(window).arg(bucket).arg(id);
                // the fields are named here rather than in Lua: string building is cheaper in Java
                // than in Redis' single thread
                switch (c.aggregate()) {
                    case COUNT -> r.arg(VelocityKeys.bucketField(id, now - now % bucket)).arg("");
                    // a non-finite amount would poison the bucket's sum for the whole window
                    case SUM -> r.arg(VelocityKeys.bucketField(id, now - now % bucket))
                            .arg(Double.isFinite(c.sumValue()) ? Double.toString(c.sumValue()) : "0");
                    case DISTINCT -> r.arg(c.distinctValue() == null ? "" : VelocityKeys.memberField(id, c.distinctValue()))
                            .arg("");
                }
            }
            return r;
        }
    }

    private void send(Call call, double[] values, CompletableFuture<double[]> result, AtomicInteger pending) {
        send(call.build(Command.EVALSHA, SCRIPT_SHA))
                .recover(err -> isNoScript(err)
                        ? send(call.build(Command.EVAL, SCRIPT))
                        : Future.failedFuture(err))
                .onComplete(ar -> {
                    if (ar.failed()) {
                        result.completeExceptionally(ar.cause());
                        return;
                    }
                    Response reply = ar.result();
                    int count = call.size;
                    if (reply == null || reply.size() != count) {
                        result.completeExceptionally(new VelocityReplyException(
                                "velocity script answered " + (reply == null ? "nil" : reply.size() + " values") + " for " + count + " checks", null));
                        return;
                    }
                    try {
                        int j = 0;
                        for (int i = 0; i < values.length; i++) {
                            if (call.callOf[i] == call.group) {
                                // counts come back as integers, sums and retried answers as strings
                                Response value = reply.get(j++);
                                values[i] = value.type() == ResponseType.NUMBER ? value.toLong() : Double.parseDouble(value.toString());
                            }
                        }
                    } catch (RuntimeException e) {
                        result.completeExceptionally(new VelocityReplyException("velocity script answered a non-number: " + reply, e));
                        return;
                    }
                    if (pending.decrementAndGet() == 0) {
                        result.complete(values);
                    }
                });
    }

    /**
     * Standalone: the pooled client (a pooled connection per call, pipelined up to
     * max-waiting-handlers). Cluster: one long-lived cluster connection, shared by every call. Why
     * not {@code redis.send} there: the Vert.x cluster client (4.5.x) then takes one pooled connection
     * per node per call and refreshes the slot map with another pooled connection; under concurrency
     * every pooled connection can end up held by calls waiting for that refresh, a deadlock
     * (vert-x3/vertx-redis-client#541, fixed after the Vert.x this Quarkus ships). Holding one
     * connection leaves the pool free for the refresh, and pipelines all calls anyway.
     */
    private Future<Response> send(Request request) {
        if (!cluster) {
            return redis.send(request);
        }
        return clusterConnection().compose(connection -> connection.send(request).onFailure(err -> {
            if (!(err instanceof ErrorType)) {
                forget(connection); // transport trouble: reconnect on the next call
            }
        }));
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
        long timer = vertx.setTimer(Math.max(timeoutMillis, 1000), id -> loaded.completeExceptionally(
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
