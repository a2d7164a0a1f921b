package io.vigil.engine.http;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.equalTo;

import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.restassured.path.json.JsonPath;
import io.vigil.engine.testing.Management;
import io.vigil.engine.testing.Profiles;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The existing engine's probe paths on the data port: the management port's checks, without their data. */
@QuarkusTest
@TestProfile(Profiles.Fixtures.class)
class DataPortProbesTest {

    @Test
    void liveAndReadyAnswerOnTheDataPortLikeOnTheManagementPort() {
        for (String probe : List.of("", "/live", "/ready", "/started")) {
            JsonPath data = given().when().get("/health" + probe).then().statusCode(200).contentType("application/json")
                    .body("status", equalTo("UP")).extract().jsonPath();
            JsonPath management = Management.given().when().get("/q/health" + probe).then().statusCode(200)
                    .extract().jsonPath();
            assertThat(data.getString("status")).isEqualTo(management.getString("status"));
            List<Map<String, Object>> checks = data.getList("checks");
            assertThat(checks).extracting(c -> c.get("name"))
                    .containsExactlyInAnyOrderElementsOf(management.getList("checks.name"));
            // names and states only: versions, circuit state and the like stay on the management port
            assertThat(checks).allSatisfy(c -> assertThat(c.keySet()).containsExactly("name", "status"));
        }
        assertThat(given().when().get("/health/ready").then().extract().asString()).doesNotContain("CARD_AUTH", "data");
    }

    @Test
    void probesAreGetOnly() {
        given().when().post("/health/live").then().statusCode(405).header("Allow", "GET")
                .body("code", equalTo("METHOD_NOT_ALLOWED"));
    }
}
