package io.vigil.testing.redis;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

import java.util.function.Supplier;

/**
 * JUnit 5 extension giving a test class one real Redis (standalone or cluster) for all its tests.
 *
 * <pre>{@code
 * class MyTest {
 *     @RegisterExtension
 *     static final RedisExtension REDIS = RedisExtension.standalone();   // or RedisExtension.withCluster(3)
 *
 *     @Test
 *     void works(RedisServer redis) {                                 // or REDIS.server()
 *         ... redis.uri() ...
 *     }
 * }
 * }</pre>
 *
 * Register it on a {@code static} field: the processes start before the first test and are closed
 * after the last one. Before each test the extension heals what a previous test broke (thaws a
 * frozen server, restarts a stopped one) and, if {@link #flushBeforeEach()} was asked for, empties
 * the keyspace.
 */
public final class RedisExtension implements BeforeAllCallback, AfterAllCallback, BeforeEachCallback, ParameterResolver {

    private final Supplier<RedisServer> serverFactory;
    private final int clusterMasters;
    private boolean flushBeforeEach;
    private RedisServer server;
    private RedisCluster cluster;

    private RedisExtension(Supplier<RedisServer> serverFactory, int clusterMasters) {
        this.serverFactory = serverFactory;
        this.clusterMasters = clusterMasters;
    }

    /** One standalone server, no persistence. */
    public static RedisExtension standalone() {
        return new RedisExtension(RedisServer::start, 0);
    }

    /** One standalone server built from the given options (e.g. AOF on). */
    public static RedisExtension standalone(RedisServer.Builder options) {
        return new RedisExtension(options::start, 0);
    }

    /** A cluster of {@code masters} masters. */
    public static RedisExtension withCluster(int masters) {
        return new RedisExtension(null, masters);
    }

    /** FLUSHALL before each test. */
    public RedisExtension flushBeforeEach() {
        this.flushBeforeEach = true;
        return this;
    }

    /** The standalone server (started on first use if needed). */
    public synchronized RedisServer server() {
        if (clusterMasters > 0) {
            throw new IllegalStateException("this extension manages a cluster: use cluster()");
        }
        if (server == null) {
            server = serverFactory.get();
        }
        return server;
    }

    /** The cluster (started on first use if needed). */
    public synchronized RedisCluster cluster() {
        if (clusterMasters == 0) {
            throw new IllegalStateException("this extension manages a standalone server: use server()");
        }
        if (cluster == null) {
            cluster = RedisCluster.start(clusterMasters);
        }
        return cluster;
    }

    /** Seed URI(s) for {@code quarkus.redis.hosts}. */
    public String hosts() {
        return clusterMasters > 0 ? cluster().hosts() : server().uri();
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        hosts();
    }

    @Override
    public void beforeEach(ExtensionContext context) {
        if (clusterMasters > 0) {
            RedisCluster c = cluster();
            boolean healed = false;
            for (RedisServer node : c.nodes()) {
                healed |= heal(node);
            }
            if (healed) {
                c.awaitHealthy(java.time.Duration.ofSeconds(30));
            }
            if (flushBeforeEach) {
                c.flushAll();
            }
        } else {
            RedisServer s = server();
            heal(s);
            if (flushBeforeEach) {
                s.flushAll();
            }
        }
    }

    private static boolean heal(RedisServer node) {
        if (node.isFrozen()) {
            node.thaw();
            return true;
        }
        if (!node.isRunning()) {
            node.restart();
            return true;
        }
        return false;
    }

    @Override
    public synchronized void afterAll(ExtensionContext context) {
        if (server != null) {
            server.close();
            server = null;
        }
        if (cluster != null) {
            cluster.close();
            cluster = null;
        }
    }

    @Override
    public boolean supportsParameter(ParameterContext parameterContext, ExtensionContext extensionContext) {
        Class<?> type = parameterContext.getParameter().getType();
        return (type == RedisServer.class && clusterMasters == 0) || (type == RedisCluster.class && clusterMasters > 0);
    }

    @Override
    public Object resolveParameter(ParameterContext parameterContext, ExtensionContext extensionContext) {
        return parameterContext.getParameter().getType() == RedisServer.class ? server() : cluster();
    }
}
