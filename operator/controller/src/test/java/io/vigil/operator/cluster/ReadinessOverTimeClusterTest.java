package io.vigil.operator.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.javaoperatorsdk.operator.Operator;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.vigil.operator.Fixtures;
import io.vigil.operator.api.v1alpha1.FraudEngine;
import io.vigil.testing.kube.LocalKubernetes;
import io.vigil.testing.kube.TestNamespace;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The local control plane stays healthy when left alone: its kwok nodes keep their heartbeats (node
 * Leases), so across several node-monitor grace periods the nodes stay Ready, a Deployment stays
 * Available with every pod ready, and the sample FraudEngine (its own operator running in this JVM)
 * stays Ready. Without heartbeats the node-lifecycle controller turns every node and pod NotReady one
 * grace period after the start, and they never come back.
 *
 * <p>"Several grace periods" is counted from what the cluster shows, not from a clock: a control node
 * that nobody heartbeats (not managed by kwok) is created, the node-lifecycle controller marks it
 * Unknown once its grace period has passed, and it is made again; the observation ends after it went
 * stale {@value #GRACE_PERIODS} times. That it goes stale at all also proves the controller is judging
 * heartbeats during the observation (a grace period of hours would make this test vacuous).
 */
@LocalKubernetes(crds = {"keda", "monitoring", "strimzi", "redis"})
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ReadinessOverTimeClusterTest {

    static final int GRACE_PERIODS = 3;
    static final Duration SETTLE = Duration.ofSeconds(120);
    /** Only a guard against hanging if the control node never goes stale; no assertion is about time. */
    static final Duration GIVE_UP = Duration.ofMinutes(15);
    static final String CONTROL_TAINT = "vigil.io/heartbeat-control";

    private final KubernetesClient client;
    private final String ns;
    private Operator operator;

    ReadinessOverTimeClusterTest(KubernetesClient client, TestNamespace namespace) {
        this.client = client;
        this.ns = namespace.name();
    }

    @BeforeAll
    void engineAndDeploymentAreReady() throws IOException {
        TestOperator.installCrdsAndRulesets(client, ns);
        operator = TestOperator.start(client, ns, new SimpleMeterRegistry());

        // The FraudEngine `make run` shows (environments/local/samples), in this test's namespace.
        FraudEngine engine = Fixtures.read(Fixtures.repoRoot().resolve("environments/local/samples/fraudengine.yaml"), FraudEngine.class);
        engine.getMetadata().setNamespace(ns);
        client.resource(engine).create();
        client.resource(new DeploymentBuilder()
                .withNewMetadata().withName("steady").withNamespace(ns).endMetadata()
                .withNewSpec().withReplicas(3)
                .withNewSelector().addToMatchLabels("app", "steady").endSelector()
                .withNewTemplate().withNewMetadata().addToLabels("app", "steady").endMetadata()
                .withNewSpec().addNewContainer().withName("app").withImage("example.invalid/steady:1").endContainer().endSpec()
                .endTemplate().endSpec().build()).create();

        await("the Deployment Available with 3/3 ready and the FraudEngine Ready", () -> {
            Map<String, Boolean> seen = snapshot();
            return seen.values().stream().allMatch(Boolean::booleanValue) ? null : seen.toString();
        });
    }

    @AfterAll
    void stopOperator() {
        if (operator != null) {
            operator.stop();
        }
        client.nodes().withLabel(CONTROL_TAINT, ns).delete();
    }

    @Test
    void nodesADeploymentAndAFraudEngineStayReadyForSeveralGracePeriods() {
        Map<String, Instant> leasesBefore = leaseRenewals();

        List<String> notReady = new ArrayList<>();
        int observations = 0;
        int stalePeriods = 0;
        String control = createControlNode(0);
        long giveUp = System.nanoTime() + GIVE_UP.toNanos();
        while (stalePeriods < GRACE_PERIODS) {
            if (System.nanoTime() > giveUp) {
                throw new AssertionError("the unheartbeated control node went stale only " + stalePeriods + " of "
                        + GRACE_PERIODS + " times in " + GIVE_UP + ": is kube-controller-manager's node-monitor grace period"
                        + " that long? Observations so far: " + observations + ", not ready: " + notReady);
            }
            Map<String, Boolean> seen = snapshot();
            observations++;
            seen.forEach((what, ready) -> {
                if (!ready) {
                    notReady.add(Instant.now() + " " + what);
                }
            });
            if (!"True".equals(readyStatus(client.nodes().withName(control).get()))) {
                // One grace period without a heartbeat has passed: start the next one.
                stalePeriods++;
                client.nodes().withName(control).delete();
                control = createControlNode(stalePeriods);
            }
            sleep(Duration.ofSeconds(1));
        }

        assertThat(notReady).as("everything stayed ready in %d observations over %d grace periods", observations, GRACE_PERIODS)
                .isEmpty();
        // ... because kwok renewed their Leases: the heartbeat the node-lifecycle controller reads.
        Map<String, Instant> leasesAfter = leaseRenewals();
        assertThat(leasesBefore).as("a Lease per kwok node in kube-node-lease").isNotEmpty();
        assertThat(leasesAfter.keySet()).isEqualTo(leasesBefore.keySet());
        leasesBefore.forEach((node, before) -> assertThat(leasesAfter.get(node)).as("%s's Lease renewed", node).isAfter(before));
    }

    /** What must stay ready, each with whether it is right now. */
    private Map<String, Boolean> snapshot() {
        Map<String, Boolean> seen = new LinkedHashMap<>();
        List<Node> nodes = client.nodes().withLabel("type", "kwok").list().getItems();
        seen.put("kwok nodes exist", !nodes.isEmpty());
        for (Node n : nodes) {
            seen.put("node " + n.getMetadata().getName() + " Ready", "True".equals(readyStatus(n)));
        }
        Deployment d = client.apps().deployments().inNamespace(ns).withName("steady").get();
        seen.put("Deployment steady Available", d != null && d.getStatus() != null && d.getStatus().getConditions() != null
                && d.getStatus().getConditions().stream().anyMatch(c -> "Available".equals(c.getType()) && "True".equals(c.getStatus())));
        seen.put("Deployment steady 3/3 ready", d != null && d.getStatus() != null && Objects.equals(d.getStatus().getReadyReplicas(), 3));
        FraudEngine fe = client.resources(FraudEngine.class).inNamespace(ns).withName("vigil").get();
        seen.put("FraudEngine vigil Ready", fe != null && fe.getStatus() != null && fe.getStatus().conditions != null
                && fe.getStatus().conditions.stream().anyMatch(c -> "Ready".equals(c.getType()) && "True".equals(c.getStatus())));
        seen.put("FraudEngine vigil all replicas ready", fe != null && fe.getStatus() != null && fe.getStatus().readyReplicas != null
                && fe.getStatus().readyReplicas > 0 && fe.getStatus().readyReplicas.equals(fe.getStatus().replicas));
        return seen;
    }

    /**
     * A node as a kubelet registers it (Ready, heartbeat now) that kwok does not manage, so nothing
     * renews it; tainted so that no pod is placed on it.
     */
    private String createControlNode(int period) {
        String name = "heartbeat-control-" + ns + "-" + period;
        String now = Instant.now().toString();
        client.nodes().resource(new NodeBuilder()
                .withNewMetadata().withName(name).addToLabels(CONTROL_TAINT, ns).endMetadata()
                .withNewSpec().addNewTaint().withKey(CONTROL_TAINT).withEffect("NoSchedule").endTaint().endSpec()
                .withNewStatus().addNewCondition().withType("Ready").withStatus("True").withReason("KubeletReady")
                .withLastHeartbeatTime(now).withLastTransitionTime(now).endCondition().endStatus()
                .build()).create();
        return name;
    }

    private static String readyStatus(Node node) {
        if (node == null || node.getStatus() == null || node.getStatus().getConditions() == null) {
            return null;
        }
        return node.getStatus().getConditions().stream().filter(c -> "Ready".equals(c.getType()))
                .map(NodeCondition::getStatus).findFirst().orElse(null);
    }

    /** The renew time of each kwok node's Lease in kube-node-lease. */
    private Map<String, Instant> leaseRenewals() {
        Map<String, Instant> renewals = new LinkedHashMap<>();
        for (Node n : client.nodes().withLabel("type", "kwok").list().getItems()) {
            Lease lease = client.leases().inNamespace("kube-node-lease").withName(n.getMetadata().getName()).get();
            if (lease != null && lease.getSpec().getRenewTime() != null) {
                renewals.put(n.getMetadata().getName(), lease.getSpec().getRenewTime().toInstant());
            }
        }
        return renewals;
    }

    /** Polls {@code missing} (what is not there yet, or null when done) until it answers null. */
    private static void await(String what, Supplier<String> missing) {
        long deadline = System.nanoTime() + SETTLE.toNanos();
        for (String last = missing.get(); last != null; last = missing.get()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out after " + SETTLE.toSeconds() + "s waiting for " + what + "; last seen: " + last);
            }
            sleep(Duration.ofMillis(500));
        }
    }

    private static void sleep(Duration d) {
        try {
            Thread.sleep(d);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        }
    }
}
