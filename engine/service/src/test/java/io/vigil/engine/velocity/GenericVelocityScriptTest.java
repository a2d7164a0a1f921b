package io.vigil.engine.velocity;

import io.vertx.redis.client.Redis;

/**
 * The velocity script contract on the generic script (velocity.lua: the plan in its arguments), which
 * answers plans beyond the generated-script cache and calls of more than 60 checks: both script kinds
 * keep one contract.
 */
class GenericVelocityScriptTest extends StandaloneVelocityScriptTest {

    @Override
    VelocityScriptClient newClient(Redis redis, int distinctCap) {
        return VelocityScriptClient.generic(vertx, redis, cluster(), 10, distinctCap);
    }
}
