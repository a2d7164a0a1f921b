package io.vigil.engine.decision;

import io.quarkus.arc.DefaultBean;
import io.vigil.rules.velocity.VelocityStore;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;

/**
 * What the engine uses until a real velocity store and outbox are on the classpath: their beans
 * replace these ({@code @DefaultBean} yields to any other bean of the type).
 */
@ApplicationScoped
public class DefaultBeans {

    /** Answers every velocity request as unavailable: DEGRADED / VELOCITY_UNAVAILABLE, never a silent zero. */
    @Produces
    @DefaultBean
    @ApplicationScoped
    VelocityStore noVelocityStore() {
        return VelocityStore.NONE;
    }

    /** Drops decision records: nothing durable is configured. */
    @Produces
    @DefaultBean
    @ApplicationScoped
    DecisionSink noDecisionSink() {
        return DecisionSink.NOWHERE;
    }
}
