package io.vigil.charts;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.vigil.testing.app.PackagedApp;
import io.vigil.testing.kube.LocalKubernetes;
import io.vigil.testing.kube.TestNamespace;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The packaged operator with leader election on, as the chart runs it: once it holds the Lease, SIGTERM
 * ends it. With the SDK's own exit on "stopped leading" the leader hung in its shutdown hook until
 * SIGKILL, keeping the Lease, so every rollout of the operator stalled reconciling (LeaderElection).
 */
@LocalKubernetes(crds = "all")
class OperatorLeaderShutdownOnClusterTest {

    static final String LEASE = "vigil-operator-leader";
    static final String IDENTITY = "operator-under-test";

    @Test
    void aLeadingOperatorExitsOnSigterm(KubernetesClient client, TestNamespace namespace) throws Exception {
        Kube.applyVigilCrds();
        String ns = namespace.name();
        Path log = Files.createTempFile("vigil-operator-leader", ".log");
        try (PackagedApp operator = ChartsOnClusterTest.operatorWatching(ns).log(log)
                .env("VIGIL_OPERATOR_LEADER_ELECTION_ENABLED", "true")
                .env("POD_NAMESPACE", ns)
                .env("POD_NAME", IDENTITY)
                .start()) {
            long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
            while (!IDENTITY.equals(holder(client, ns))) {
                assertThat(operator.isRunning()).as("operator exited; log:\n" + Files.readString(log)).isTrue();
                assertThat(System.nanoTime()).as("Lease " + LEASE + " never held by " + IDENTITY + "; log:\n"
                        + Files.readString(log)).isLessThan(deadline);
                Thread.sleep(500);
            }

            // bounded only so that a hang fails instead of blocking the build: it used to hang for good
            assertThat(operator.terminate(Duration.ofSeconds(60)))
                    .as("the leading operator exits after SIGTERM; log:\n" + Files.readString(log)).isTrue();
        }
    }

    static String holder(KubernetesClient client, String ns) {
        Lease lease = client.leases().inNamespace(ns).withName(LEASE).get();
        return lease == null || lease.getSpec() == null ? null : lease.getSpec().getHolderIdentity();
    }
}
