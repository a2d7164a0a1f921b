package io.vigil.engine.velocity;

import io.quarkus.redis.client.RedisOptionsCustomizer;
import io.vertx.redis.client.RedisOptions;
import jakarta.inject.Singleton;

/**
 * Keeps a copy of the options Quarkus built for the default Redis client (the velocity store's), so
 * that the velocity transport can open one connection per event loop to the same Redis, with the same
 * hosts, credentials, TLS and limits ({@link VelocityTransport}). Changes nothing.
 */
@Singleton
public class VelocityRedisOptions implements RedisOptionsCustomizer {

    /** Quarkus' name of the default client ({@code quarkus.redis.*}). */
    static final String DEFAULT_CLIENT = "<default>";

    private volatile RedisOptions velocity;

    @Override
    public void customize(String clientName, RedisOptions options) {
        if (DEFAULT_CLIENT.equals(clientName)) {
            velocity = new RedisOptions(options);
        }
    }

    /** The default client's options, or null before Quarkus created it. */
    public RedisOptions velocity() {
        RedisOptions options = velocity;
        return options == null ? null : new RedisOptions(options);
    }
}
