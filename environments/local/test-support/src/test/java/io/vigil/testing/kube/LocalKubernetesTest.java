package io.vigil.testing.kube;

import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.DeletionPropagation;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.fabric8.kubernetes.client.utils.Serialization;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The local control plane behaves like a cluster for what the operator and charts rely on:
 * controllers (deployment, replicaset, garbage collector, namespace), kwok-simulated nodes and pods,
 * and CEL validation in the API server.
 */
@LocalKubernetes
class LocalKubernetesTest {

    private static final long WAIT_SECONDS = 120;

    @Test
    void theTestsHaveTheirOwnClusterOnFreePorts(KubernetesClient client) {
        assertThat(LocalCluster.kubeconfig()).startsWith(LocalCluster.clusterDir());
        assertThat(LocalCluster.clusterDir()).isNotEqualTo(LocalCluster.repositoryRoot().resolve(".local/cluster"));
        assertThat(client.getMasterUrl().getPort()).as("not the `make run` API server port").isNotEqualTo(16443);
    }

    @Test
    void kwokHoldsALeasePerNodeAsItsHeartbeat(KubernetesClient client) {
        var nodes = client.nodes().withLabel("type", "kwok").list().getItems();
        assertThat(nodes).isNotEmpty();
        for (var node : nodes) {
            var lease = client.leases().inNamespace("kube-node-lease").withName(node.getMetadata().getName())
                    .waitUntilCondition(l -> l != null && l.getSpec().getRenewTime() != null, WAIT_SECONDS, TimeUnit.SECONDS);
            assertThat(lease.getSpec().getLeaseDurationSeconds()).isPositive();
            assertThat(lease.getMetadata().getOwnerReferences()).singleElement()
                    .satisfies(owner -> assertThat(owner.getUid()).isEqualTo(node.getMetadata().getUid()));
            var renewed = lease.getSpec().getRenewTime();
            client.leases().inNamespace("kube-node-lease").withName(node.getMetadata().getName())
                    .waitUntilCondition(l -> l != null && l.getSpec().getRenewTime().isAfter(renewed), WAIT_SECONDS, TimeUnit.SECONDS);
        }
    }

    @Test
    void deploymentOfThreeBecomesAvailable(KubernetesClient client, TestNamespace namespace) {
        client.apps().deployments().inNamespace(namespace.name()).resource(deployment("web", 3)).create();

        Deployment ready = client.apps().deployments().inNamespace(namespace.name()).withName("web")
                .waitUntilCondition(d -> d != null && d.getStatus() != null
                        && Objects.equals(d.getStatus().getAvailableReplicas(), 3), WAIT_SECONDS, TimeUnit.SECONDS);

        assertThat(ready.getStatus().getReadyReplicas()).isEqualTo(3);
        var pods = client.pods().inNamespace(namespace.name()).withLabel("app", "web").list().getItems();
        assertThat(pods).hasSize(3).allSatisfy(pod -> {
            assertThat(pod.getSpec().getNodeName()).as("scheduled on a kwok node").startsWith("kwok-node-");
            assertThat(pod.getStatus().getPhase()).isEqualTo("Running");
        });
    }

    @Test
    void deletingADeploymentGarbageCollectsItsReplicaSetsAndPods(KubernetesClient client, TestNamespace namespace) {
        var deployments = client.apps().deployments().inNamespace(namespace.name());
        deployments.resource(deployment("owner", 2)).create();
        deployments.withName("owner").waitUntilCondition(d -> d != null && d.getStatus() != null
                && Objects.equals(d.getStatus().getAvailableReplicas(), 2), WAIT_SECONDS, TimeUnit.SECONDS);
        List<ReplicaSet> replicaSets = client.apps().replicaSets().inNamespace(namespace.name())
                .withLabel("app", "owner").list().getItems();
        assertThat(replicaSets).hasSize(1);
        assertThat(replicaSets.getFirst().getMetadata().getOwnerReferences())
                .anySatisfy(ref -> assertThat(ref.getName()).isEqualTo("owner"));

        // Background propagation: the owner goes at once, the garbage collector removes the dependents.
        deployments.withName("owner").withPropagationPolicy(DeletionPropagation.BACKGROUND).delete();

        client.apps().replicaSets().inNamespace(namespace.name()).withName(replicaSets.getFirst().getMetadata().getName())
                .waitUntilCondition(Objects::isNull, WAIT_SECONDS, TimeUnit.SECONDS);
        waitUntil(() -> client.pods().inNamespace(namespace.name()).withLabel("app", "owner").list().getItems().isEmpty(),
                "pods of the deleted deployment are gone");
    }

    @Test
    void namespaceDeletionCompletes(KubernetesClient client) {
        String name = "doomed-" + Integer.toHexString(ThreadLocalRandom.current().nextInt(0x100000, 0x1000000));
        client.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(name)
                .addToLabels(TestNamespace.LABEL, "true").endMetadata().build()).create();
        client.configMaps().inNamespace(name).resource(new ConfigMapBuilder().withNewMetadata().withName("c")
                .endMetadata().addToData("k", "v").build()).create();
        client.apps().deployments().inNamespace(name).resource(deployment("inside", 1)).create();
        client.apps().deployments().inNamespace(name).withName("inside").waitUntilCondition(d -> d != null
                && d.getStatus() != null && Objects.equals(d.getStatus().getAvailableReplicas(), 1), WAIT_SECONDS, TimeUnit.SECONDS);

        client.namespaces().withName(name).delete();

        // Terminating first (finalizer "kubernetes"), then gone once the namespace controller emptied it.
        Namespace gone = client.namespaces().withName(name).waitUntilCondition(Objects::isNull, WAIT_SECONDS, TimeUnit.SECONDS);
        assertThat(gone).isNull();
    }

    @Test
    void celRuleOfACrdRefusesAnInvalidObjectWithTheRuleMessage(KubernetesClient client, TestNamespace namespace) {
        String group = "cel" + Integer.toHexString(ThreadLocalRandom.current().nextInt(0x100000, 0x1000000)) + ".test.vigil.io";
        CustomResourceDefinition crd = Serialization.unmarshal(new ByteArrayInputStream("""
                apiVersion: apiextensions.k8s.io/v1
                kind: CustomResourceDefinition
                metadata:
                  name: ranges.%1$s
                spec:
                  group: %1$s
                  scope: Namespaced
                  names: {kind: Range, plural: ranges, singular: range, listKind: RangeList}
                  versions:
                  - name: v1
                    served: true
                    storage: true
                    schema:
                      openAPIV3Schema:
                        type: object
                        properties:
                          spec:
                            type: object
                            required: [min, max]
                            properties:
                              min: {type: integer}
                              max: {type: integer}
                            x-kubernetes-validations:
                            - rule: "self.min <= self.max"
                              message: "spec.min must not exceed spec.max"
                """.formatted(group).getBytes(StandardCharsets.UTF_8)), CustomResourceDefinition.class);
        var crds = client.apiextensions().v1().customResourceDefinitions();
        crds.resource(crd).create();
        try {
            crds.withName(crd.getMetadata().getName()).waitUntilCondition(c -> c != null && c.getStatus() != null
                    && c.getStatus().getConditions() != null && c.getStatus().getConditions().stream().anyMatch(
                            cond -> "Established".equals(cond.getType()) && "True".equals(cond.getStatus())),
                    WAIT_SECONDS, TimeUnit.SECONDS);
            var ranges = client.genericKubernetesResources(new ResourceDefinitionContext.Builder()
                    .withGroup(group).withVersion("v1").withKind("Range").withPlural("ranges").withNamespaced(true).build())
                    .inNamespace(namespace.name());

            ranges.resource(range(group, "ok", 1, 5)).create();
            assertThat(ranges.withName("ok").get()).isNotNull();

            assertThatThrownBy(() -> ranges.resource(range(group, "inverted", 9, 2)).create())
                    .isInstanceOf(KubernetesClientException.class)
                    .satisfies(e -> assertThat(((KubernetesClientException) e).getCode()).isEqualTo(422))
                    .hasMessageContaining("spec.min must not exceed spec.max");
            assertThat(ranges.withName("inverted").get()).isNull();
        } finally {
            crds.withName(crd.getMetadata().getName()).delete();
        }
    }

    static Deployment deployment(String name, int replicas) {
        return new DeploymentBuilder()
                .withNewMetadata().withName(name).addToLabels("app", name).endMetadata()
                .withNewSpec()
                .withReplicas(replicas)
                .withNewSelector().addToMatchLabels("app", name).endSelector()
                .withNewTemplate()
                .withNewMetadata().addToLabels("app", name).endMetadata()
                .withNewSpec()
                // kwok simulates the pod: the image is never pulled.
                .addNewContainer().withName("app").withImage("registry.invalid/" + name + ":1").endContainer()
                .endSpec()
                .endTemplate()
                .endSpec()
                .build();
    }

    private static GenericKubernetesResource range(String group, String name, int min, int max) {
        return new GenericKubernetesResourceBuilder()
                .withApiVersion(group + "/v1").withKind("Range")
                .withNewMetadata().withName(name).endMetadata()
                .withAdditionalProperties(Map.of("spec", Map.of("min", min, "max", max)))
                .build();
    }

    static void waitUntil(java.util.function.BooleanSupplier condition, String what) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("not true after " + WAIT_SECONDS + "s: " + what);
            }
            try {
                Thread.sleep(200);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted waiting for: " + what, e);
            }
        }
    }
}
