package io.vigil.engine.warmup;

import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import java.util.concurrent.atomic.AtomicInteger;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * Test only: leaves chosen warm-up requests through the data port unanswered, as one was on the quiet
 * machine (issue 22). Off unless {@code vigil-test.warm-up.swallow} is set (WarmUpUnansweredTest):
 * the first such request gets no answer at all, the second a response head and a body that never ends.
 */
@ApplicationScoped
public class SwallowedWarmUpRequests {

    @ConfigProperty(name = "vigil-test.warm-up.swallow", defaultValue = "false")
    boolean swallow;

    private final AtomicInteger seen = new AtomicInteger();

    void init(@Observes Router router) {
        if (swallow) {
            router.route("/v1/evaluate/*").order(-200).handler(this::maybeSwallow);
        }
    }

    private void maybeSwallow(RoutingContext ctx) {
        if (ctx.request().getHeader(WarmUpToken.HEADER) == null) {
            ctx.next();
            return;
        }
        int n = seen.incrementAndGet();
        if (n == 10) {
            return; // never answered: no head, no body
        }
        if (n == 20) {
            ctx.response().setChunked(true).putHeader("Content-Type", "application/json").write("{"); // never ended
            return;
        }
        ctx.next();
    }
}
