package io.vigil.engine.velocity;

import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.vigil.engine.velocity.VelocityHttp.Answer;
import io.vigil.testing.redis.RedisServer;
import org.junit.jupiter.api.Test;

import static io.vigil.engine.velocity.VelocityHttp.auth;
import static io.vigil.engine.velocity.VelocityHttp.awaitNormal;
import static org.assertj.core.api.Assertions.assertThat;

/** velocity-failure-policy=exceeded: with Redis down, velocity rules decide as if their threshold was reached. */
@QuarkusTest
@TestProfile(VelocityRedisProfile.FailClosed.class)
class VelocityFailClosedTest {

    @Test
    void redisDownMakesTheFirstVelocityRuleDecide() {
        awaitNormal();
        assertThat(auth("fc-up-1", "fc-card-1", "fc-dev-1", 5).decision()).isEqualTo("APPROVE");

        RedisServer redis = RedisResource.server();
        redis.stop();
        try {
            for (int i = 0; i < 10; i++) { // before and after the breaker opens
                Answer a = auth("fc-down-" + i, "fc-card-down-" + i, "fc-dev-down-" + i, 5);
                assertThat(a.status()).isEqualTo(200);
                assertThat(a.decision()).as(a.toString()).isEqualTo("DECLINE");
                assertThat(a.ruleId()).isEqualTo("card-5m-count");
                assertThat(a.reasonCode()).isEqualTo("VELOCITY_CARD_5M");
                assertThat(a.mode()).isEqualTo("DEGRADED");
                assertThat(a.errorCode()).isEqualTo("VELOCITY_UNAVAILABLE");
            }
        } finally {
            redis.restart();
        }
        awaitNormal();
        assertThat(auth("fc-up-2", "fc-card-2", "fc-dev-2", 5).decision()).isEqualTo("APPROVE");
    }
}
