package io.vigil.testing.redis;

import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;

@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class RedisExtensionTest {

    @RegisterExtension
    static final RedisExtension REDIS = RedisExtension.standalone().flushBeforeEach();

    @Test
    @Order(1)
    void injectsTheServerAndLeavesItBroken(RedisServer redis) {
        assertThat(redis).isSameAs(REDIS.server());
        redis.command("SET", "left-over", "1");
        redis.freeze();
    }

    @Test
    @Order(2)
    void nextTestGetsAHealedEmptyServer(RedisServer redis) {
        assertThat(redis.ping()).isTrue();
        assertThat(redis.command("DBSIZE")).isEqualTo(0L);
        redis.stop();
    }

    @Test
    @Order(3)
    void stoppedServerIsRestartedOnTheSamePort(RedisServer redis) {
        assertThat(redis.isRunning()).isTrue();
        assertThat(REDIS.hosts()).isEqualTo("redis://127.0.0.1:" + redis.port());
    }
}
