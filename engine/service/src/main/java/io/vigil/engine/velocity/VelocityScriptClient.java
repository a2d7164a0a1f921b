package io.vigil.engine.velocity;

import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.redis.client.Command;
import io.vertx.redis.client.Redis;
import io.vertx.redis.client.RedisConnection;
import io.vertx.redis.client.Request;
import io.vertx.redis.client.Response;
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
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
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
 * <p>Standalone Redis: one call answers every check of the transaction. Redis Cluster: the keys of
 * one script call must live in one slot, and checks on different dimension values (card vs device)
 * hash to different slots, so the checks are grouped by hash tag and the groups' calls are sent at
 * once (the client pipelines them over its connections): one network round trip, one atomic call per
 * slot, one idempotency marker per slot.
 *
 * <p>Plain class (no CDI) so that tests drive it with their own clock and Redis.
 */
public final class VelocityScriptClient {

    /** The Lua source, shipped as a resource next to this class. */
    public static final String SCRIPT = loadScript();
    public static final String SCRIPT_SHA = sha1(SCRIPT);

    private final Vertx vertx;
    private final Redis redis;
    private final boolean cluster;
    private final long timeoutMillis;
    private final int bucketsPerWindow;
    private final LongAdder keysTouched = new LongAdder();
    private final AtomicReference<Future<RedisConnection>> clusterConnection = new AtomicReference<>();

    /**
     * @param cluster          group checks by slot (Redis Cluster) instead of one call per transaction
     * @param timeoutMillis    a call not answered by then fails with {@link TimeoutException}; the
     *                         command itself stays queued on its connection (Redis has no cancel)
     * @param bucketsPerWindow at least 10: the error bound is one bucket, a tenth of the window
     */
    public VelocityScriptClient(Vertx vertx, Redis redis, boolean cluster, long timeoutMillis, int bucketsPerWindow) {
        if (bucketsPerWindow < 10) {
            throw new IllegalArgumentException("vigil.velocity.buckets-per-window must be at least 10, got " + bucketsPerWindow);
        }
        this.vertx = vertx;
        this.redis = redis;
        this.cluster = cluster;
        this.timeoutMillis = timeoutMillis;
        this.bucketsPerWindow = bucketsPerWindow;
    }

    /** Bucket length of a window: a tenth (or finer) of it, at least 1 ms. */
    public long bucketMillis(long windowMillis) {
        return Math.max(1, (windowMillis + bucketsPerWindow - 1) / bucketsPerWindow);
    }

    /** Keys read or written so far (windows, HLL buckets, markers): the keys-touched meter. */
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
        double[] values = new double[n];
        CompletableFuture<double[]> result = new CompletableFuture<>();
        long timer = vertx.setTimer(timeoutMillis, id -> result.completeExceptionally(
                new TimeoutException("velocity script not answered within " + timeoutMillis + " ms")));
        result.whenComplete((v, e) -> vertx.cancelTimer(timer));

        if (!cluster) {
            int[] all = new int[n];
            for (int i = 0; i < n; i++) {
                all[i] = i;
            }
            send(request, all, nowMillis, values, result, new AtomicInteger(1));
            return result;
        }
        Map<String, List<Integer>> groups = new LinkedHashMap<>();
        for (int i = 0; i < n; i++) {
            VelocityCheck c = checks.get(i);
            groups.computeIfAbsent(VelocityKeys.tag(c.dimension(), c.dimensionValue()), t -> new ArrayList<>(n)).add(i);
        }
        AtomicInteger pending = new AtomicInteger(groups.size());
        for (List<Integer> group : groups.values()) {
            int[] indices = new int[group.size()];
            for (int j = 0; j < indices.length; j++) {
                indices[j] = group.get(j);
            }
            send(request, indices, nowMillis, values, result, pending);
        }
        return result;
    }

    private void send(VelocityRequest request, int[] indices, long nowMillis, double[] values,
                      CompletableFuture<double[]> result, AtomicInteger pending) {
        List<VelocityCheck> checks = request.checks();
        int count = indices.length;
        String[] keys = new String[count + 1];
        String[] argv = new String[3 + 5 * count];
        long markerTtl = 0;
        int touched = keys.length;
        String markerTag = null;
        String markerRuleset = null;
        for (int j = 0; j < count; j++) {
            VelocityCheck c = checks.get(indices[j]);
            String tag = VelocityKeys.tag(c.dimension(), c.dimensionValue());
            if (markerTag == null) {
                markerTag = tag;
                markerRuleset = c.rulesetKey();
            }
            String id = VelocityKeys.checkId(c);
            long window = c.windowSeconds() * 1000L;
            long bucket = bucketMillis(window);
            keys[j + 1] = VelocityKeys.windowKey(tag, id);
            int a = 3 + 5 * j;
            argv[a] = switch (c.aggregate()) {
                case COUNT -> "c";
                case SUM -> "s";
                case DISTINCT -> "d";
            };
            argv[a + 1] = Long.toString(window);
            argv[a + 2] = Long.toString(bucket);
            argv[a + 3] = switch (c.aggregate()) {
                case COUNT -> "";
                // a non-finite amount would make HINCRBYFLOAT fail half-way through the script
                case SUM -> Double.isFinite(c.sumValue()) ? Double.toString(c.sumValue()) : "0";
                case DISTINCT -> c.distinctValue() == null ? "" : c.distinctValue();
            };
            argv[a + 4] = id;
            if (c.aggregate() == Aggregate.DISTINCT) {
                touched += (int) (window / bucket); // the window's other HLL buckets
            }
            markerTtl = Math.max(markerTtl, window + bucket);
        }
        keys[0] = VelocityKeys.markerKey(markerTag, markerRuleset, request.transactionId());
        argv[0] = Long.toString(nowMillis);
        argv[1] = request.readOnly() ? "r" : "w";
        argv[2] = Long.toString(markerTtl);
        keysTouched.add(touched);

        send(script(Command.EVALSHA, SCRIPT_SHA, keys, argv))
                .recover(err -> isNoScript(err)
                        ? send(script(Command.EVAL, SCRIPT, keys, argv))
                        : Future.failedFuture(err))
                .onComplete(ar -> {
                    if (ar.failed()) {
                        result.completeExceptionally(ar.cause());
                        return;
                    }
                    Response reply = ar.result();
                    if (reply == null || reply.size() != count) {
                        result.completeExceptionally(new VelocityReplyException(
                                "velocity script answered " + (reply == null ? "nil" : reply.size() + " values") + " for " + count + " checks", null));
                        return;
                    }
                    try {
                        for (int j = 0; j < count; j++) {
                            values[indices[j]] = Double.parseDouble(reply.get(j).toString());
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

    private static Request script(Command command, String scriptOrSha, String[] keys, String[] argv) {
        Request request = Request.cmd(command).arg(scriptOrSha).arg(keys.length);
        for (String key : keys) {
            request.arg(key);
        }
        for (String arg : argv) {
            request.arg(arg);
        }
        return request;
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
