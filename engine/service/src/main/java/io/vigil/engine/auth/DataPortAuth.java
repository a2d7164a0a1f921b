package io.vigil.engine.auth;

import io.vertx.core.http.HttpHeaders;
import io.vertx.core.net.SocketAddress;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vigil.engine.decision.DecisionPath;
import io.vigil.engine.http.RequestGuard;
import io.vigil.engine.warmup.WarmUpToken;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import java.util.List;

/**
 * Only known callers on the data port's {@code /v1/*} (evaluate, the compatibility health, the bench's
 * no-op): a client certificate (from an allowed subject when {@code vigil.auth.data.allowed-subjects} is
 * set) when {@code vigil.auth.data.client-certificate-required}, and a bearer JWT with the required scope when {@code vigil.auth.data.jwt-enabled}. The kubelet's
 * {@code /health/*} probes stay open. Runs right after {@code RequestGuard} (order -100), before any
 * body is read, on the event loop.
 */
@ApplicationScoped
public class DataPortAuth {
    static final int ORDER = -90;

    @Inject
    AuthConfig config;
    @Inject
    CallerAuth auth;
    @Inject
    DecisionPath decisions;
    @Inject
    WarmUpToken warmUpToken;

    void init(@Observes Router router) {
        List<String> subjects = config.data().allowedSubjects().orElse(List.of());
        boolean jwt = config.data().jwtEnabled();
        boolean certificate = config.data().clientCertificateRequired() || !subjects.isEmpty();
        if (!jwt && !certificate) {
            return;
        }
        CallerCertificates certificates = certificate ? new CallerCertificates(subjects) : null;
        CallerTokens tokens = jwt ? auth.tokens() : null;
        String scope = config.data().requiredScope().filter(s -> !s.isBlank()).orElse(null);
        router.route("/v1/*").order(ORDER).handler(ctx -> check(ctx, certificates, tokens, scope));
    }

    private void check(RoutingContext ctx, CallerCertificates certificates, CallerTokens tokens, String scope) {
        String warmUp = ctx.request().getHeader(WarmUpToken.HEADER);
        if (warmUp != null && warmUpToken.matches(warmUp) && loopback(ctx.request().remoteAddress())) {
            // the engine's own warm-up (docs/adr/0024-warm-up-through-authenticated-port.md): its per-process
            // secret stands in for a credential, from loopback, until the warm-up ends; it can only make
            // warm-up decisions (DataRoutes), which leave no trace
            ctx.next();
            return;
        }
        if (certificates != null) {
            Refusal r = certificates.check(ctx.request().connection().sslSession());
            if (r != null) {
                refuse(ctx, r, null);
                return;
            }
        }
        if (tokens != null) {
            CallerTokens.Verdict v = tokens.verify(ctx.request().getHeader(HttpHeaders.AUTHORIZATION));
            if (v.refusal() != null) {
                refuse(ctx, v.refusal(), null);
                return;
            }
            if (!v.caller().may(scope)) {
                refuse(ctx, Refusal.INSUFFICIENT_SCOPE, scope);
                return;
            }
        }
        ctx.next();
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
