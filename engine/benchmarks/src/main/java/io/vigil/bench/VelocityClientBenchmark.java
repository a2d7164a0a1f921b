package io.vigil.bench;

import io.vertx.core.Vertx;
import io.vertx.redis.client.Redis;
import io.vertx.redis.client.RedisOptions;
import io.vigil.engine.velocity.VelocityScriptClient;
import io.vigil.rules.velocity.Aggregate;
import io.vigil.rules.velocity.VelocityCheck;
import io.vigil.rules.velocity.VelocityRequest;
import io.vigil.testing.redis.RedisServer;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * The engine's velocity client ({@link VelocityScriptClient}: plan, arguments, batching, answers)
 * against a real redis-server on loopback, as the decision path calls it: one transaction asking 3
 * velocity rules of one card (count 5 min, sum 1 h, distinct 1 h), {@value #IN_FLIGHT} transactions
 * in flight per operation so the client's own work (one event-loop turn's calls written as one batch)
 * shows beside the round trip. One operation = one transaction. Redis does most of the work: compare
 * runs of the same session (A/B), and read {@code gc.alloc.rate.norm} (bytes allocated per
 * transaction in this JVM, client and Vert.x), which a busy machine does not move.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class VelocityClientBenchmark {
    static final int IN_FLIGHT = 32;
    static final int CARDS = 1_000;

    private RedisServer server;
    private Vertx vertx;
    private Redis redis;
    private VelocityScriptClient client;
    private List<List<VelocityCheck>> checks;
    private final CompletableFuture<?>[] inFlight = new CompletableFuture<?>[IN_FLIGHT];
    private int next;
    private long ids;

    @Setup(Level.Trial)
    public void setup() {
        server = RedisServer.builder().arg("--maxmemory-policy", "noeviction").start();
        vertx = Vertx.vertx();
        redis = Redis.createClient(vertx, new RedisOptions().setConnectionString(server.uri())
                .setMaxPoolSize(16).setMaxPoolWaiting(4096).setMaxWaitingHandlers(4096));
        client = new VelocityScriptClient(vertx, redis, false, 10);
        // Built up front: the benchmark measures the client, not the making of the checks.
        List<List<VelocityCheck>> all = new java.util.ArrayList<>();
        for (int i = 0; i < 4096; i++) {
            String card = "bench-card-" + (i % CARDS);
            all.add(List.of(
                    new VelocityCheck("CARD_AUTH", "card-5m-count", "card_hash", card, 300, Aggregate.COUNT, 0, null, 8),
                    new VelocityCheck("CARD_AUTH", "card-1h-amount", "card_hash", card, 3600, Aggregate.SUM, 1 + i % 500, null, 5000),
                    new VelocityCheck("CARD_AUTH", "card-1h-merchants", "card_hash", card, 3600, Aggregate.DISTINCT, 0,
                            "m-" + (i % 50), 6)));
        }
        checks = all;
    }

    @TearDown(Level.Trial)
    public void tearDown() throws Exception {
        redis.close();
        vertx.close().toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
        server.close();
    }

    @Benchmark
    @OperationsPerInvocation(IN_FLIGHT)
    public Object transactions() {
        long now = System.currentTimeMillis();
        for (int i = 0; i < IN_FLIGHT; i++) {
            // A new transaction id each time: a repeated one would be answered from its marker (a retry).
            inFlight[i] = client.run(new VelocityRequest("bench-" + ids++, checks.get(next), false), now).toCompletableFuture();
            next = (next + 1) % checks.size();
        }
        return CompletableFuture.allOf(inFlight).join();
    }
}
