package io.vigil.relay;

import jakarta.enterprise.context.ApplicationScoped;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.HealthCheckResponseBuilder;
import org.eclipse.microprofile.health.Readiness;

/**
 * Ready when the last monitor round reached Redis (the streams) and Kafka (the topic exists) and every
 * worker runs. Reads state the monitor thread keeps, so the probe never waits on either system.
 */
@Readiness
@ApplicationScoped
public class RelayReadiness implements HealthCheck {

    private final Relay relay;

    RelayReadiness(Relay relay) {
        this.relay = relay;
    }

    @Override
    public HealthCheckResponse call() {
        HealthCheckResponseBuilder b = HealthCheckResponse.named("relay")
                .status(relay.redisUp() && relay.kafkaUp() && relay.workersRunning())
                .withData("consumer", String.valueOf(relay.consumer()))
                .withData("redis", relay.redisUp() ? "up" : "down: " + relay.redisProblem())
                .withData("kafka", relay.kafkaUp() ? "up" : "down: " + relay.kafkaProblem())
                .withData("workers", relay.workersRunning() ? "running" : "stopped");
        return b.build();
    }
}
