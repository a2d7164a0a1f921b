package io.vigil.testing.kube;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.TolerationBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import org.junit.jupiter.api.Test;

import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The tests' cluster has one real node beside the kwok nodes (node-lib.sh, ADR 0008): a kubelet with
 * containerd runs real containers there, and only pods that ask for it (nodeSelector and toleration)
 * land on it.
 */
@LocalKubernetes(realNode = true)
class RealNodeTest {

    private static final String PAUSE = "localhost/vigil/pause:3.10";

    @Test
    void theRealNodeIsReadyLabelledAndTainted(KubernetesClient client) {
        var node = client.nodes().withName(LocalCluster.REAL_NODE).get();
        assertThat(node).as("node " + LocalCluster.REAL_NODE).isNotNull();
        assertThat(node.getStatus().getConditions()).anySatisfy(c -> {
            assertThat(c.getType()).isEqualTo("Ready");
            assertThat(c.getStatus()).isEqualTo("True");
        });
        assertThat(node.getMetadata().getLabels()).containsAllEntriesOf(LocalCluster.REAL_NODE_SELECTOR);
        assertThat(node.getSpec().getTaints()).anySatisfy(t -> {
            assertThat(t.getKey()).isEqualTo(LocalCluster.REAL_NODE_TAINT);
            assertThat(t.getEffect()).isEqualTo("NoSchedule");
        });
        assertThat(node.getStatus().getNodeInfo().getContainerRuntimeVersion()).startsWith("containerd://");
        assertThat(node.getStatus().getNodeInfo().getKubeletVersion()).isEqualTo("v1.32.4");
    }

    @Test
    void aPodThatAsksForTheRealNodeRunsThereAsARealContainer(KubernetesClient client, TestNamespace namespace) {
        Pod pod = client.pods().inNamespace(namespace.name()).resource(pod("real", true)).create();

        Pod running = client.pods().resource(pod).waitUntilCondition(
                p -> p != null && p.getStatus() != null && "Running".equals(p.getStatus().getPhase()), 120, TimeUnit.SECONDS);
        assertThat(running.getSpec().getNodeName()).isEqualTo(LocalCluster.REAL_NODE);
        assertThat(running.getStatus().getPodIP()).as("an address from the node's CNI bridge").startsWith("10.244.");
        assertThat(running.getStatus().getContainerStatuses()).singleElement()
                .satisfies(s -> assertThat(s.getContainerID()).startsWith("containerd://"));
    }

    @Test
    void aPodThatDoesNotAskStaysOnTheKwokNodes(KubernetesClient client, TestNamespace namespace) {
        Pod pod = client.pods().inNamespace(namespace.name()).resource(pod("simulated", false)).create();

        Pod scheduled = client.pods().resource(pod).waitUntilCondition(
                p -> p != null && p.getSpec().getNodeName() != null, 60, TimeUnit.SECONDS);
        assertThat(scheduled.getSpec().getNodeName()).startsWith("kwok-node-");
    }

    private static Pod pod(String name, boolean onRealNode) {
        var spec = new PodBuilder()
                .withNewMetadata().withName(name).endMetadata()
                .withNewSpec()
                .withTerminationGracePeriodSeconds(1L)
                .withNewSecurityContext().withRunAsNonRoot(true).withRunAsUser(65535L).endSecurityContext()
                .addNewContainer().withName("pause").withImage(PAUSE).withImagePullPolicy("Never")
                .withNewSecurityContext().withReadOnlyRootFilesystem(true).withAllowPrivilegeEscalation(false)
                .withNewCapabilities().addToDrop("ALL").endCapabilities().endSecurityContext()
                .withNewResources().addToLimits("memory", new io.fabric8.kubernetes.api.model.Quantity("16Mi")).endResources()
                .endContainer();
        if (onRealNode) {
            spec.withNodeSelector(LocalCluster.REAL_NODE_SELECTOR)
                    .withTolerations(new TolerationBuilder().withKey(LocalCluster.REAL_NODE_TAINT).withOperator("Exists")
                            .withEffect("NoSchedule").build());
        }
        return spec.endSpec().build();
    }
}
