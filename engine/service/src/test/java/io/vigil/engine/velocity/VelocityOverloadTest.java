package io.vigil.engine.velocity;

import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.vigil.engine.velocity.VelocityHttp.Answer;
import io.vigil.testing.redis.RedisServer;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static io.vigil.engine.velocity.VelocityHttp.auth;
import static io.vigil.engine.velocity.VelocityHttp.awaitNormal;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Admission control on the velocity path, through HTTP on a real redis-server: with two calls allowed
 * in flight and Redis held (SIGSTOP) so that those two cannot finish, every other request of a burst
 * is answered at once, DEGRADED, counted as shed — not queued behind them — and the breaker stays
 * closed (load is not a Redis failure). Counts and states only, no elapsed time.
 */
@QuarkusTest
@TestProfile(VelocityOverloadTest.Limited.class)
class VelocityOverloadTest {

    static final int BURST = 40;
    static final AtomicInteger IDS = new AtomicInteger();

    public static class Limited extends VelocityRedisProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            Map<String, String> c = config();
            c.put("vigil.velocity.limit.min", "2");
            c.put("vigil.velocity.limit.max", "2");
            // long enough that neither the deadline nor the silence check ends the held calls
            c.put("vigil.engine.deadline", "60s");
            c.put("vigil.velocity.timeout", "120s");
            return c;
        }
    }

    @Test
    void beyondTheLimitRequestsAreAnsweredAtOnceDegradedAndTheBreakerStaysClosed() throws Exception {
        awaitNormal();
        double shedBefore = VelocityHttp.metric("vigil_velocity_errors_total{reason=\"shed\"");
        RedisServer redis = RedisResource.server();
        ExecutorService clients = Executors.newFixedThreadPool(BURST);
        List<Future<Answer>> calls = new ArrayList<>();
        redis.freeze();
        try {
            for (int i = 0; i < BURST; i++) {
                int n = IDS.incrementAndGet();
                calls.add(clients.submit(() -> auth("over-" + n, "card-over-" + n, "dev-over-" + n, 5)));
            }
            // all but the two admitted calls come back while Redis is still held
            long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
            while (calls.stream().filter(Future::isDone).count() < BURST - 2 && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            List<Answer> early = new ArrayList<>();
            for (Future<Answer> call : calls) {
                if (call.isDone()) {
                    early.add(call.get());
                }
            }
            assertThat(early).hasSize(BURST - 2);
            assertThat(early).allSatisfy(a -> {
                assertThat(a.status()).isEqualTo(200);
                assertThat(a.mode()).as(a.toString()).isEqualTo("DEGRADED");
                assertThat(a.errorCode()).as(a.toString()).isEqualTo("VELOCITY_UNAVAILABLE");
            });
            assertThat(VelocityHttp.metric("vigil_velocity_errors_total{reason=\"shed\"") - shedBefore)
                    .isEqualTo(BURST - 2);
            assertThat(VelocityHttp.metric("vigil_velocity_circuit_state")).as("load is not a failure").isZero();
        } finally {
            redis.thaw();
        }
        // the two admitted calls were only waiting: they are answered with velocity
        int normal = 0;
        for (Future<Answer> call : calls) {
            Answer a = call.get(2, TimeUnit.MINUTES);
            if ("NORMAL".equals(a.mode())) {
                normal++;
            }
        }
        clients.shutdown();
        assertThat(normal).isEqualTo(2);
        assertThat(VelocityHttp.metric("vigil_velocity_circuit_state")).isZero();
    }
}
