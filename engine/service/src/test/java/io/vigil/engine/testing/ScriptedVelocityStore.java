package io.vigil.engine.testing;

import io.vigil.rules.velocity.VelocityRequest;
import io.vigil.rules.velocity.VelocityResults;
import io.vigil.rules.velocity.VelocityStore;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Alternative;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A velocity store whose behaviour the test chooses: answer every check with a fixed aggregate,
 * answer "unavailable", or never answer. Enabled per test profile (it is an alternative), so tests of
 * the service's own decision path do not depend on a Redis.
 */
@Alternative
@ApplicationScoped
public class ScriptedVelocityStore implements VelocityStore {

    public enum Behaviour { ANSWER, UNAVAILABLE, NEVER_ANSWER }

    private static volatile Behaviour behaviour = Behaviour.ANSWER;
    private static volatile double aggregate = 1;
    private static final List<VelocityRequest> REQUESTS = new CopyOnWriteArrayList<>();

    public static void reset() {
        behaviour = Behaviour.ANSWER;
        aggregate = 1;
        REQUESTS.clear();
    }

    public static void answer(double value) {
        behaviour = Behaviour.ANSWER;
        aggregate = value;
    }

    public static void behave(Behaviour b) {
        behaviour = b;
    }

    public static List<VelocityRequest> requests() {
        return REQUESTS;
    }

    @Override
    public CompletionStage<VelocityResults> check(VelocityRequest request) {
        REQUESTS.add(request);
        return switch (behaviour) {
            case ANSWER -> {
                double[] values = new double[request.checks().size()];
                java.util.Arrays.fill(values, aggregate);
                yield CompletableFuture.completedFuture(VelocityResults.of(values));
            }
            case UNAVAILABLE -> CompletableFuture.completedFuture(VelocityResults.unavailable("scripted: unavailable"));
            case NEVER_ANSWER -> new CompletableFuture<>();
        };
    }

}
