package io.vigil.engine.http;

import io.smallrye.health.SmallRyeHealth;
import io.smallrye.health.SmallRyeHealthReporter;
import io.vertx.core.http.HttpHeaders;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import jakarta.json.JsonArray;
import jakarta.json.JsonObject;
import java.util.function.Supplier;

/**
 * {@code GET /health}, {@code /health/live}, {@code /health/ready} and {@code /health/started} on the data port, where the
 * existing engine served its probes and where its callers' probes and harnesses still call them.
 * The same health checks as the management port's {@code /q/health/*}, so the same meaning and the
 * same 200/503, but only each check's name and status: the checks' data (ruleset versions, circuit
 * state, ...) is management data and stays on the management port.
 */
@ApplicationScoped
public class DataPortProbes {
    public static final String HEALTH = "/health";
    public static final String LIVE = "/health/live";
    public static final String READY = "/health/ready";
    public static final String STARTED = "/health/started";

    @Inject
    SmallRyeHealthReporter reporter;

    void init(@Observes Router router) {
        probe(router, HEALTH, reporter::getHealth);
        probe(router, LIVE, reporter::getLiveness);
        probe(router, READY, reporter::getReadiness);
        probe(router, STARTED, reporter::getStartup);
    }

    private void probe(Router router, String path, Supplier<SmallRyeHealth> checks) {
        // Health checks are plain synchronous calls: off the event loop, as the management port runs them.
        router.get(path).blockingHandler(ctx -> answer(ctx, checks.get()), false);
        router.route(path).handler(ctx -> {
            ctx.response().putHeader(HttpHeaders.ALLOW, "GET");
            Errors.send(ctx.response(), 405, "METHOD_NOT_ALLOWED",
                    ctx.request().method() + " is not allowed on " + path + "; use GET", null);
        });
    }

    private static void answer(RoutingContext ctx, SmallRyeHealth health) {
        JsonObject payload = health.getPayload();
        JsonWriter w = JsonWriter.get().raw('{');
        w.key("status").string(payload.getString("status", health.isDown() ? "DOWN" : "UP"));
        w.key("checks").raw('[');
        JsonArray checks = payload.getJsonArray("checks");
        for (int i = 0; checks != null && i < checks.size(); i++) {
            JsonObject c = checks.getJsonObject(i);
            if (i > 0) {
                w.comma();
            }
            w.raw('{');
            w.key("name").string(c.getString("name", null));
            w.key("status").string(c.getString("status", null));
            w.raw('}');
        }
        w.raw(']').raw('}');
        ctx.response().setStatusCode(health.isDown() ? 503 : 200)
                .putHeader(HttpHeaders.CONTENT_TYPE, DataRoutes.JSON).end(w.toBuffer());
    }
}
