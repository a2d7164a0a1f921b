package io.vigil.engine.velocity;

import com.fasterxml.jackson.databind.JsonNode;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.vigil.engine.velocity.VelocityHttp.Answer;
import io.vigil.testing.redis.RedisServer;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.concurrent.atomic.AtomicInteger;

import static io.vigil.engine.velocity.VelocityHttp.auth;
import static io.vigil.engine.velocity.VelocityHttp.awaitNormal;
import static io.vigil.engine.velocity.VelocityHttp.metric;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every velocity call the engine admits ends exactly once, whatever path it takes: answered, answered
 * read-only (simulate), error reply, NOSCRIPT and its EVAL retry, Redis gone, Redis frozen past the
 * deadline (the call expires) and its late answer. After each, {@code vigil_velocity_in_flight} is back
 * to 0 and the breaker closed; a real redis-server throughout.
 */
@QuarkusTest
@TestProfile(VelocityRedisProfile.class)
class VelocityInFlightTest {

    private static final AtomicInteger IDS = new AtomicInteger();

    static String id(String prefix) {
        return prefix + "-inflight-" + IDS.incrementAndGet();
    }

    @BeforeEach
    void redisUp() {
        VelocityHttp.redisUpAndNormal();
        awaitNoneInFlight();
    }

    /** In flight back to 0; the guard of 30 s only stops a hung test, the normal wait is a few ms. */
    static void awaitNoneInFlight() {
        long until = System.nanoTime() + 30_000_000_000L;
        double inFlight;
        while ((inFlight = metric("vigil_velocity_in_flight")) != 0 && System.nanoTime() < until) {
            sleep(20);
        }
        assertThat(inFlight).as("vigil_velocity_in_flight").isZero();
    }

    @Test
    void answeredCallsEnd() {
        for (int i = 0; i < 20; i++) {
            assertThat(auth(id("t"), id("card"), id("dev"), 5).mode()).isEqualTo("NORMAL");
        }
        assertThat(metric("vigil_velocity_in_flight")).isZero();
    }

    @Test
    void simulateGetsReadOnlyVelocityAndItsCallsEnd() {
        String card = id("card");
        String device = id("dev");
        auth(id("t"), card, device, 100);
        auth(id("t"), card, device, 100);
        for (int i = 0; i < 25; i++) {
            JsonNode result = VelocityHttp.simulate(id("sim"), card, device, 7).get("result");
            assertThat(result.get("engine_mode").asText()).as(result.toString()).isEqualTo("NORMAL");
            JsonNode count = result.get("velocity_results").get(0);
            assertThat(count.get("rule_id").asText()).isEqualTo("card-5m-count");
            assertThat(count.get("aggregate_value").asInt()).as("two counted + this one, read-only").isEqualTo(3);
            assertThat(result.get("velocity_results").get(1).get("aggregate_value").asDouble()).isEqualTo(207.0);
            assertThat(metric("vigil_velocity_in_flight")).isZero();
        }
        assertThat(metric("vigil_velocity_circuit_state")).isZero();
        // read-only wrote nothing: the third real transaction is the third, and declines
        Answer third = auth(id("t"), card, device, 1);
        assertThat(third.mode()).isEqualTo("NORMAL");
        assertThat(third.decision()).isEqualTo("DECLINE");
    }

    @Test
    void noScriptIsRetriedAsEvalAndEndsOnce() {
        RedisResource.server().command("SCRIPT", "FLUSH");
        Answer a = auth(id("t"), id("card"), id("dev"), 5);
        assertThat(a.mode()).as(a.toString()).isEqualTo("NORMAL");
        assertThat(metric("vigil_velocity_in_flight")).isZero();
    }

    @Test
    void anErrorReplyEndsTheCall() {
        String card = id("card");
        // a string where the card's velocity hash belongs: the script's HMGET answers WRONGTYPE
        RedisResource.server().command("SET", "vel:{card_hash:" + card + "}:CARD_AUTH", "not-a-hash");
        Answer a = auth(id("t"), card, id("dev"), 5);
        assertThat(a.mode()).as(a.toString()).isEqualTo("DEGRADED");
        assertThat(a.errorCode()).isEqualTo("VELOCITY_UNAVAILABLE");
        assertThat(metric("vigil_velocity_in_flight")).isZero();
        assertThat(metric("vigil_velocity_errors_total{reason=\"redis\"")).isPositive();
    }

    @Test
    void redisGoneEndsTheCalls() {
        RedisResource.server().stop();
        for (int i = 0; i < 10; i++) {
            Answer a = auth(id("t"), id("card"), id("dev"), 5);
            assertThat(a.mode()).as(a.toString()).isEqualTo("DEGRADED");
        }
        JsonNode simulated = VelocityHttp.simulate(id("sim"), id("card"), id("dev"), 5).get("result");
        assertThat(simulated.get("engine_mode").asText()).isEqualTo("DEGRADED");
        awaitNoneInFlight();
        RedisResource.server().restart();
        awaitNormal();
        awaitNoneInFlight();
    }

    @Test
    void callsOnAFrozenRedisExpireAndTheirLateAnswersAreNotCountedTwice() {
        RedisServer redis = RedisResource.server();
        redis.freeze();
        try {
            for (int i = 0; i < 3; i++) {
                Answer a = auth(id("t"), id("card"), id("dev"), 5);
                assertThat(a.mode()).as("answered at the deadline").isEqualTo("DEGRADED");
            }
            JsonNode simulated = VelocityHttp.simulate(id("sim"), id("card"), id("dev"), 5).get("result");
            assertThat(simulated.get("engine_mode").asText()).isEqualTo("DEGRADED");
            // still frozen: the calls expire (vigil.velocity.timeout) instead of staying in flight for good
            awaitNoneInFlight();
            assertThat(metric("vigil_velocity_expired_total")).isPositive();
        } finally {
            redis.thaw();
        }
        // Redis answers the queued calls now: nothing goes below 0, and velocity is on again
        awaitNormal();
        awaitNoneInFlight();
        Answer a = auth(id("t"), id("card"), id("dev"), 5);
        assertThat(a.mode()).isEqualTo("NORMAL");
        assertThat(metric("vigil_velocity_in_flight")).isZero();
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        }
    }
}
