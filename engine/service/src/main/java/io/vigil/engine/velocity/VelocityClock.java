package io.vigil.engine.velocity;

import io.quarkus.arc.DefaultBean;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;

import java.time.InstantSource;

/**
 * The clock velocity windows are computed with (passed to the script, so window edges are the
 * engine's and every replica agrees). A test or an embedding application replaces it with its own
 * {@link InstantSource} bean.
 */
@ApplicationScoped
public class VelocityClock {

    @Produces
    @DefaultBean
    @Singleton
    InstantSource systemClock() {
        return InstantSource.system();
    }
}
