package io.vigil.engine.velocity;

import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.redis.client.Redis;
import io.vertx.redis.client.RedisConnection;
import io.vertx.redis.client.Request;
import io.vertx.redis.client.Response;
import io.vertx.redis.client.impl.types.ErrorType;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Writes velocity script calls to Redis and hands back their replies; knows nothing of what they mean.
 *
 * <p>Standalone: the calls of one event-loop turn go out together ({@link Turn}). Cluster: one
 * long-lived cluster connection, shared by every call. Why not {@code redis.send} there: the
 * Vert.x cluster client (4.5.x) then takes one pooled connection per node per call and refreshes
 * the slot map with another pooled connection; under concurrency every pooled connection can end
 * up held by calls waiting for that refresh, a deadlock (vert-x3/vertx-redis-client#541, fixed
 * after the Vert.x this Quarkus ships). Holding one connection leaves the pool free for the
 * refresh, and pipelines all calls anyway.
 */
final class VelocityTransport {

    private final Redis redis;
    private final boolean cluster;
    private final AtomicReference<Future<RedisConnection>> clusterConnection = new AtomicReference<>();
    /** One {@link Turn} per event-loop thread. */
    private final ThreadLocal<Turn> turns = ThreadLocal.withInitial(Turn::new);

    VelocityTransport(Redis redis, boolean cluster) {
        this.redis = redis;
        this.cluster = cluster;
    }

    /** Sends one call; completes with its reply, or fails (error reply, closed connection...). */
    Future<Response> send(Request request) {
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
    void close() {
        Future<RedisConnection> current = clusterConnection.getAndSet(null);
        if (current != null && current.succeeded()) {
            current.result().close();
        }
    }
}
