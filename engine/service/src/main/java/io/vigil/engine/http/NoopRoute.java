package io.vigil.engine.http;

import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpHeaders;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.handler.BodyHandler;
import io.vigil.engine.VigilConfig;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

/**
 * {@code POST /v1/evaluate/noop}: the load benchmark's ceiling (docs/performance.md). Same server,
 * same event loop, same content-type check and body handler with the same limit as the evaluate
 * routes, then a fixed answer without parsing or deciding. AUTH throughput over this one's is the
 * share of the HTTP ceiling the decision path keeps.
 *
 * <p>Off unless {@code vigil.http.noop-endpoint.enabled=true} (env {@code VIGIL_HTTP_NOOP_ENDPOINT_ENABLED},
 * which {@code make bench} sets). The answer deliberately carries no {@code decision}: a caller that hit
 * it by mistake must not read an approval.
 */
@ApplicationScoped
public class NoopRoute {
    public static final String PATH = "/v1/evaluate/noop";
    private static final Buffer ANSWER = Buffer.buffer("{\"noop\":true,\"engine_mode\":\"NORMAL\"}");

    /** {@code vigil.http.*}: its own mapping root, so the engine's {@link VigilConfig} stays untouched. */
    @ConfigMapping(prefix = "vigil.http")
    public interface HttpConfig {
        NoopEndpoint noopEndpoint();

        /**
         * How recent the velocity store's last answer must be for {@code storage_accessible} on
         * {@code /v1/evaluate/health} without probing it again ({@link StorageHealth}).
         */
        @WithDefault("10s")
        java.time.Duration storageFreshness();

        interface NoopEndpoint {
            @WithDefault("false")
            boolean enabled();
        }
    }

    @Inject
    HttpConfig http;

    @Inject
    VigilConfig config;

    void init(@Observes Router router) {
        if (!http.noopEndpoint().enabled()) {
            return;
        }
        // Ordered before the data routes' catch-all 404 on /v1/*, whichever observer runs first.
        router.post(PATH).order(-20).handler(ctx -> {
            if (DataRoutes.acceptableContentType(ctx.request().getHeader(HttpHeaders.CONTENT_TYPE))) {
                ctx.next();
            } else {
                Errors.send(ctx.response(), 415, "UNSUPPORTED_MEDIA_TYPE", "Content-Type must be application/json", null);
            }
        });
        router.post(PATH).order(-19)
                .handler(BodyHandler.create(false).setBodyLimit(config.engine().maxBodyBytes()))
                .handler(ctx -> ctx.response().putHeader(HttpHeaders.CONTENT_TYPE, DataRoutes.JSON).end(ANSWER.copy()))
                .failureHandler(ctx -> Errors.send(ctx.response(), ctx.statusCode() == 413 ? 413 : 400,
                        ctx.statusCode() == 413 ? "PAYLOAD_TOO_LARGE" : "INVALID_REQUEST", "body: could not be read", null));
    }
}
