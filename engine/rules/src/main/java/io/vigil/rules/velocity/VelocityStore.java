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

    VelocityStore NONE = request -> java.util.concurrent.CompletableFuture.completedFuture(
            VelocityResults.unavailable("no velocity store configured"));
}
