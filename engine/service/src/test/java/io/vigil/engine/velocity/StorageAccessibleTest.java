package io.vigil.engine.velocity;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;

import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.vigil.testing.redis.RedisServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@code storage_accessible} on {@code /v1/evaluate/health} follows the real velocity store: true
 * while Redis answers, false once it stopped answering (breaker open), true again when it is back.
 */
@QuarkusTest
@TestProfile(VelocityRedisProfile.class)
class StorageAccessibleTest {

    @AfterEach
    void redisBack() {
        RedisServer redis = RedisResource.server();
        if (!redis.isRunning()) {
            redis.restart();
        }
        VelocityHttp.awaitNormal();
    }

    static boolean storageAccessible() {
        var health = given().when().get("/v1/evaluate/health").then().statusCode(200).extract().jsonPath();
        // the existing engine's spelling says the same
        assertThat(health.getBoolean("storageAccessible")).isEqualTo(health.getBoolean("storage_accessible"));
        return health.getBoolean("storage_accessible");
    }

    @Test
    void followsTheVelocityStore() throws InterruptedException {
        VelocityHttp.awaitNormal();
        assertThat(storageAccessible()).isTrue();

        RedisResource.server().stop();
        boolean accessible = true;
        // Traffic finds Redis gone and opens the breaker; bounded, never a timing assertion.
        for (int i = 0; i < 200 && accessible; i++) {
            VelocityHttp.auth("sa-" + i, "sa-card-" + i, "sa-dev", 1);
            accessible = storageAccessible();
            if (accessible) {
                Thread.sleep(50);
            }
        }
        assertThat(accessible).as("storage_accessible with Redis stopped").isFalse();

        RedisResource.server().restart();
        VelocityHttp.awaitNormal();
        assertThat(storageAccessible()).isTrue();
    }
}
