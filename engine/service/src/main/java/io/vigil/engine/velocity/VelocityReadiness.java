package io.vigil.engine.velocity;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.HealthCheckResponseBuilder;
import org.eclipse.microprofile.health.Readiness;

/**
 * Ready once the velocity store answered at least once (contract §1). Later outages do not make
 * the engine unready: it keeps answering (DEGRADED) and the circuit state is reported here and in
 * metrics, so Kubernetes does not pull every replica out of the Service when Redis blinks.
 */
@Readiness
@ApplicationScoped
public class VelocityReadiness implements HealthCheck {

    @Inject
    VelocityConfig config;
    @Inject
    Instance<RedisVelocityStore> redis;

    @Override
    public HealthCheckResponse call() {
        HealthCheckResponseBuilder response = HealthCheckResponse.named("velocity-store");
        if (!config.enabled()) {
            return response.up().withData("store", "none (vigil.velocity.enabled=false)").build();
        }
        RedisVelocityStore store = redis.get();
        if (!store.answeredOnce()) {
            store.probe(); // next readiness call sees the outcome
            return response.down().withData("store", "redis").withData("answered", false).build();
        }
        return response.up()
                .withData("store", "redis")
                .withData("answered", true)
                .withData("circuit", switch (store.circuitState()) {
                    case 0 -> "closed";
                    case 1 -> "half-open";
                    default -> "open";
                })
                .build();
    }
}
