package io.vigil.engine.auth;

import io.vertx.core.http.HttpHeaders;
import io.vertx.core.net.SocketAddress;
import io.vertx.ext.web.RoutingContext;
import io.vigil.engine.decision.DecisionPath;
import io.vigil.engine.http.RequestGuard;
import jakarta.annotation.PostConstruct;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import java.util.List;

/**
 * Only known callers on the data port's {@code /v1/*} (evaluate, the compatibility health, the bench's
 * no-op): a client certificate (from an allowed subject when {@code vigil.auth.data.allowed-subjects} is
 * set) when {@code vigil.auth.data.client-certificate-required}, and a bearer JWT with the required scope
 * when {@code vigil.auth.data.jwt-enabled}. The kubelet's {@code /health/*} probes stay open.
 *
 * <p>Called by {@link RequestGuard}'s handler, before any body is read, on the event loop, rather than
 * from a route of its own: the extra route the router matched and dispatched for every request was most
 * of JWT's cost per decision at 2,000/s (ADR 0013, "2026-11-27"). A singleton: no client proxy between
 * that handler and this check.
 */
@Singleton
public class DataPortAuth {
    @Inject
    AuthConfig config;
    @Inject
    CallerAuth auth;
    @Inject
    DecisionPath decisions;

    private boolean on;
    private CallerCertificates certificates;
    private CallerTokens tokens;
    private String scope;

    @PostConstruct
    void init() {
        List<String> subjects = config.data().allowedSubjects().orElse(List.of());
        boolean jwt = config.data().jwtEnabled();
        boolean certificate = config.data().clientCertificateRequired() || !subjects.isEmpty();
        on = jwt || certificate;
        certificates = certificate ? new CallerCertificates(subjects) : null;
        tokens = jwt ? auth.tokens() : null;
        scope = config.data().requiredScope().filter(s -> !s.isBlank()).orElse(null);
    }

    /** Whether the data port checks callers at all. */
    public boolean on() {
        return on;
    }

    /** The paths it guards: what the route {@code /v1/*} matched (the router's normalized path, case-sensitive). */
    public static boolean guards(String normalizedPath) {
        return normalizedPath.startsWith("/v1/") || normalizedPath.equals("/v1");
    }

    /**
     * True when the caller may go on; otherwise the refusal has been answered. {@code warmUp}: the request
     * carries the warm-up's token (RequestGuard matched it, once per request).
     */
    public boolean admits(RoutingContext ctx, boolean warmUp) {
        if (warmUp && loopback(ctx.request().remoteAddress())) {
            // the engine's own warm-up (docs/adr/0024-warm-up-through-authenticated-port.md): its per-process
            // secret stands in for a credential, from loopback, until the warm-up ends; it can only make
            // warm-up decisions (DataRoutes), which leave no trace
            return true;
        }
        if (certificates != null) {
            Refusal r = certificates.check(ctx.request().connection().sslSession());
            if (r != null) {
                refuse(ctx, r, null);
                return false;
            }
        }
        if (tokens != null) {
            CallerTokens.Verdict v = tokens.verify(ctx.request().getHeader(HttpHeaders.AUTHORIZATION));
            if (v.refusal() != null) {
                refuse(ctx, v.refusal(), null);
                return false;
            }
            if (!v.caller().may(scope)) {
                refuse(ctx, Refusal.INSUFFICIENT_SCOPE, scope);
                return false;
            }
        }
        return true;
    }

    static boolean loopback(SocketAddress peer) {
        String host = peer == null ? null : peer.hostAddress();
        return host != null && (host.startsWith("127.") || host.equals("::1") || host.equals("0:0:0:0:0:0:0:1"));
    }

    private void refuse(RoutingContext ctx, Refusal r, String scope) {
        // Also in vigil_evaluate_rejected_total like every data-port refusal: 4xx stay out of the SLI, a 503 counts.
        decisions.metrics().rejected(RequestGuard.endpointOf(ctx.request().path()), r.status, r.code());
        auth.refuse(ctx, CallerAuth.Port.DATA, r, scope);
    }
}
