package io.vigil.operator.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.javaoperatorsdk.operator.Operator;
import io.vigil.operator.Fixtures;
import io.vigil.operator.api.v1alpha1.FraudRuleset;
import io.vigil.operator.rulesets.FraudRulesetReconciler;
import io.vigil.testing.kube.LocalCluster;
import io.vigil.testing.kube.LocalKubernetes;
import io.vigil.testing.kube.TestNamespace;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The chart's ValidatingAdmissionPolicy on the local API server: a FraudRuleset the operator found valid
 * keeps its document; an invalid one may be fixed in place. The policy is the chart's file, bound to this
 * test's namespace only (under a name of its own), so other test classes on the shared cluster are not
 * affected.
 */
@LocalKubernetes
class FraudRulesetImmutabilityTest {

    static final Path POLICY = Path.of("charts/vigil-operator/files/fraudruleset-versions-policy.yaml");
    static KubernetesClient client;
    static String ns;
    static String policyName;
    static Operator operator;

    @BeforeAll
    static void setUp(KubernetesClient kube, TestNamespace namespace) throws IOException {
        client = kube;
        ns = namespace.name();
        try (Stream<Path> files = Files.list(Fixtures.repoRoot().resolve("crds"))) {
            for (Path f : files.filter(p -> p.toString().endsWith(".yml")).sorted().toList()) {
                LocalCluster.applyCrd(client, Fixtures.read(f, CustomResourceDefinition.class));
            }
        }
        List<GenericKubernetesResource> shipped = Stream.of(Files.readString(Fixtures.repoRoot().resolve(POLICY)).split("(?m)^---$"))
                .map(doc -> Fixtures.SERIALIZATION.unmarshal(doc, GenericKubernetesResource.class)).toList();
        assertThat(shipped).extracting(GenericKubernetesResource::getKind)
                .containsExactly("ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding");
        policyName = shipped.get(0).getMetadata().getName() + "-" + ns;
        GenericKubernetesResource policy = shipped.get(0);
        policy.getMetadata().setName(policyName);
        client.resource(policy).create();
        GenericKubernetesResource binding = shipped.get(1);
        binding.getMetadata().setName(policyName);
        binding.setAdditionalProperty("spec", Map.of("policyName", policyName, "validationActions", List.of("Deny"),
                "matchResources", Map.of("namespaceSelector", Map.of("matchLabels", Map.of("kubernetes.io/metadata.name", ns)))));
        client.resource(binding).create();

        operator = new Operator(o -> o.withKubernetesClient(client).withCloseClientOnStop(false));
        operator.register(new FraudRulesetReconciler(), o -> o.settingNamespace(ns));
        operator.start();
    }

    @AfterAll
    static void tearDown() {
        if (operator != null) {
            operator.stop();
        }
        if (client != null && policyName != null) {
            client.genericKubernetesResources("admissionregistration.k8s.io/v1", "ValidatingAdmissionPolicyBinding").withName(policyName).delete();
            client.genericKubernetesResources("admissionregistration.k8s.io/v1", "ValidatingAdmissionPolicy").withName(policyName).delete();
        }
    }

    @Test
    void aValidVersionKeepsItsDocumentAndAnInvalidOneMayBeFixed() {
        FraudRuleset served = Fixtures.sampleRulesets(ns).stream().filter(r -> "card-auth-v2".equals(r.getMetadata().getName()))
                .findFirst().orElseThrow();
        served.getMetadata().setGeneration(null);
        client.resource(served).create();
        awaitValid(client, ns, "card-auth-v2", true);

        // The policy takes a moment to reach the API server's admission chain: probe with server-side dry
        // runs (admission runs, nothing is stored) until it refuses, then edit for real.
        String edit = "{\"spec\":{\"document\":{\"execution_mode\":\"ALL_MATCHES\"}}}";
        await("the policy refuses a document edit (dry run)", () -> {
            try {
                client.resources(FraudRuleset.class).inNamespace(ns).withName("card-auth-v2").dryRun()
                        .patch(PatchContext.of(PatchType.JSON_MERGE), edit);
                return null;
            } catch (KubernetesClientException e) {
                return e;
            }
        });
        assertThatThrownBy(() -> client.resources(FraudRuleset.class).inNamespace(ns).withName("card-auth-v2")
                .patch(PatchContext.of(PatchType.JSON_MERGE), edit))
                .isInstanceOfSatisfying(KubernetesClientException.class, e -> {
                    assertThat(e.getCode()).isEqualTo(422);
                    assertThat(e.getMessage()).contains("spec.document is immutable", "create a new version", "spec.version 3");
                });
        // Nothing of the spec changed: the generation (bumped by every spec change) is the one created.
        assertThat(client.resources(FraudRuleset.class).inNamespace(ns).withName("card-auth-v2").get().getMetadata().getGeneration())
                .isEqualTo(1L);

        // Metadata (labels, annotations) stays editable, and the operator still writes the status.
        client.resources(FraudRuleset.class).inNamespace(ns).withName("card-auth-v2")
                .patch(PatchContext.of(PatchType.JSON_MERGE), "{\"metadata\":{\"labels\":{\"team\":\"risk\"}}}");
        assertThat(client.resources(FraudRuleset.class).inNamespace(ns).withName("card-auth-v2").get().getMetadata().getLabels())
                .containsEntry("team", "risk");

        // An invalid version may be fixed in place: it was never served.
        client.resource(Fixtures.invalidCardAuthV3()).inNamespace(ns).create();
        awaitValid(client, ns, "card-auth-v3", false);
        client.resources(FraudRuleset.class).inNamespace(ns).withName("card-auth-v3").patch(PatchContext.of(PatchType.JSON_MERGE),
                "{\"spec\":{\"document\":{\"rules\":[{\"rule_id\":\"fixed\",\"condition\":{\"field\":\"amount\",\"op\":\"gt\",\"value\":1},\"action\":\"DECLINE\"}]}}}");
        awaitValid(client, ns, "card-auth-v3", true);
        // ... and from then on it is immutable too.
        assertThatThrownBy(() -> client.resources(FraudRuleset.class).inNamespace(ns).withName("card-auth-v3")
                .patch(PatchContext.of(PatchType.JSON_MERGE), edit))
                .isInstanceOf(KubernetesClientException.class)
                .hasMessageContaining("create a new version");
    }

    static void awaitValid(KubernetesClient client, String ns, String name, boolean valid) {
        await(name + " valid=" + valid, () -> {
            FraudRuleset r = client.resources(FraudRuleset.class).inNamespace(ns).withName(name).get();
            return r != null && r.getStatus() != null && Boolean.valueOf(valid).equals(r.getStatus().valid)
                    && r.getMetadata().getGeneration().equals(r.getStatus().observedGeneration) ? r : null;
        });
    }

    static <T> T await(String what, java.util.function.Supplier<T> probe) {
        long deadline = System.nanoTime() + FraudEngineClusterTest.WAIT.toNanos();
        while (true) {
            T value = probe.get();
            if (value != null) {
                return value;
            }
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out after " + FraudEngineClusterTest.WAIT.toSeconds() + "s waiting for " + what);
            }
            try {
                Thread.sleep(250);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted waiting for " + what);
            }
        }
    }
}
