package io.vigil.engine.testing;

import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Metrics;
import io.quarkus.runtime.ShutdownEvent;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

/**
 * Gives every Quarkus test run of the engine its own meters.
 *
 * <p>The engine registers its meters on the injected registry, which is Micrometer's global composite.
 * Quarkus empties that composite when a dev-mode application stops, but not when a test profile's
 * application stops, and the next profile's application runs in the same JVM. Registering a meter
 * that is still there returns the old one: a gauge of the previous run, holding a weak reference to
 * that run's (dead) object. Once the garbage collector clears it, the gauge disappears from
 * {@code /q/metrics}; before that, it reports the previous run's value. Either way a test read another
 * run's number (CI once failed on a missing {@code vigil_engine_in_flight}).
 */
@ApplicationScoped
public class MetersPerRun {
    void stopped(@Observes ShutdownEvent event) {
        for (Meter meter : Metrics.globalRegistry.getMeters()) {
            Metrics.globalRegistry.remove(meter);
        }
    }
}
