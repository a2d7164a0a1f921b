package io.vigil.engine.velocity;

import io.quarkus.runtime.StartupEvent;
import io.vigil.rules.velocity.VelocityStore;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.Instance;
import jakarta.enterprise.inject.Produces;
import org.jboss.logging.Logger;

/**
 * The engine's {@link VelocityStore}: Redis when {@code vigil.velocity.enabled} (the default), else
 * {@link VelocityStore#NONE} (velocity rules see "unavailable"; Redis is never connected). Replaces
 * the service's {@code @DefaultBean}.
 */
@ApplicationScoped
public class VelocityStoreProducer {

    private static final Logger LOG = Logger.getLogger(VelocityStoreProducer.class);

    @Produces
    @ApplicationScoped
    VelocityStore velocityStore(VelocityConfig config, Instance<RedisVelocityStore> redis) {
        if (!config.enabled()) {
            LOG.warn("velocity store disabled (vigil.velocity.enabled=false): velocity rules answer VELOCITY_UNAVAILABLE");
            return VelocityStore.NONE;
        }
        return redis.get();
    }

    /** Connects at start (and loads the script) so readiness turns true without waiting for traffic. */
    void onStart(@Observes StartupEvent event, VelocityConfig config, Instance<RedisVelocityStore> redis) {
        if (config.enabled()) {
            redis.get().probe();
        }
    }
}
