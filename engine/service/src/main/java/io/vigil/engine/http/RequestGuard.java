package io.vigil.engine.http;

import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vigil.engine.VigilConfig;
import io.vigil.engine.auth.DataPortAuth;
import io.vigil.engine.decision.DecisionPath;
import io.vigil.engine.warmup.WarmUpToken;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import java.util.List;

/**
 * First handler of every data-port request, before any body is read:
 * <ul>
 *   <li>a {@code Transfer-Encoding} other than {@code chunked} → 501 (RFC 9112 §6.1: the engine
 *       cannot decode it, and ignoring it would read the coded bytes as the next request);</li>
 *   <li>a {@code Content-Length} over the body limit → 413 at once, without reading the body.</li>
 * </ul>
 * Both in the JSON error shape and with {@code Connection: close}. Ordered before Quarkus's own
 * upload limit (which answers 413 with an empty body), so no data-port error is bodiless.
 * Then, on {@code /v1/*}, caller authentication when it is on ({@link DataPortAuth}: in this handler,
 * not a route of its own, to spare every request a route's matching and dispatch).
 * <p>Whether a request is the engine's own warm-up ({@link WarmUpToken}) is decided here, once: the
 * header read and the constant-time match serve both the authentication (which admits it from loopback
 * only) and {@link DataRoutes} (which keeps its decision apart), through {@link #isWarmUp}.
 */
@ApplicationScoped
public class RequestGuard {
    /** Before Quarkus's upload limit (-2) and the no-op route (-20). */
    static final int ORDER = -100;
    /** RoutingContext data: present (TRUE) on a request carrying the warm-up's token. */
    private static final String WARM_UP = "vigil.warm-up";

    @Inject
    VigilConfig config;
    @Inject
    DecisionPath decisions;
    @Inject
    ClientErrors clientErrors;
    @Inject
    DataPortAuth callers;
    @Inject
    WarmUpToken warmUpToken;

    void init(@Observes Router router) {
        router.route().order(ORDER).handler(this::guard);
    }

    private void guard(RoutingContext ctx) {
        HttpServerRequest request = ctx.request();
        // getHeader first: no list is allocated for the usual request without Transfer-Encoding
        List<String> codings = request.getHeader(HttpHeaders.TRANSFER_ENCODING) == null ? List.of()
                : request.headers().getAll(HttpHeaders.TRANSFER_ENCODING);
        if (!codings.isEmpty() && !onlyChunked(codings)) {
            clientErrors.record(endpointOf(request.path()), ClientErrors.Kind.TRANSFER_CODING,
                    request.method() + " " + request.path(), "Transfer-Encoding " + String.join(", ", codings));
            ctx.response().putHeader(HttpHeaders.CONNECTION, "close");
            Errors.send(ctx.response(), 501, "TRANSFER_CODING_NOT_SUPPORTED",
                    "Transfer-Encoding " + String.join(", ", codings) + " is not supported; send the body as is or chunked",
                    null);
            return;
        }
        String length = request.getHeader(HttpHeaders.CONTENT_LENGTH);
        if (length != null && tooLong(length, config.engine().maxBodyBytes())) {
            String endpoint = endpointOf(request.path());
            decisions.metrics().rejected(endpoint, 413, "PAYLOAD_TOO_LARGE");
            ctx.response().putHeader(HttpHeaders.CONNECTION, "close");
            Errors.send(ctx.response(), 413, "PAYLOAD_TOO_LARGE",
                    "body: larger than the limit of " + config.engine().maxBodyBytes() + " bytes", null);
            return;
        }
        String token = request.getHeader(WarmUpToken.HEADER);
        boolean warmUp = token != null && warmUpToken.matches(token);
        if (callers.on() && DataPortAuth.guards(ctx.normalizedPath()) && !callers.admits(ctx, warmUp)) {
            return;
        }
        if (warmUp) {
            ctx.put(WARM_UP, Boolean.TRUE);
        }
        ctx.next();
    }

    /** Whether this request carries the warm-up's token (matched by {@link #guard}, the first handler). */
    static boolean isWarmUp(RoutingContext ctx) {
        return ctx.get(WARM_UP) != null;
    }

    /** {@code chunked} alone, in any case; every other coding or list (even one ending in chunked) is refused. */
    static boolean onlyChunked(List<String> codings) {
        return codings.size() == 1 && codings.get(0).trim().equalsIgnoreCase("chunked");
    }

    /** Content-Length above the limit; Netty has already refused a length that is not a number. */
    private static boolean tooLong(String length, int limit) {
        String s = length.trim();
        if (s.length() > 18) {
            return true;
        }
        try {
            return Long.parseLong(s) > limit;
        } catch (NumberFormatException e) {
            return false;
        }
    }

    /** The {@code endpoint} label of a data-port path. */
    public static String endpointOf(String path) {
        if (DataRoutes.AUTH.equals(path)) {
            return "auth";
        }
        if (DataRoutes.MONITORING.equals(path)) {
            return "monitoring";
        }
        return "other";
    }
}
