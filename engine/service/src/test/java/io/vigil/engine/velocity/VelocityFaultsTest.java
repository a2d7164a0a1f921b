package io.vigil.engine.velocity;

import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.vigil.engine.velocity.VelocityHttp.Answer;
import io.vigil.testing.redis.RedisServer;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import static io.vigil.engine.velocity.VelocityHttp.auth;
import static io.vigil.engine.velocity.VelocityHttp.awaitNormal;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The engine's velocity through its real HTTP endpoint, on a real redis-server that the tests stop,
 * freeze and bring back while the engine keeps running. Assertions are on answers (decision, mode,
 * code), never on elapsed time.
 */
@QuarkusTest
@TestProfile(VelocityRedisProfile.class)
class VelocityFaultsTest {

    private static final AtomicInteger IDS = new AtomicInteger();

    static String id(String prefix) {
        return prefix + "-" + IDS.incrementAndGet();
    }

    @BeforeEach
    void redisUpAndBreakerClosed() {
        VelocityHttp.redisUpAndNormal();
    }

    @Test
    void velocityRulesDecideOnRepeatedCardsAndRetriesCountOnce() {
        String card = id("card");
        Answer first = auth(id("t"), card, id("dev"), 10);
        assertThat(first.decision()).isEqualTo("APPROVE");
        assertThat(first.mode()).isEqualTo("NORMAL");
        assertThat(first.errorCode()).isNull();
        String second = id("t");
        assertThat(auth(second, card, id("dev"), 10).decision()).isEqualTo("APPROVE");
        String third = id("t");
        Answer declined = auth(third, card, id("dev"), 10);
        assertThat(declined.decision()).as(declined.toString()).isEqualTo("DECLINE");
        assertThat(declined.ruleId()).isEqualTo("card-5m-count");
        assertThat(declined.reasonCode()).isEqualTo("VELOCITY_CARD_5M");
        assertThat(declined.mode()).isEqualTo("NORMAL");
        // a retried transaction gets its original answer and is not counted again
        assertThat(auth(second, card, id("dev"), 10).decision()).isEqualTo("APPROVE");
        assertThat(auth(third, card, id("dev"), 10).decision()).isEqualTo("DECLINE");

        // sum: 600 + 600 on one card within the hour reaches 1000
        String big = id("card");
        assertThat(auth(id("t"), big, id("dev"), 600).decision()).isEqualTo("APPROVE");
        Answer review = auth(id("t"), big, id("dev"), 600);
        assertThat(review.decision()).as(review.toString()).isEqualTo("REVIEW");
        assertThat(review.ruleId()).isEqualTo("card-1h-amount");

        // distinct: a third card on one device
        String device = id("dev");
        assertThat(auth(id("t"), id("card"), device, 1).decision()).isEqualTo("APPROVE");
        assertThat(auth(id("t"), id("card"), device, 1).decision()).isEqualTo("APPROVE");
        Answer farm = auth(id("t"), id("card"), device, 1);
        assertThat(farm.decision()).as(farm.toString()).isEqualTo("DECLINE");
        assertThat(farm.ruleId()).isEqualTo("device-1h-cards");
    }

    @Test
    void byDefaultARetryIsAnsweredFromItsMarkerForTenMinutesWhileTheHourKeepsItsWindow() {
        String card = id("card");
        String txn = id("t");
        auth(txn, card, id("dev"), 10);

        // one call per transaction on a standalone Redis: its one marker, whatever the dimension in its name
        @SuppressWarnings("unchecked")
        List<Object> markers = (List<Object>) RedisResource.server().command("KEYS", "veltx:*:" + txn);
        assertThat(markers).hasSize(1);
        long markerTtl = (Long) RedisResource.server().command("PTTL", String.valueOf(markers.get(0)));
        assertThat(markerTtl).as("vigil.velocity.idempotency-window defaults to 10m (the ruleset's longest window: 1 h)")
                .isPositive().isLessThanOrEqualTo(600_000);
        long cardTtl = (Long) RedisResource.server().command("PTTL", "vel:{card_hash:" + card + "}:CARD_AUTH");
        assertThat(cardTtl).as("the card's hour keeps its own TTL").isGreaterThan(3_600_000);
    }

    @Test
    void readyOnceVelocityAnsweredAndMetricsPublished() {
        HttpResponse<String> ready = VelocityHttp.management("/q/health/ready");
        assertThat(ready.statusCode()).as(ready.body()).isEqualTo(200);
        assertThat(ready.body()).contains("velocity-store");
        assertThat(VelocityHttp.metric("vigil_velocity_round_trip_seconds_count")).isPositive();
        assertThat(VelocityHttp.metric("vigil_velocity_keys_touched_total")).isPositive();
        assertThat(VelocityHttp.metric("vigil_velocity_circuit_state")).isZero();
        // an AUTH is decided on an event loop: its velocity call goes out on that loop's own connection
        assertThat(auth(id("t"), id("card"), id("dev"), 5).mode()).isEqualTo("NORMAL");
        assertThat(VelocityHttp.metric("vigil_velocity_connections"))
                .as("event loops with their own velocity connection (docs/adr/0021)").isPositive();
    }

    @Test
    void redisStoppedUnderTrafficEveryRequestIsAnsweredDegradedThenNormalAgain() throws Exception {
        RedisServer redis = RedisResource.server();
        AtomicBoolean stopped = new AtomicBoolean();
        AtomicInteger answered = new AtomicInteger();
        record Sent(boolean afterStop, Answer answer) {
        }
        ExecutorService clients = Executors.newFixedThreadPool(4);
        List<Future<List<Sent>>> workers = new ArrayList<>();
        for (int w = 0; w < 4; w++) {
            workers.add(clients.submit(() -> {
                List<Sent> sent = new ArrayList<>();
                for (int i = 0; i < 30; i++) {
                    boolean after = stopped.get();
                    sent.add(new Sent(after, auth(id("t"), id("card"), id("dev"), 5)));
                    answered.incrementAndGet();
                }
                return sent;
            }));
        }
        while (answered.get() < 8) {
            Thread.sleep(5);
        }
        redis.stop();
        stopped.set(true);
        List<Sent> all = new ArrayList<>();
        for (Future<List<Sent>> w : workers) {
            all.addAll(w.get(5, TimeUnit.MINUTES));
        }
        clients.shutdown();

        assertThat(all).hasSize(120);
        assertThat(all).allSatisfy(s -> assertThat(s.answer().status()).as(s.answer().toString()).isEqualTo(200));
        List<Answer> afterStop = all.stream().filter(Sent::afterStop).map(Sent::answer).toList();
        assertThat(afterStop).as("requests sent while Redis was down").isNotEmpty();
        assertThat(afterStop).allSatisfy(a -> {
            assertThat(a.mode()).as(a.toString()).isEqualTo("DEGRADED");
            assertThat(a.errorCode()).as(a.toString()).isEqualTo("VELOCITY_UNAVAILABLE");
            assertThat(a.decision()).as("skip policy: velocity rules do not match").isEqualTo("APPROVE");
        });
        assertThat(VelocityHttp.metric("vigil_velocity_errors_total") + VelocityHttp.metric("vigil_velocity_timeouts_total"))
                .as("the outage is counted").isPositive();

        // Redis back: the same engine (no restart) answers NORMAL again and counts again
        redis.restart();
        awaitNormal();
        assertThat(VelocityHttp.metric("vigil_velocity_circuit_state")).isZero();
        String card = id("card");
        auth(id("t"), card, id("dev"), 1);
        auth(id("t"), card, id("dev"), 1);
        Answer third = auth(id("t"), card, id("dev"), 1);
        assertThat(third.mode()).isEqualTo("NORMAL");
        assertThat(third.decision()).isEqualTo("DECLINE");
    }

    @Test
    void redisFrozenTheDeadlineStillAnswersEveryRequest() throws Exception {
        RedisServer redis = RedisResource.server();
        redis.freeze();
        try {
            // sequential and concurrent callers: every one gets an in-band DEGRADED answer
            for (int i = 0; i < 8; i++) {
                Answer a = auth(id("t"), id("card"), id("dev"), 5);
                assertThat(a.status()).isEqualTo(200);
                assertThat(a.mode()).as(a.toString()).isEqualTo("DEGRADED");
                assertThat(a.errorCode()).as(a.toString()).isEqualTo("VELOCITY_UNAVAILABLE");
                assertThat(a.decision()).isEqualTo("APPROVE");
            }
            ExecutorService clients = Executors.newFixedThreadPool(4);
            List<Future<Answer>> calls = new ArrayList<>();
            for (int i = 0; i < 16; i++) {
                calls.add(clients.submit(() -> auth(id("t"), id("card"), id("dev"), 5)));
            }
            for (Future<Answer> call : calls) {
                Answer a = call.get(5, TimeUnit.MINUTES);
                assertThat(a.mode()).as(a.toString()).isEqualTo("DEGRADED");
                assertThat(a.errorCode()).as(a.toString()).isEqualTo("VELOCITY_UNAVAILABLE");
            }
            clients.shutdown();
            assertThat(VelocityHttp.metric("vigil_velocity_timeouts_total")
                    + VelocityHttp.metric("vigil_velocity_errors_total{reason=\"circuit_open\"")).isPositive();
            // the first sequential calls waited for the deadline (the breaker opens only after 20 calls);
            // whether each counts as engine_late or store_slow depends on this machine's load
            assertThat(VelocityHttp.metric("vigil_velocity_deadline_missed_total")).isPositive();
        } finally {
            redis.thaw();
        }
        awaitNormal();
    }

    /**
     * Issue 22: while Redis does not answer, the request that carries the half-open breaker's probe is
     * answered at once like the refused ones, so none waits for the deadline once the breaker opened. Here
     * Redis is frozen (the probe never ends by itself): the expired count shows the probes went out, and
     * no request they carried missed the deadline.
     */
    @Test
    void redisFrozenTheBreakersProbesHoldNoRequest() throws Exception {
        RedisServer redis = RedisResource.server();
        redis.freeze();
        try {
            openBreakerAndDrain(); // the calls admitted before it opened expire first, so that every later expiry is a probe's
            double missed = VelocityHttp.metric("vigil_velocity_deadline_missed_total");
            double expired = VelocityHttp.metric("vigil_velocity_expired_total");
            int probesSeen = 0;
            for (int i = 0; i < 1200 && probesSeen < 2; i++) {
                Answer a = auth(id("t"), id("card"), id("dev"), 5);
                assertThat(a.mode()).as(a.toString()).isEqualTo("DEGRADED");
                assertThat(a.errorCode()).as(a.toString()).isEqualTo("VELOCITY_UNAVAILABLE");
                probesSeen = (int) (VelocityHttp.metric("vigil_velocity_expired_total") - expired);
                Thread.sleep(50);
            }
            assertThat(probesSeen).as("probes sent to the frozen Redis (expired unanswered)").isGreaterThanOrEqualTo(2);
            assertThat(VelocityHttp.metric("vigil_velocity_deadline_missed_total"))
                    .as("no request waited for a probe").isEqualTo(missed);
        } finally {
            redis.thaw();
        }
        awaitNormal();
    }

    @Test
    void theProbesTransactionIsNotCounted() throws Exception {
        RedisServer redis = RedisResource.server();
        // stopped, not frozen: a frozen Redis answers its queued calls late on thaw, and a late answer
        // closes the breaker without a probe
        redis.stop();
        try {
            openBreakerAndDrain();
        } finally {
            redis.restart();
        }
        assertThat(VelocityHttp.metric("vigil_velocity_circuit_state")).as("still open: the next call is a probe").isEqualTo(2);
        // Redis is back; one card only from here, so the half-open breaker's probe is this card's
        // transaction. Its request is answered DEGRADED without waiting, so it must not be counted.
        String card = id("card");
        Answer a = auth(id("t"), card, id("dev"), 10);
        for (int i = 0; i < 1200 && !"NORMAL".equals(a.mode()); i++) {
            Thread.sleep(50);
            a = auth(id("t"), card, id("dev"), 10);
        }
        assertThat(a.mode()).as(a.toString()).isEqualTo("NORMAL");
        assertThat(a.decision()).as(a.toString()).isEqualTo("APPROVE");
        Answer second = auth(id("t"), card, id("dev"), 10);
        assertThat(second.decision()).as("the card's second counted transaction (the probe's was not counted): " + second)
                .isEqualTo("APPROVE");
        Answer third = auth(id("t"), card, id("dev"), 10);
        assertThat(third.decision()).as(third.toString()).isEqualTo("DECLINE");
        assertThat(third.ruleId()).isEqualTo("card-5m-count");
    }

    /** Sends traffic until the breaker opens, then waits until no call is in flight any more. */
    private static void openBreakerAndDrain() throws InterruptedException {
        for (int i = 0; i < 200 && VelocityHttp.metric("vigil_velocity_circuit_state") != 2; i++) {
            auth(id("t"), id("card"), id("dev"), 5);
        }
        assertThat(VelocityHttp.metric("vigil_velocity_circuit_state")).as("the breaker opened").isEqualTo(2);
        for (int i = 0; i < 1200 && VelocityHttp.metric("vigil_velocity_in_flight") > 0; i++) {
            Thread.sleep(50);
        }
        assertThat(VelocityHttp.metric("vigil_velocity_in_flight")).as("calls in flight").isZero();
    }
}
