package io.vigil.engine.velocity;

import io.vertx.redis.client.Redis;
import io.vertx.redis.client.RedisOptions;
import io.vigil.testing.redis.RedisExtension;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The velocity script contract on one real redis-server. */
class StandaloneVelocityScriptTest extends VelocityScriptContract {

    @RegisterExtension
    static final RedisExtension REDIS = RedisExtension.standalone();

    static Redis client;

    @BeforeAll
    static void connect() {
        startVertx();
        client = open();
    }

    @AfterAll
    static void disconnect() {
        client.close();
    }

    static Redis open() {
        return Redis.createClient(vertx, new RedisOptions()
                .setConnectionString(REDIS.server().uri())
                .setMaxPoolSize(8)
                .setMaxPoolWaiting(4096)
                .setMaxWaitingHandlers(4096));
    }

    @Override
    Redis redis() {
        return client;
    }

    @Override
    Redis newClient() {
        return open();
    }

    @Override
    boolean cluster() {
        return false;
    }

    @Override
    void flush() {
        REDIS.server().flushAll();
    }

    @Override
    Object command(String key, String... args) {
        return REDIS.server().command(args);
    }

    @Override
    void scriptFlush() {
        REDIS.server().command("SCRIPT", "FLUSH");
    }
}
