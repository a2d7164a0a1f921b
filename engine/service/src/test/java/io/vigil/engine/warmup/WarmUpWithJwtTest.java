package io.vigil.engine.warmup;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.restassured.http.ContentType;
import io.vigil.engine.auth.JwtIssuer;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

/**
 * With bearer JWTs required on the data port (staging, production) the warm-up still goes through it,
 * the HTTP stack and the route included: before ADR 0024 it skipped the port, and those engines took
 * real traffic with that code cold. Its per-process token stands in for a credential only while the
 * warm-up runs: after ready, a request bearing it and no credential is refused like any other.
 */
@QuarkusTest
@TestProfile(WarmUpTest.ThroughAuthenticatedPort.class)
@QuarkusTestResource(value = JwtIssuer.class, restrictToAnnotatedClass = true)
class WarmUpWithJwtTest {
    static final String TXN = "{\"transaction_id\":\"t-after-warm-up\",\"card_hash\":\"c-1\",\"amount\":12.50,\"card_present\":true}";

    @Inject
    WarmUpToken token;

    @Test
    void theWarmUpWentThroughTheAuthenticatedPortAndItsTokenEndedWithIt() throws Exception {
        JsonNode warmUp = WarmUpTest.warmUpCheck(WarmUpTest.awaitReady());
        assertThat(warmUp.get("data").get("http_decisions").asInt())
                .as(warmUp.toString()).isEqualTo(WarmUpTest.ThroughAuthenticatedPort.HTTP_DECISIONS);
        assertThat(warmUp.get("data").get("http_unanswered").asInt()).isZero();

        // ready: the token is no credential any more (and never was one from outside loopback)
        given().contentType(ContentType.JSON).header(WarmUpToken.HEADER.toString(), token.value()).body(TXN)
                .when().post("/v1/evaluate/auth").then().statusCode(401);
        given().contentType(ContentType.JSON).header(WarmUpToken.HEADER.toString(), "0".repeat(64)).body(TXN)
                .when().post("/v1/evaluate/auth").then().statusCode(401);
    }
}
