package io.vigil.engine.management;

import io.quarkus.runtime.LaunchMode;
import io.quarkus.runtime.StartupEvent;
import io.quarkus.vertx.http.runtime.options.HttpServerOptionsUtils;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.impl.HttpServerImpl;
import io.vertx.core.impl.VertxInternal;
import io.vertx.core.net.impl.ServerID;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import java.lang.reflect.Field;
import java.util.Map;
import java.util.Optional;
import org.eclipse.microprofile.config.Config;
import org.jboss.logging.Logger;

/**
 * Gives the management port's HTTP/2 server the header-list limit of
 * {@code quarkus.management.limits.max-header-list-size}, which Quarkus 3.27 reads but applies to the
 * data port only: its management server keeps Vert.x's 8 KiB HTTP/2 SETTINGS_MAX_HEADER_LIST_SIZE (the
 * HTTP/1.1 limits it does apply). Over HTTP/2 a bearer token above the engine's own limit then got a
 * bare 431 from the HTTP server, neither the engine's 401 {@code too_large} nor counted (make
 * auth-probe, issue 19; ADR 0013).
 * <p>
 * Quarkus has no hook for the management server's options, so this raises the limit in the options
 * Vert.x keeps for the server: every new HTTP/2 connection reads its initial settings from them. The
 * server is in Vert.x's server map from its {@code listen} call, before its socket is bound, and the
 * observer polls for it from startup. This reaches into Vert.x internals (4.5): if they change, the
 * engine logs a warning and the port keeps 8 KiB; ManagementHttp2Test fails then.
 */
@ApplicationScoped
public class ManagementHeaderListLimit {
    private static final Logger LOG = Logger.getLogger(ManagementHeaderListLimit.class);
    private static final long POLL_MILLIS = 5;
    private static final long GIVE_UP_MILLIS = 120_000;

    @Inject
    Vertx vertx;
    @Inject
    Config config;

    void start(@Observes StartupEvent ignored) {
        if (!config.getOptionalValue("quarkus.management.enabled", Boolean.class).orElse(false)) {
            return;
        }
        Optional<Long> limit = config.getOptionalValue("quarkus.management.limits.max-header-list-size", Long.class);
        if (limit.isEmpty()) {
            return;
        }
        int port = managementPort();
        long until = System.currentTimeMillis() + GIVE_UP_MILLIS;
        vertx.setPeriodic(POLL_MILLIS, id -> {
            try {
                if (apply(port, limit.get())) {
                    vertx.cancelTimer(id);
                } else if (System.currentTimeMillis() > until) {
                    vertx.cancelTimer(id);
                    LOG.warnf("No management HTTP server on port %d after %d s: its HTTP/2 header lists stay at Vert.x's default",
                            port, GIVE_UP_MILLIS / 1000);
                }
            } catch (ReflectiveOperationException | RuntimeException e) {
                vertx.cancelTimer(id);
                LOG.warnf("The management port's HTTP/2 header-list limit stays at Vert.x's default (%s): over HTTP/2 an"
                        + " oversized token gets 431 there, not 401 too_large", e.toString());
            }
        });
    }

    /** The port Quarkus gives the management server's options (HttpServerOptionsUtils: 0 is its own random-port marker). */
    private int managementPort() {
        String name = LaunchMode.current() == LaunchMode.TEST ? "quarkus.management.test-port" : "quarkus.management.port";
        int port = config.getOptionalValue(name, Integer.class).orElse(LaunchMode.current() == LaunchMode.TEST ? 9001 : 9000);
        return port == 0 ? HttpServerOptionsUtils.RANDOM_PORT_MANAGEMENT : port;
    }

    /** True once the server is there and its HTTP/2 initial settings carry the limit. */
    private boolean apply(int port, long limit) throws ReflectiveOperationException {
        Map<ServerID, HttpServerImpl> servers = ((VertxInternal) vertx).sharedHttpServers();
        HttpServerImpl server = null;
        synchronized (servers) {
            for (Map.Entry<ServerID, HttpServerImpl> e : servers.entrySet()) {
                if (e.getKey().port == port) {
                    server = e.getValue();
                }
            }
        }
        if (server == null) {
            return false;
        }
        Field options = HttpServerImpl.class.getDeclaredField("options");
        options.setAccessible(true);
        var settings = ((HttpServerOptions) options.get(server)).getInitialSettings();
        if (settings.getMaxHeaderListSize() < limit) {
            settings.setMaxHeaderListSize(limit);
            LOG.debugf("Management port %d: HTTP/2 header lists up to %d bytes", port, limit);
        }
        return true;
    }
}
