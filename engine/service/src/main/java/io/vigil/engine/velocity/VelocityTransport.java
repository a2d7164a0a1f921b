package io.vigil.engine.velocity;

import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.impl.ContextInternal;
import io.vertx.redis.client.Redis;
import io.vertx.redis.client.RedisConnection;
import io.vertx.redis.client.RedisOptions;
import io.vertx.redis.client.Request;
import io.vertx.redis.client.Response;
import io.vertx.redis.client.impl.types.ErrorType;

import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Writes velocity script calls to Redis and hands back their replies; knows nothing of what they mean.
 *
 * <p>Standalone, with lane options: each event loop has its own {@link Lane}, one connection opened
 * on that loop (by a client of its own, since a Vert.x Redis client puts all its connections on the
 * event loop it was created on). A call and its reply then stay on the requesting loop: no task handed
 * to another loop and back, and no pooled connection leased per batch: together 9–11 % of the engine's
 * CPU per decision with the one pooled client, indicative
 * (docs/adr/0021-velocity-connection-per-event-loop.md). The calls of one event-loop turn go out
 * together on the lane's connection, pipelined behind the turns still waiting for replies.
 * Without lane options (plain tests, benchmarks), and from threads that are not event loops (a
 * blocking handler: simulate, replay), calls go through the pooled client.
 *
 * <p>Cluster: one long-lived cluster connection, shared by every call. Why not {@code redis.send}
 * there: the Vert.x cluster client (4.5.x) then takes one pooled connection per node per call and
 * refreshes the slot map with another pooled connection; under concurrency every pooled connection
 * can end up held by calls waiting for that refresh, a deadlock (vert-x3/vertx-redis-client#541,
 * fixed after the Vert.x this Quarkus ships). Holding one connection leaves the pool free for the
 * refresh, and pipelines all calls anyway.
 */
final class VelocityTransport {

    private final Vertx vertx;
    private final Redis redis;
    private final boolean cluster;
    /** How to reach the standalone Redis for lanes; null: no lanes, every call through the pooled client. */
    private final RedisOptions laneOptions;
    private final Link clusterLink;
    /** One {@link Lane} per event-loop thread; the pooled client's batching where lanes are off. */
    private final ThreadLocal<Turn> turns = new ThreadLocal<>();
    /** Every lane opened, to close them. */
    private final Queue<Lane> lanes = new ConcurrentLinkedQueue<>();

    VelocityTransport(Vertx vertx, Redis redis, boolean cluster, RedisOptions laneOptions) {
        this.vertx = vertx;
        this.redis = redis;
        this.cluster = cluster;
        this.laneOptions = cluster || laneOptions == null ? null : new RedisOptions(laneOptions);
        this.clusterLink = cluster ? new Link(redis) : null;
    }

    /** Sends one call; completes with its reply, or fails (error reply, closed connection...). */
    Future<Response> send(Request request) {
        if (cluster) {
            return clusterLink.send(request);
        }
        // Only on the event loop's own thread: a blocking handler (simulate, replay) runs on a worker
        // thread whose current context is the event loop's, and a Turn shared across those threads lost
        // calls (never written, never answered: stuck in flight for good).
        Context context = Vertx.currentContext();
        if (context == null || !context.isEventLoopContext() || !Context.isOnEventLoopThread()) {
            return redis.send(request);
        }
        Turn turn = turns.get();
        if (turn == null) {
            turn = laneOptions == null ? new Turn() : openLane((ContextInternal) context);
            turns.set(turn);
        }
        return turn.add(context, request);
    }

    /**
     * This event loop's lane. Its client is created with the loop's own context current (not the
     * request's duplicated context, whose locals belong to one request), so that its connection, and
     * every reply read on it, lives on this loop.
     */
    private Turn openLane(ContextInternal context) {
        ContextInternal loop = context.unwrap();
        Redis[] client = new Redis[1];
        loop.dispatch(() -> client[0] = Redis.createClient(vertx, new RedisOptions(laneOptions)));
        if (client[0] == null) {
            return new Turn(); // the client could not be created (reported by Vert.x): this loop keeps the pool
        }
        Lane lane = new Lane(client[0]);
        lanes.add(lane);
        return lane;
    }

    /**
     * The script calls made during one turn of an event loop, written to Redis as one batch (one
     * socket write) when the turn ends: under load, concurrent requests share their system calls on
     * both sides, which costs Redis and the engine less CPU per call
     * (docs/adr/0005-velocity-running-windows.md). A batch answered with an error (Vert.x fails the
     * whole batch when one reply is an error) is sent again call by call: retries of a counted
     * transaction are answered from its marker, so nothing counts twice. This base class writes
     * through the pooled client (one pooled connection per batch).
     */
    private class Turn implements Handler<Void> {
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
                writeOne(batch.get(0)).onComplete(waiting.get(0));
                return;
            }
            writeAll(batch).onComplete(ar -> {
                if (ar.succeeded()) {
                    List<Response> answers = ar.result();
                    for (int i = 0; i < waiting.size(); i++) {
                        waiting.get(i).complete(answers.get(i));
                    }
                } else if (ar.cause() instanceof ErrorType) {
                    for (int i = 0; i < waiting.size(); i++) {
                        writeOne(batch.get(i)).onComplete(waiting.get(i));
                    }
                } else {
                    for (Promise<Response> p : waiting) {
                        p.fail(ar.cause());
                    }
                }
            });
        }

        Future<Response> writeOne(Request request) {
            return redis.send(request);
        }

        Future<List<Response>> writeAll(List<Request> batch) {
            return redis.batch(batch);
        }
    }

    /** One event loop's turns, written on its own connection ({@link Link}) instead of the pool. */
    private final class Lane extends Turn {
        private final Redis client;
        private final Link link;

        Lane(Redis client) {
            this.client = client;
            this.link = new Link(client);
        }

        @Override
        Future<Response> writeOne(Request request) {
            return link.send(request);
        }

        @Override
        Future<List<Response>> writeAll(List<Request> batch) {
            return link.batch(batch);
        }

        void close() {
            link.close();
            client.close();
        }
    }

    /**
     * One long-lived connection of {@code client}, opened on first use and again after it was lost
     * (closed, or a transport error): calls made meanwhile wait for the one connect in progress, and
     * fail with it if it fails, so a Redis that is down is seen at once by the calls, not by a pool
     * queue. Error replies leave the connection as it is.
     */
    private static final class Link {
        private final Redis client;
        private final AtomicReference<Future<RedisConnection>> connection = new AtomicReference<>();

        Link(Redis client) {
            this.client = client;
        }

        Future<Response> send(Request request) {
            return connection().compose(c -> c.send(request).onFailure(err -> lostOn(c, err)));
        }

        Future<List<Response>> batch(List<Request> batch) {
            return connection().compose(c -> c.batch(batch).onFailure(err -> lostOn(c, err)));
        }

        private Future<RedisConnection> connection() {
            while (true) {
                Future<RedisConnection> current = connection.get();
                if (current != null && !current.failed()) {
                    return current;
                }
                Promise<RedisConnection> promise = Promise.promise();
                Future<RedisConnection> next = promise.future();
                if (connection.compareAndSet(current, next)) {
                    client.connect().onComplete(ar -> {
                        if (ar.failed()) {
                            connection.compareAndSet(next, null);
                            promise.fail(ar.cause());
                            return;
                        }
                        RedisConnection opened = ar.result();
                        opened.exceptionHandler(e -> forget(opened));
                        opened.endHandler(v -> forget(opened));
                        promise.complete(opened);
                    });
                    return next;
                }
            }
        }

        /** A failure other than an error reply: the connection is in an unknown state, open another. */
        private void lostOn(RedisConnection c, Throwable err) {
            if (!(err instanceof ErrorType)) {
                forget(c);
            }
        }

        private void forget(RedisConnection c) {
            Future<RedisConnection> current = connection.get();
            if (current != null && current.succeeded() && current.result() == c
                    && connection.compareAndSet(current, null)) {
                c.close();
            }
        }

        void close() {
            Future<RedisConnection> current = connection.getAndSet(null);
            if (current != null && current.succeeded()) {
                current.result().close();
            }
        }
    }

    /** Closes the shared cluster connection and the lanes (the pooled client is closed by its owner). */
    void close() {
        if (clusterLink != null) {
            clusterLink.close();
        }
        Lane lane;
        while ((lane = lanes.poll()) != null) {
            lane.close();
        }
    }

    /** Lanes opened so far (one per event loop that sent a call): what tests check. */
    int lanes() {
        return lanes.size();
    }
}
