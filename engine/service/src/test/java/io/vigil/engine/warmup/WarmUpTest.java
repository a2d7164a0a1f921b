package io.vigil.engine.warmup;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.restassured.http.ContentType;
import io.vigil.engine.testing.Management;
import io.vigil.testing.redis.RedisServer;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Ready means warm: the engine reports ready only after its synthetic decisions ran through the real
 * path against a real Redis, velocity writes and the outbox's XADDs included, and they leave no trace:
 * no velocity key, no stream entry (the outbox is on, on the same Redis), no answer in the metrics. The first real decisions after that are NORMAL and
 * counted: a sequence on one card declines from the rule's threshold on, not one later.
 */
@QuarkusTest
@TestProfile(WarmUpTest.Profile.class)
class WarmUpTest {

    static final int DECISIONS = 400;
    static final int HTTP_DECISIONS = 200;
    static final int JIT_QUIET_MIN_DECISIONS = 5;
    static final ObjectMapper JSON = new ObjectMapper();

    public static class Profile implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            Map<String, String> c = warmUpOn(DECISIONS, 100, HTTP_DECISIONS);
            // The velocity limiter allows fewer calls in flight than the warm-up runs at once (16), as on a
            // busy machine where the adaptive limit falls to its minimum: the warm-up must wait for room,
            // not spin through instant DEGRADED answers that never make a NORMAL streak.
            c.put("vigil.velocity.limit.min", "2");
            c.put("vigil.velocity.limit.max", "4");
            // and then until the JIT is quiet, short: whether it gets quiet in a test JVM is not the point
            // (JitQuietTest is), that the phase runs through the port and readiness comes after it is
            c.put("vigil.engine.warm-up.jit-quiet.enabled", "true");
            c.put("vigil.engine.warm-up.jit-quiet.interval", "200ms");
            c.put("vigil.engine.warm-up.jit-quiet.intervals", "2");
            c.put("vigil.engine.warm-up.jit-quiet.min-decisions", Integer.toString(JIT_QUIET_MIN_DECISIONS));
            c.put("vigil.engine.warm-up.jit-quiet.max-duration", "5s");
            return c;
        }

        @Override
        public List<TestResourceEntry> testResources() {
            return List.of(new TestResourceEntry(OneRedis.class));
        }
    }

    /**
     * The warm-up on a data port that asks callers for credentials (the test adds JWT or mutual TLS as
     * its own restricted resource): a short in-process phase, then 100 requests through the port.
     */
    public static class ThroughAuthenticatedPort implements QuarkusTestProfile {
        static final int HTTP_DECISIONS = 100;

        @Override
        public Map<String, String> getConfigOverrides() {
            return warmUpOn(200, 50, HTTP_DECISIONS);
        }

        @Override
        public List<TestResourceEntry> testResources() {
            return List.of(new TestResourceEntry(OneRedis.class));
        }
    }

    /** The warm-up on, against one real Redis (velocity and the outbox) and the velocity test rulesets. */
    static Map<String, String> warmUpOn(int decisions, int normalStreak, int httpDecisions) {
        Map<String, String> c = new HashMap<>();
        c.put("vigil.rulesets.dir", Path.of("src/test/resources/velocity-rulesets").toAbsolutePath().toString());
        c.put("vigil.velocity.enabled", "true");
        c.put("vigil.engine.deadline", "500ms");
        c.put("vigil.outbox.enabled", "true");
        c.put("vigil.engine.warm-up.enabled", "true");
        c.put("vigil.engine.warm-up.decisions", Integer.toString(decisions));
        c.put("vigil.engine.warm-up.normal-streak", Integer.toString(normalStreak));
        c.put("vigil.engine.warm-up.http-decisions", Integer.toString(httpDecisions));
        // exact counts through the port below; WarmUpTest turns it on
        c.put("vigil.engine.warm-up.jit-quiet.enabled", "false");
        return c;
    }

    /** The warm-up check of a readiness answer. */
    static JsonNode warmUpCheck(JsonNode ready) {
        for (JsonNode check : ready.get("checks")) {
            if ("warm-up".equals(check.get("name").asText())) {
                return check;
            }
        }
        throw new AssertionError("no warm-up check: " + ready);
    }

    /** One real redis-server for velocity and the outbox. */
    public static class OneRedis implements QuarkusTestResourceLifecycleManager {
        static volatile RedisServer server;

        @Override
        public Map<String, String> start() {
            server = RedisServer.start();
            return Map.of("quarkus.redis.hosts", server.uri(), "quarkus.redis.outbox.hosts", server.uri());
        }

        @Override
        public void stop() {
            if (server != null) {
                server.close();
                server = null;
            }
        }
    }

    @Test
    void readyOnlyOnceWarmAndTheWarmUpLeftNoTrace() throws Exception {
        JsonNode warmUp = warmUpCheck(awaitReady());
        assertThat(warmUp.get("data").get("state").asText()).isEqualTo("done");
        assertThat(warmUp.get("data").get("decisions").asInt()).isGreaterThanOrEqualTo(DECISIONS);
        assertThat(warmUp.get("data").get("normal_in_a_row").asInt()).isGreaterThanOrEqualTo(100);
        // and then through the data port itself, the HTTP server's code included, still without a trace
        assertThat(warmUp.get("data").get("http_decisions").asInt()).isGreaterThanOrEqualTo(HTTP_DECISIONS);
        // then more through the port until the JIT was quiet, or its cap: ready either way, and it says which
        String jitQuiet = warmUp.get("data").get("jit_quiet").asText();
        assertThat(jitQuiet).as(warmUp.toString()).isIn("quiet", "cap");
        if (jitQuiet.equals("quiet")) {
            assertThat(warmUp.get("data").get("jit_quiet_decisions").asLong()).as(warmUp.toString())
                    .isGreaterThanOrEqualTo(2L * JIT_QUIET_MIN_DECISIONS);
        }
        // the answer-metrics code ran for every warm-up answer, in the registry apart
        assertThat(warmUp.get("data").get("answers_recorded_apart").asLong())
                .isGreaterThanOrEqualTo(DECISIONS + HTTP_DECISIONS);

        // The warm-up wrote velocity and decision events (the branches real traffic takes), on keys and a
        // stream of its own, and deleted them before ready: an empty Redis means no real key or stream
        // was ever written (nothing here deletes those) and nothing of the warm-up's is left.
        assertThat(warmUp.get("data").get("velocity_writes").asLong()).as("velocity writes ran").isPositive();
        assertThat(warmUp.get("data").get("velocity_keys_deleted").asLong()).as("on warm-up keys, deleted").isPositive();
        assertThat(warmUp.get("data").get("outbox_entries").asLong()).as("XADDs to the warm-up stream ran").isPositive();
        assertThat(warmUp.get("data").get("garbage_collection_ms").asLong()).as("the full collection before ready ran")
                .isGreaterThanOrEqualTo(0);
        assertThat(OneRedis.server.command("DBSIZE")).as("no velocity key, marker or stream left").isEqualTo(0L);
        String metrics = Management.given().get("/q/metrics").then().extract().asString();
        assertThat(sum(metrics, "vigil_evaluate_seconds_count")).as("no answer recorded").isZero();
        assertThat(sum(metrics, "vigil_outbox_offered_total")).as("no decision event").isZero();
        assertThat(sum(metrics, "vigil_warm_up_jit_quiet")).as("the gauge says how readiness came")
                .isEqualTo(jitQuiet.equals("quiet") ? 1.0 : 0.0);

        // The old engine's one-card check (15 transactions, one card): a fresh engine must count the
        // first one too, so the 5-minute count rule (threshold 3) declines from the 3rd, every answer NORMAL.
        // A DEGRADED first decision would go uncounted and move the first decline one transaction later.
        for (int i = 1; i <= 15; i++) {
            String body = "{\"transaction_id\":\"first-" + i + "\",\"card_hash\":\"c-first\",\"device_id\":\"d-first\","
                    + "\"amount\":5,\"currency\":\"EUR\",\"merchant_id\":\"m-1\",\"card_present\":false,\"country_code\":\"DE\"}";
            var answer = given().contentType(ContentType.JSON).body(body).when().post("/v1/evaluate/auth")
                    .then().statusCode(200).extract().jsonPath();
            String seen = "transaction " + i + ": " + answer.prettify();
            assertThat(answer.getString("engine_mode")).as(seen).isEqualTo("NORMAL");
            assertThat(answer.getString("decision")).as(seen).isEqualTo(i < 3 ? "APPROVE" : "DECLINE");
            if (i >= 3) {
                assertThat(answer.getString("rule_id")).as(seen).isEqualTo("card-5m-count");
            }
        }
    }

    static double sum(String metrics, String name) {
        double total = 0;
        for (String line : metrics.split("\n")) {
            if (line.startsWith(name + "{") || line.startsWith(name + " ")) {
                total += Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
            }
        }
        return total;
    }

    /** Polls readiness; the 120 s guard only stops a hung test. */
    static JsonNode awaitReady() throws Exception {
        long until = System.nanoTime() + 120_000_000_000L;
        String last = null;
        while (System.nanoTime() < until) {
            var r = Management.given().get("/q/health/ready").then().extract();
            last = r.asString();
            if (r.statusCode() == 200) {
                return JSON.readTree(last);
            }
            Thread.sleep(50);
        }
        throw new AssertionError("never ready: " + last);
    }
}
