package io.vigil.engine.velocity;

import io.vertx.core.Vertx;
import io.vertx.redis.client.Redis;
import io.vertx.redis.client.RedisOptions;
import io.vigil.testing.redis.RedisExtension;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The velocity script contract on one real redis-server. */
class StandaloneVelocityScriptTest extends VelocityScriptContract {

    @RegisterExtension
    static final RedisExtension REDIS = RedisExtension.standalone();

    static RedisOptions options() {
        return new RedisOptions()
                .setConnectionString(REDIS.server().uri())
                .setMaxPoolSize(8)
                .setMaxPoolWaiting(4096)
                .setMaxWaitingHandlers(4096);
    }

    @Override
    Target target() {
        return new Target() {
            @Override
            public Redis open(Vertx vertx) {
                return Redis.createClient(vertx, options());
            }

            @Override
            public boolean cluster() {
                return false;
            }

            @Override
            public void flush() {
                REDIS.server().flushAll();
            }

            @Override
            public Object command(String key, String... args) {
                return REDIS.server().command(args);
            }

            @Override
            public void scriptFlush() {
                REDIS.server().command("SCRIPT", "FLUSH");
            }
        };
    }
}
