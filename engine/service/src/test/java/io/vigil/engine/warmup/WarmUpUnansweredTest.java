package io.vigil.engine.warmup;

import com.fasterxml.jackson.databind.JsonNode;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A warm-up request through the data port that is never answered does not hold readiness: on the quiet
 * machine (issue 22) one of 4,000 was never answered and readiness waited for it until the engine was
 * killed. Here two are left unanswered on purpose (SwallowedWarmUpRequests): one with no answer at all,
 * one with a response head and a body that never ends (past the request's idle timeout, which ends with
 * the head). The warm-up must still end, count both and go on. Its in-process phase runs out of time
 * first, as on a busy machine: the data-port phase still runs (it was skipped before, and a busy node's
 * first callers met the HTTP stack cold).
 */
@QuarkusTest
@TestProfile(WarmUpUnansweredTest.Profile.class)
class WarmUpUnansweredTest {

    static final int HTTP_DECISIONS = 60;

    public static class Profile implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            // more in-process decisions than its max-duration allows: that phase always ends by its time
            // limit, and the data-port phase must run all the same
            Map<String, String> c = WarmUpTest.warmUpOn(Integer.MAX_VALUE, 10, HTTP_DECISIONS);
            c.put("vigil.engine.warm-up.max-duration", "10s");
            c.put("vigil-test.warm-up.swallow", "true");
            return c;
        }

        @Override
        public List<TestResourceEntry> testResources() {
            return List.of(new TestResourceEntry(WarmUpTest.OneRedis.class));
        }
    }

    @Test
    void readyAnywayWithTheUnansweredCounted() throws Exception {
        JsonNode warmUp = WarmUpTest.warmUpCheck(WarmUpTest.awaitReady()); // before the bounds, this never became ready
        assertThat(warmUp.get("data").get("state").asText()).isEqualTo("done");
        assertThat(warmUp.get("data").get("http_unanswered").asInt()).as(warmUp.toString()).isEqualTo(2);
        assertThat(warmUp.get("data").get("http_decisions").asInt()).as(warmUp.toString()).isEqualTo(HTTP_DECISIONS - 2);
        // the clean-up still ran after them: nothing of the warm-up's left in Redis
        assertThat(WarmUpTest.OneRedis.server.command("DBSIZE")).isEqualTo(0L);
    }
}
