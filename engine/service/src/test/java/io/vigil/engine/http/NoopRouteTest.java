package io.vigil.engine.http;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.not;
import static org.hamcrest.Matchers.containsString;

import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.restassured.http.ContentType;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The benchmark's no-op endpoint: reads the body like the evaluate routes, answers a fixed non-decision. */
@QuarkusTest
@TestProfile(NoopRouteTest.NoopOn.class)
class NoopRouteTest {

    public static class NoopOn implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("vigil.http.noop-endpoint.enabled", "true",
                    "vigil.engine.max-body-bytes", "1024",
                    "vigil.velocity.enabled", "false",
                    "vigil.outbox.enabled", "false");
        }
    }

    @Test
    void answersAFixedBodyThatIsNotADecision() {
        given().contentType(ContentType.JSON).body("{\"transaction_id\":\"t-1\",\"amount\":12.5}")
                .when().post(NoopRoute.PATH)
                .then().statusCode(200).contentType(ContentType.JSON)
                .body("noop", equalTo(true))
                .body(not(containsString("decision")));
    }

    @Test
    void checksTheContentTypeAndTheBodyLimitLikeTheEvaluateRoutes() {
        given().contentType(ContentType.TEXT).body("x").when().post(NoopRoute.PATH)
                .then().statusCode(415).body("code", equalTo("UNSUPPORTED_MEDIA_TYPE"));
        given().contentType(ContentType.JSON).body("{\"pad\":\"" + "x".repeat(2048) + "\"}").when().post(NoopRoute.PATH)
                .then().statusCode(413).body("code", equalTo("PAYLOAD_TOO_LARGE"));
    }

    @Test
    void isPostOnly() {
        given().when().get(NoopRoute.PATH).then().statusCode(not(equalTo(200)));
    }
}
