package io.vigil.engine.warmup;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.vigil.engine.auth.MtlsCallers;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * With mutual TLS required on the data port and plain HTTP off, the warm-up goes through the TLS port:
 * the handshake, Netty's TLS handler and the route run before ready (ADR 0024), not on the first callers.
 */
@QuarkusTest
@TestProfile(WarmUpWithMtlsTest.Profile.class)
@QuarkusTestResource(value = MtlsCallers.class, restrictToAnnotatedClass = true)
class WarmUpWithMtlsTest {
    static final int HTTP_DECISIONS = 100;

    public static class Profile implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return WarmUpTest.warmUpOn(200, 50, HTTP_DECISIONS);
        }

        @Override
        public List<TestResourceEntry> testResources() {
            return List.of(new TestResourceEntry(WarmUpTest.OneRedis.class));
        }
    }

    @Test
    void theWarmUpWentThroughTheTlsPort() throws Exception {
        JsonNode warmUp = WarmUpTest.warmUpCheck(WarmUpTest.awaitReady());
        assertThat(warmUp.get("data").get("http_decisions").asInt()).as(warmUp.toString()).isEqualTo(HTTP_DECISIONS);
        assertThat(warmUp.get("data").get("http_unanswered").asInt()).isZero();
    }
}
