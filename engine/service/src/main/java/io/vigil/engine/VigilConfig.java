package io.vigil.engine;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import io.vigil.rules.eval.Outcome;
import io.vigil.rules.eval.VelocityFailurePolicy;
import java.nio.file.Path;
import java.time.Duration;

/** The engine's own settings ({@code vigil.*}); the operator sets them from the FraudEngine spec. */
@ConfigMapping(prefix = "vigil")
public interface VigilConfig {

    Engine engine();

    Rulesets rulesets();

    interface Engine {
        /** Budget of one request, from the first byte handled to the answer; velocity waits at most what is left. */
        @WithDefault("5ms")
        Duration deadline();

        /** What velocity rules do when the store does not answer in time (a ruleset may override it). */
        @WithDefault("skip")
        VelocityFailurePolicy velocityFailurePolicy();

        /** Requests evaluated at once (mostly: waiting for velocity); beyond it requests are shed in-band. */
        @WithDefault("2000")
        int maxInFlight();

        /** The decision of a shed request (engine_mode DEGRADED, engine_error_code LOAD_SHED). */
        @WithDefault("APPROVE")
        Outcome shedDecision();

        /** The decision when no ruleset could be evaluated (FAIL_OPEN). */
        @WithDefault("APPROVE")
        Outcome defaultDecision();

        /** Largest accepted request body on the data port. */
        @WithDefault("65536")
        int maxBodyBytes();

        /** How long simulate/replay wait for read-only velocity (management only, not the hot path). */
        @WithDefault("1s")
        Duration managementVelocityTimeout();

        WarmUp warmUp();
    }

    /** Synthetic decisions run before the engine reports ready (docs/operations: readiness means warm). */
    interface WarmUp {
        /** Off: ready as soon as the ruleset is loaded and velocity answered once. */
        @WithDefault("true")
        boolean enabled();

        /** Warm-up decisions to run at least (JIT of parse, decide, velocity client, answer JSON). */
        @WithDefault("12000")
        int decisions();

        /** Then more, until this many in a row were answered NORMAL within the deadline. */
        @WithDefault("2000")
        int normalStreak();

        /** Ready anyway after this long (logged): readiness must not hold a pod forever. */
        @WithDefault("90s")
        Duration maxDuration();

        /** Warm-up decisions in flight at once. */
        @WithDefault("16")
        int concurrency();

        /**
         * Then this many more through the data port itself (HTTP on loopback, the real route), so the
         * HTTP server's code and its contexts are compiled too; 0: none. With caller authentication on,
         * through the authenticated port (ADR 0024).
         */
        @WithDefault("4000")
        int httpDecisions();

        /**
         * Then one full garbage collection before ready: what the warm-up left alive is tenured and the
         * young generation starts empty, so the first young collections under real traffic copy only
         * that traffic's objects (on a busy machine the first ones after ready paused 10-23 ms against
         * the 5 ms deadline, then fell). A pause the pod takes while not yet in the Service.
         */
        @WithDefault("true")
        boolean collectGarbage();

        /** After the data-port decisions, more through the data port until the JIT is quiet (ADR 0029). */
        JitQuiet jitQuiet();
    }

    /**
     * Readiness waits for the JIT to go quiet: the JVM's compilation time may grow by at most
     * {@code budget} in each of {@code intervals} intervals in a row, while the warm-up keeps deciding
     * through the data port (at least {@code min-decisions} per interval). Bounded by
     * {@code max-duration}: then ready anyway, with a warning and {@code vigil_warm_up_jit_quiet} 0.
     */
    interface JitQuiet {
        /** Off: ready after the counted decisions, however busy the JIT still is. */
        @WithDefault("true")
        boolean enabled();

        @WithDefault("1s")
        Duration interval();

        /** Compilation time allowed per interval (5 % of one core by default). */
        @WithDefault("50ms")
        Duration budget();

        /** Quiet intervals in a row needed. */
        @WithDefault("3")
        int intervals();

        /** Warm-up decisions answered per interval for it to count as quiet. */
        @WithDefault("200")
        int minDecisions();

        /** Ready anyway after this long in this phase (logged, and the gauge says so). */
        @WithDefault("30s")
        Duration maxDuration();
    }

    interface Rulesets {
        /** Root of {@code <KEY>/v<N>/*.json|yaml} and optional {@code <KEY>/active}. */
        @WithDefault("rulesets")
        Path dir();

        /** How often the directory is checked for changed content. */
        @WithDefault("2s")
        Duration pollInterval();
    }
}
