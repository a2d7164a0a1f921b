package io.vigil.engine.velocity;

import io.vertx.core.Context;
import io.vertx.core.impl.VertxInternal;
import io.vigil.rules.velocity.VelocityRequest;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The velocity script contract through the engine's transport: calls made on event loops (two, in
 * turn), each written on its loop's own connection (docs/adr/0021-velocity-connection-per-event-loop.md).
 */
class LaneVelocityScriptTest extends StandaloneVelocityScriptTest {

    private final AtomicInteger turn = new AtomicInteger();
    private Context[] loops;

    @Override
    VelocityScriptClient newClient(io.vertx.redis.client.Redis redis, int distinctCap) {
        return VelocityScriptClient.withLanes(vertx, redis, cluster(), 10, distinctCap, options());
    }

    @Override
    CompletionStage<double[]> call(VelocityScriptClient which, VelocityRequest request, long now) {
        if (loops == null) {
            VertxInternal internal = (VertxInternal) vertx;
            loops = new Context[] {internal.createEventLoopContext(), internal.createEventLoopContext()};
        }
        CompletableFuture<double[]> answer = new CompletableFuture<>();
        loops[turn.getAndIncrement() % loops.length].runOnContext(v -> which.run(request, now).whenComplete((values, failure) -> {
            if (failure != null) {
                answer.completeExceptionally(failure);
            } else {
                answer.complete(values);
            }
        }));
        return answer;
    }
}
