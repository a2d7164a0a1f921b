package io.vigil.engine.http;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.equalTo;

import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.vigil.engine.testing.Management;
import io.vigil.engine.testing.Profiles;
import org.junit.jupiter.api.Test;

/** Without the AUTH ruleset the engine is live but not ready: 503 on both ports, alike. */
@QuarkusTest
@TestProfile(Profiles.NoRulesets.class)
class DataPortProbesDownTest {

    @Test
    void notReadyOnBothPortsButLive() {
        Management.given().when().get("/q/health/ready").then().statusCode(503);
        given().when().get("/health/ready").then().statusCode(503).body("status", equalTo("DOWN"))
                .body("checks.find { it.name == 'rulesets' }.status", equalTo("DOWN"));
        given().when().get("/health").then().statusCode(503).body("status", equalTo("DOWN"));
        given().when().get("/health/live").then().statusCode(200).body("status", equalTo("UP"));
    }
}
