package io.vigil.operator.support;

import io.javaoperatorsdk.operator.api.config.LeaderElectionConfiguration;
import io.javaoperatorsdk.operator.api.config.LeaderElectionConfigurationBuilder;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderCallbacks;
import io.quarkus.arc.Unremovable;
import jakarta.enterprise.context.Dependent;
import jakarta.enterprise.inject.Produces;
import java.time.Duration;
import java.util.Optional;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.jboss.logging.Logger;

/**
 * Leader election on a coordination.k8s.io Lease, switched by {@code vigil.operator.leader-election.enabled}
 * (the chart's {@code leaderElection.enabled}). Every replica starts its informers; only the holder of
 * the Lease runs reconcilers. A replica that loses the Lease exits, so Kubernetes restarts it as a
 * stand-by (never two leaders writing at once). docs/operator/architecture.md describes the lease.
 *
 * <p>The Quarkus operator SDK looks up a {@link LeaderElectionConfiguration} bean when it builds the
 * operator: none (this producer answering null) means no leader election.
 */
public class LeaderElection {

    private static final Logger LOG = Logger.getLogger(LeaderElection.class);

    /** The durations of client-go's defaults: a dead leader is replaced within about 15 s. */
    public static final Duration LEASE_DURATION = Duration.ofSeconds(15);
    public static final Duration RENEW_DEADLINE = Duration.ofSeconds(10);
    public static final Duration RETRY_PERIOD = Duration.ofSeconds(2);

    @Produces
    @Dependent
    @Unremovable
    LeaderElectionConfiguration leaderElection(
            @ConfigProperty(name = "vigil.operator.leader-election.enabled", defaultValue = "false") boolean enabled,
            @ConfigProperty(name = "vigil.operator.leader-election.lease-name", defaultValue = "vigil-operator-leader") String leaseName,
            @ConfigProperty(name = "vigil.operator.leader-election.lease-namespace") Optional<String> leaseNamespace,
            @ConfigProperty(name = "vigil.operator.leader-election.identity") Optional<String> identity) {
        if (!enabled) {
            LOG.info("leader election off (vigil.operator.leader-election.enabled=false): this replica reconciles on its own");
            return null;
        }
        LOG.infof("leader election on: Lease %s/%s, identity %s", leaseNamespace.orElse("(the pod's namespace)"), leaseName,
                identity.orElse("(the host name)"));
        return configuration(leaseName, leaseNamespace.orElse(null), identity.orElse(null),
                LEASE_DURATION, RENEW_DEADLINE, RETRY_PERIOD, true);
    }

    /**
     * The JOSDK configuration. {@code leaseNamespace} null: the pod's own namespace (in cluster);
     * {@code identity} null: the host name, which is the pod name in cluster.
     */
    public static LeaderElectionConfiguration configuration(String leaseName, String leaseNamespace, String identity,
                                                            Duration leaseDuration, Duration renewDeadline, Duration retryPeriod,
                                                            boolean exitOnStopLeading) {
        var builder = LeaderElectionConfigurationBuilder.aLeaderElectionConfiguration(leaseName)
                .withLeaseDuration(leaseDuration)
                .withRenewDeadline(renewDeadline)
                .withRetryPeriod(retryPeriod)
                // the SDK's own exit would run on the thread that stops leading: see exitOnItsOwnThread
                .withExitOnStopLeading(false);
        if (exitOnStopLeading) {
            builder.withLeaderCallbacks(new LeaderCallbacks(() -> { }, LeaderElection::exitOnItsOwnThread, leader -> { }));
        }
        if (leaseNamespace != null && !leaseNamespace.isBlank()) {
            builder.withLeaseNamespace(leaseNamespace);
        }
        if (identity != null && !identity.isBlank()) {
            builder.withIdentity(identity);
        }
        return builder.build();
    }

    /**
     * Ends the process once this replica stops leading, from a thread of its own. The SDK (5.1.5) calls
     * System.exit on the thread that stops leading; on SIGTERM that is the JVM's shutdown hook
     * (Operator.stop cancels the election), where System.exit waits for the very shutdown it runs in:
     * the leader never exited, kept its Lease, and every rollout waited for the SIGKILL and then for the
     * Lease to expire (java-operator-sdk#1614, fixed upstream after 5.1.5). From another thread the
     * exit of a replica that lost its Lease is the same, and during a shutdown already under way it
     * simply waits for that shutdown to finish.
     */
    static void exitOnItsOwnThread() {
        if (shuttingDown()) {
            LOG.info("stopped leading: the operator is shutting down");
            return;
        }
        LOG.warn("stopped leading (the Lease was lost): exiting, so that this replica restarts as a stand-by");
        Thread.ofPlatform().name("vigil-leader-exit").daemon(true).start(() -> System.exit(1));
    }

    /** The JVM refuses new shutdown hooks once its shutdown has begun. */
    private static boolean shuttingDown() {
        Thread probe = new Thread(() -> { });
        try {
            Runtime.getRuntime().addShutdownHook(probe);
            Runtime.getRuntime().removeShutdownHook(probe);
            return false;
        } catch (IllegalStateException e) {
            return true;
        }
    }
}
