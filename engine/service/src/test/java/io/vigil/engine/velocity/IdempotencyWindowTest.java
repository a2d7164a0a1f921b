package io.vigil.engine.velocity;

import io.vertx.core.Vertx;
import io.vertx.redis.client.Redis;
import io.vertx.redis.client.RedisOptions;
import io.vigil.rules.velocity.VelocityCheck;
import io.vigil.rules.velocity.VelocityRequest;
import io.vigil.testing.redis.RedisExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static io.vigil.engine.velocity.VelocityScriptContract.T0;
import static io.vigil.engine.velocity.VelocityScriptContract.count;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@code vigil.velocity.idempotency-window}: a transaction's idempotency marker lives at most that long
 * (docs/adr/0028-aof-rewrites-off-the-decision-path.md), its windows keep their own TTLs, and a retry
 * within it is still answered from the marker. The engine's default (10m) is proved through its HTTP
 * endpoint in VelocityFaultsTest; here the client without a window (benchmarks' generic client) keeps
 * the marker as long as the longest window, as does a window at least that long.
 */
class IdempotencyWindowTest {

    @RegisterExtension
    static final RedisExtension REDIS = RedisExtension.standalone();

    Vertx vertx;
    Redis redis;

    @BeforeEach
    void open() {
        REDIS.server().flushAll();
        vertx = Vertx.vertx();
        redis = Redis.createClient(vertx, new RedisOptions().setConnectionString(REDIS.server().uri()));
    }

    @AfterEach
    void close() {
        redis.close();
        vertx.close().toCompletionStage().toCompletableFuture().join();
    }

    private VelocityScriptClient client(Duration idempotencyWindow, boolean generated) {
        return generated
                ? VelocityScriptClient.withLanes(vertx, redis, false, 10, VelocityScriptClient.DEFAULT_DISTINCT_CAP, null,
                        idempotencyWindow)
                : VelocityScriptClient.generic(vertx, redis, false, 10, VelocityScriptClient.DEFAULT_DISTINCT_CAP);
    }

    private static double[] run(VelocityScriptClient client, String txn, VelocityCheck... checks) throws Exception {
        return client.run(new VelocityRequest(txn, List.of(checks), false), T0).toCompletableFuture().get(30, TimeUnit.SECONDS);
    }

    private static long pttl(String key) {
        return (Long) REDIS.server().command("PTTL", key);
    }

    @Test
    void theMarkerLivesAtMostTheWindowAndTheCountsKeepTheirs() throws Exception {
        VelocityScriptClient client = client(Duration.ofMinutes(5), true);
        VelocityCheck hour = count("card-1h", "card-I", 3600);

        assertThat(run(client, "txn-1", hour)[0]).isEqualTo(1);
        assertThat(run(client, "txn-1", hour)[0]).as("a retry within the window: answered from the marker").isEqualTo(1);
        assertThat(run(client, "txn-2", hour)[0]).isEqualTo(2);

        assertThat(pttl("veltx:{card_hash:card-I}:CARD_AUTH:txn-1")).isPositive().isLessThanOrEqualTo(300_000);
        assertThat(pttl("vel:{card_hash:card-I}:CARD_AUTH")).as("the hour's window keeps its TTL").isGreaterThan(3_600_000);
        client.close();
    }

    @Test
    void aWindowLongerThanTheChecksChangesNothing() throws Exception {
        VelocityScriptClient client = client(Duration.ofHours(2), true);
        run(client, "txn-1", count("card-5m", "card-J", 300));

        assertThat(pttl("veltx:{card_hash:card-J}:CARD_AUTH:txn-1")).isPositive().isLessThanOrEqualTo(330_000);
        client.close();
    }

    @Test
    void unsetTheMarkerLivesAsLongAsTheLongestWindow() throws Exception {
        for (boolean generated : new boolean[] {true, false}) {
            REDIS.server().flushAll();
            VelocityScriptClient client = client(null, generated);
            run(client, "txn-1", count("card-1h", "card-K", 3600));

            assertThat(pttl("veltx:{card_hash:card-K}:CARD_AUTH:txn-1")).as("generated %s", generated).isGreaterThan(3_600_000);
            client.close();
        }
    }

    @Test
    void aWindowUnderAMillisecondIsRefused() {
        for (Duration bad : List.of(Duration.ZERO, Duration.ofSeconds(-5), Duration.ofNanos(10))) {
            assertThatThrownBy(() -> client(bad, true)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("vigil.velocity.idempotency-window must be at least 1ms, was " + bad);
        }
    }
}
