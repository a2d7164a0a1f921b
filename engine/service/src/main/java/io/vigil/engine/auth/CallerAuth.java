package io.vigil.engine.auth;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import io.vertx.core.http.HttpHeaders;
import io.vertx.ext.web.RoutingContext;
import io.vigil.engine.http.Errors;
import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import org.jboss.logging.Logger;

/**
 * The engine's caller authentication: builds the token verifier and the key refresher when a port
 * asks for JWT, and answers refusals the same way on both ports (status, JSON error body,
 * {@code WWW-Authenticate}, {@code vigil_auth_refused_total{port,reason}}). Refusals are never logged
 * with the token; a DEBUG line names the reason only.
 */
@ApplicationScoped
public class CallerAuth {
    private static final Logger LOG = Logger.getLogger(CallerAuth.class);

    /** The {@code port} label. */
    public enum Port {
        DATA, MANAGEMENT;

        final String label = name().toLowerCase(java.util.Locale.ROOT);
    }

    @Inject
    AuthConfig config;
    @Inject
    MeterRegistry registry;

    private final Counter[][] refused = new Counter[Port.values().length][Refusal.values().length];
    private volatile CallerKeys keys;
    private volatile CallerTokens tokens;

    /** Before the routers are built (their observers run at startup too): keys are loaded, or their absence is known. */
    void start(@Observes @Priority(1) StartupEvent ignored) {
        init();
    }

    synchronized void init() {
        if (tokens != null || !(config.data().jwtEnabled() || config.management().jwtEnabled())) {
            return;
        }
        for (Port p : Port.values()) {
            for (Refusal r : Refusal.values()) {
                refused[p.ordinal()][r.ordinal()] = Counter.builder("vigil.auth.refused")
                        .description("Requests refused by caller authentication, by port and reason (4xx are not in the availability SLI)")
                        .tags("port", p.label, "reason", r.label).register(registry);
            }
        }
        CallerKeys k = new CallerKeys(config.jwt(), registry, System::currentTimeMillis);
        tokens = new CallerTokens(config.jwt(), k, registry, System::currentTimeMillis);
        keys = k;
        k.start();
    }

    void stop(@Observes ShutdownEvent ignored) {
        CallerKeys k = keys;
        if (k != null) {
            k.close();
        }
    }

    /** The verifier, or null when no port uses JWT. */
    public CallerTokens tokens() {
        init();
        return tokens;
    }

    /** Ready for tokens: a JWKS was loaded at least once (or no port needs one). */
    public boolean keysLoaded() {
        return keys == null || keys.current() != null;
    }

    /** Answers a refusal: the status, {@code WWW-Authenticate} for bearer refusals, the usual error body. */
    public void refuse(RoutingContext ctx, Port port, Refusal r, String scope) {
        Counter c = refused[port.ordinal()][r.ordinal()];
        if (c == null) {
            c = Counter.builder("vigil.auth.refused").tags("port", port.label, "reason", r.label).register(registry);
        }
        c.increment();
        LOG.debugf("refused %s %s on the %s port: %s", ctx.request().method(), ctx.request().path(), port.label, r.label);
        if (r != Refusal.NO_CERTIFICATE && r != Refusal.SUBJECT_NOT_ALLOWED && r.status != 503) {
            StringBuilder h = new StringBuilder("Bearer realm=\"vigil\"");
            if (r.bearerError != null) {
                h.append(", error=\"").append(r.bearerError).append('"');
                h.append(", error_description=\"").append(r.message).append('"');
            }
            if (scope != null && r == Refusal.INSUFFICIENT_SCOPE) {
                h.append(", scope=\"").append(scope).append('"');
            }
            ctx.response().putHeader("WWW-Authenticate", h.toString());
        }
        String message = r == Refusal.INSUFFICIENT_SCOPE && scope != null ? r.message + " (" + scope + ")" : r.message;
        Errors.send(ctx.response(), r.status, r.code(), message, null);
    }
}
