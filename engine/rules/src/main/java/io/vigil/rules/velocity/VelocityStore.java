package io.vigil.rules.velocity;

import java.util.concurrent.CompletionStage;

/**
 * Where velocity aggregates come from. The engine's Redis store implements it; until one is
 * configured {@link #NONE} answers every request as unavailable, so the decision says DEGRADED /
 * VELOCITY_UNAVAILABLE instead of counting zero.
 *
 * <p>Implementations must not block the calling thread and must answer all checks of a request in
 * one round trip.
 */
public interface VelocityStore {

    CompletionStage<VelocityResults> check(VelocityRequest request);

    /**
     * A warm-up request (readiness): the same work as {@link #check}, writes included, but on state
     * apart from every real key, so that no real counter moves. A store that keeps no such state
     * answers it read-only.
     */
    default CompletionStage<VelocityResults> checkWarmUp(VelocityRequest request) {
        return check(request.readOnly() ? request
                : new VelocityRequest(request.transactionId(), request.checks(), true));
    }

    /**
     * The store as real traffic calls it; {@link #forWarmUp} as the warm-up does. A caller picks one when
     * a request is made, so that the code both run holds no warm-up branch (docs/adr/0029). A store may
     * answer both with objects of one class (the compiled call sites then see one class). By default
     * this store itself.
     */
    default VelocityStore forTraffic() {
        return this;
    }

    /** {@link #checkWarmUp} as a store (see {@link #forTraffic}). */
    default VelocityStore forWarmUp() {
        return this::checkWarmUp;
    }

    VelocityStore NONE = request -> java.util.concurrent.CompletableFuture.completedFuture(
            VelocityResults.unavailable("no velocity store configured"));
}
