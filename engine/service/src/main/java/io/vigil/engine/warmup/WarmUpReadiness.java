package io.vigil.engine.warmup;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Readiness;

/** Ready only once warm ({@link WarmUp}): a pod that joins the Service answers NORMAL within the deadline. */
@Readiness
@ApplicationScoped
public class WarmUpReadiness implements HealthCheck {

    @Inject
    WarmUp warmUp;

    @Override
    public HealthCheckResponse call() {
        return HealthCheckResponse.named("warm-up")
                .status(warmUp.warm())
                .withData("state", warmUp.state().name().toLowerCase(java.util.Locale.ROOT))
                .withData("decisions", warmUp.decisionsRun())
                .withData("normal_in_a_row", warmUp.normalInARow())
                .withData("http_decisions", warmUp.httpDecisionsRun())
                .withData("http_unanswered", warmUp.httpUnanswered())
                .withData("answers_recorded_apart", warmUp.answersRecordedApart())
                .withData("velocity_writes", warmUp.velocityWrites())
                .withData("velocity_keys_deleted", warmUp.velocityKeysDeleted())
                .withData("outbox_entries", warmUp.outboxEntries())
                .withData("garbage_collection_ms", warmUp.garbageCollectionMillis())
                .withData("jit_quiet", warmUp.jitQuietOutcome().name().toLowerCase(java.util.Locale.ROOT))
                .withData("jit_quiet_decisions", warmUp.jitQuietDecisions())
                .withData("jit_quiet_compilation_ms", warmUp.jitQuietCompilationMillis())
                .build();
    }
}
