package io.vigil.engine.velocity.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.vertx.core.Vertx;
import io.vertx.redis.client.Redis;
import io.vertx.redis.client.RedisOptions;
import io.vigil.engine.velocity.VelocityScriptClient;
import io.vigil.testing.redis.RedisServer;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The bytes behind the sizing of docs/velocity.md and environments/README.md, measured with
 * {@code MEMORY USAGE} on a real redis-server after the engine's velocity script ran the sample CARD_AUTH
 * v2 checks (10 per transaction on card, device, IP and e-mail): bytes per active card (every velocity
 * key its transactions leave, the shared device/IP/e-mail ones included) and per idempotency marker.
 * Deterministic for a given Redis version (the traffic and the clock are simulated), so the test fails
 * when the key layout grows past what the sizing assumes; the figures are printed for the docs.
 */
class VelocitySizingTest {

    /** What the documented sizing assumes per active card (all its velocity keys) and per marker. */
    static final long SIZING_BYTES_PER_CARD = 2_560;
    static final long SIZING_BYTES_PER_MARKER = 300;

    static final int CARDS = 100;
    static final int TRANSACTIONS_PER_CARD = 10;

    @Test
    void bytesPerActiveCardAndPerMarkerStayWithinTheDocumentedSizing() throws Exception {
        try (RedisServer redis = RedisServer.builder().arg("--maxmemory-policy", "noeviction").start()) {
            Vertx vertx = Vertx.vertx();
            Redis client = Redis.createClient(vertx, new RedisOptions().setConnectionString(redis.uri()));
            VelocityScriptClient velocity = VelocityCostBenchmark.client(vertx, client, 1000);
            try {
                int n = CARDS * TRANSACTIONS_PER_CARD;
                long hour = 3_600_000L;
                for (int i = 0; i < n; i++) {
                    // ten transactions per card spread over one hour, so each window holds a history
                    velocity.run(VelocityCostBenchmark.cardAuthV2(i, CARDS), VelocityCostBenchmark.T0 + hour * i / n)
                            .toCompletableFuture().get(30, TimeUnit.SECONDS);
                }
                long velocityBytes = 0;
                long markerBytes = 0;
                long markers = 0;
                for (String key : keys(redis)) {
                    long bytes = (Long) redis.command("MEMORY", "USAGE", key, "SAMPLES", "0");
                    if (key.startsWith("veltx:")) {
                        markerBytes += bytes;
                        markers++;
                    } else {
                        velocityBytes += bytes;
                    }
                }
                assertThat(markers).as("one marker per transaction").isEqualTo(n);
                long perCard = velocityBytes / CARDS;
                long perMarker = markerBytes / markers;
                System.out.printf(Locale.ROOT, "velocity sizing (%s): %d B per active card (%d cards, %d tx each, shared "
                                + "device/IP/e-mail keys included), %d B per marker (10 checks)%n",
                        redisVersion(redis), perCard, CARDS, TRANSACTIONS_PER_CARD, perMarker);
                assertThat(perCard).as("bytes per active card vs the sizing in docs/velocity.md").isBetween(100L, SIZING_BYTES_PER_CARD);
                assertThat(perMarker).as("bytes per marker vs the sizing in docs/velocity.md").isBetween(50L, SIZING_BYTES_PER_MARKER);
            } finally {
                velocity.close();
                client.close();
                vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
            }
        }
    }

    @SuppressWarnings("unchecked")
    static List<String> keys(RedisServer redis) {
        return ((List<Object>) redis.command("KEYS", "*")).stream().map(String::valueOf).toList();
    }

    static String redisVersion(RedisServer redis) {
        return VelocityCostBenchmark.find(String.valueOf(redis.command("INFO", "server")), "redis_version:([0-9.]+)");
    }
}
