package io.vigil.engine.auth;

import io.quarkus.vertx.http.ManagementInterface;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpMethod;
import io.vertx.ext.web.RoutingContext;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.Set;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * The management port with {@code vigil.auth.management.jwt-enabled}: every request needs a bearer
 * JWT, reading (GET, HEAD) the read scope and everything else (activate, validate, simulate, replay)
 * the write scope. Open: the kubelet's probes ({@code /q/health/live|ready|started}: it cannot send a
 * token, and they say nothing but UP/DOWN). The metrics path also takes the static credential of
 * {@code metrics-token-file} (Prometheus's {@code credentials_file}), re-read when the file changes.
 */
@ApplicationScoped
public class ManagementAuth {
    static final int ORDER = -100;

    @Inject
    AuthConfig config;
    @Inject
    CallerAuth auth;
    @ConfigProperty(name = "quarkus.management.root-path", defaultValue = "/q")
    String root;
    @ConfigProperty(name = "quarkus.smallrye-health.root-path", defaultValue = "health")
    String health;
    @ConfigProperty(name = "quarkus.micrometer.export.prometheus.path", defaultValue = "metrics")
    String metrics;

    private Set<String> probes;
    private String metricsPath;
    private volatile MetricsToken metricsToken;

    void init(@Observes ManagementInterface management) {
        if (!config.management().jwtEnabled()) {
            return;
        }
        String base = (root.endsWith("/") ? root : root + "/") + health;
        probes = Set.of(base + "/live", base + "/ready", base + "/started");
        metricsPath = (root.endsWith("/") ? root : root + "/") + metrics;
        CallerTokens tokens = auth.tokens();
        management.router().route().order(ORDER).handler(ctx -> check(ctx, tokens));
    }

    private void check(RoutingContext ctx, CallerTokens tokens) {
        String path = ctx.normalizedPath();
        if (probes.contains(path)) {
            ctx.next();
            return;
        }
        String authorization = ctx.request().getHeader(HttpHeaders.AUTHORIZATION);
        if (path.equals(metricsPath) && metricsCredential(authorization)) {
            ctx.next();
            return;
        }
        CallerTokens.Verdict v = tokens.verify(authorization);
        if (v.refusal() != null) {
            auth.refuse(ctx, CallerAuth.Port.MANAGEMENT, v.refusal(), null);
            return;
        }
        HttpMethod m = ctx.request().method();
        String scope = m == HttpMethod.GET || m == HttpMethod.HEAD ? config.management().readScope() : config.management().writeScope();
        if (!v.caller().may(scope)) {
            auth.refuse(ctx, CallerAuth.Port.MANAGEMENT, Refusal.INSUFFICIENT_SCOPE, scope);
            return;
        }
        ctx.next();
    }

    /** The static metrics credential, compared in constant time; the file is re-read when it changes (rotation). */
    private boolean metricsCredential(String authorization) {
        if (authorization == null || config.management().metricsTokenFile().isEmpty()
                || !authorization.regionMatches(true, 0, CallerTokens.BEARER, 0, CallerTokens.BEARER.length())) {
            return false;
        }
        MetricsToken t = MetricsToken.current(config.management().metricsTokenFile().get(), metricsToken);
        metricsToken = t;
        byte[] given = authorization.substring(CallerTokens.BEARER.length()).trim().getBytes(StandardCharsets.UTF_8);
        return t.value.length > 0 && MessageDigest.isEqual(t.value, given);
    }

    private record MetricsToken(Path file, long modified, byte[] value) {
        static MetricsToken current(Path file, MetricsToken last) {
            try {
                long modified = Files.getLastModifiedTime(file).toMillis();
                if (last != null && last.modified == modified) {
                    return last;
                }
                return new MetricsToken(file, modified, Files.readString(file, StandardCharsets.UTF_8).trim().getBytes(StandardCharsets.UTF_8));
            } catch (IOException e) {
                return new MetricsToken(file, -1, new byte[0]); // unreadable: nobody gets in with it
            }
        }
    }
}
