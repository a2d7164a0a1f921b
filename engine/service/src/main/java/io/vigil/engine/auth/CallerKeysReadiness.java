package io.vigil.engine.auth;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Readiness;

/**
 * With JWT on, not ready until the issuer's keys were loaded once: a replica that could only answer 503
 * stays out of the Service. Later issuer outages do not make it unready (the last good keys are used).
 */
@Readiness
@ApplicationScoped
public class CallerKeysReadiness implements HealthCheck {
    @Inject
    CallerAuth auth;

    @Override
    public HealthCheckResponse call() {
        return HealthCheckResponse.named("caller-keys").status(auth.keysLoaded()).build();
    }
}
