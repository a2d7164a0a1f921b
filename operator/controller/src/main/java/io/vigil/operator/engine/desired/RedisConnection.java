package io.vigil.operator.engine.desired;

import io.vigil.operator.api.v1alpha1.FraudEngine;
import io.vigil.operator.api.v1alpha1.SecretKeyRef;
import io.vigil.operator.api.v1alpha1.VelocitySpec;
import io.vigil.operator.engine.Names;

/**
 * How engine, relay and KEDA reach the Redis, managed or external.
 *
 * @param address     host:port of Redis (standalone/external) or of the sentinels (replication)
 * @param sentinel    true when clients must ask sentinels for the primary
 * @param masterName  sentinel master group name (replication only)
 * @param password    secret holding the password, or null
 */
public record RedisConnection(String address, boolean sentinel, String masterName, SecretKeyRef password) {

    /** Sentinel master group configured on the managed RedisSentinel. */
    public static final String MASTER_GROUP = "vigil";

    public static RedisConnection of(FraudEngine fe) {
        VelocitySpec.Redis redis = fe.getSpec().velocity.redis;
        if (redis.hasExternal()) {
            return new RedisConnection(redis.external.address, false, null, redis.external.passwordSecretRef);
        }
        VelocitySpec.ManagedRedis m = redis.managedOrDefault();
        String ns = fe.getMetadata().getNamespace();
        if (m.replication()) {
            // redis-operator names the sentinel Service <RedisSentinel name>-sentinel.
            return new RedisConnection(Names.redis(fe) + "-sentinel." + ns + ".svc:26379", true, MASTER_GROUP, m.passwordSecretRef);
        }
        return new RedisConnection(Names.redis(fe) + "." + ns + ".svc:6379", false, null, m.passwordSecretRef);
    }

    public String uri() {
        return "redis://" + address;
    }
}
