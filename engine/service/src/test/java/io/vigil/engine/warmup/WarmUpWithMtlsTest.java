package io.vigil.engine.warmup;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.vigil.engine.auth.MtlsCallers;
import org.junit.jupiter.api.Test;

/**
 * With mutual TLS required on the data port and plain HTTP off, the warm-up goes through the TLS port:
 * the handshake, Netty's TLS handler and the route run before ready (ADR 0024), not on the first callers.
 */
@QuarkusTest
@TestProfile(WarmUpTest.ThroughAuthenticatedPort.class)
@QuarkusTestResource(value = MtlsCallers.class, restrictToAnnotatedClass = true)
class WarmUpWithMtlsTest {
    @Test
    void theWarmUpWentThroughTheTlsPort() throws Exception {
        JsonNode warmUp = WarmUpTest.warmUpCheck(WarmUpTest.awaitReady());
        assertThat(warmUp.get("data").get("http_decisions").asInt())
                .as(warmUp.toString()).isEqualTo(WarmUpTest.ThroughAuthenticatedPort.HTTP_DECISIONS);
        assertThat(warmUp.get("data").get("http_unanswered").asInt()).isZero();
    }
}
