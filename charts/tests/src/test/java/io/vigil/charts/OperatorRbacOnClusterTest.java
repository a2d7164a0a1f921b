package io.vigil.charts;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.authorization.v1.SubjectAccessReview;
import io.fabric8.kubernetes.api.model.authorization.v1.SubjectAccessReviewBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.vigil.testing.kube.LocalKubernetes;
import io.vigil.testing.kube.TestNamespace;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The operator chart's RBAC, checked on the local API server with SubjectAccessReviews for the chart's
 * ServiceAccount (what {@code kubectl auth can-i --as} asks), against what the operator code calls:
 * the rules the Quarkus operator SDK derives from the reconcilers' dependents and {@code @RBACRule}s
 * (operator/controller/deploy/kubernetes.yml). Both scopes: every namespace (ClusterRole) and the
 * recommended namespace-scoped mode (a Role in each watched namespace).
 */
@LocalKubernetes
class OperatorRbacOnClusterTest {

    static final Set<String> RBAC_KINDS = Set.of("ServiceAccount", "ClusterRole", "ClusterRoleBinding", "Role", "RoleBinding");
    /** Verbs of the SDK's standard rule on each primary kind that the code never uses (it only reads and patches them). */
    static final Set<String> PRIMARY_VERBS_NOT_USED = Set.of("create", "delete");

    static KubernetesClient client;
    static String ns;
    static final List<HasMetadata> applied = new ArrayList<>();
    /** The chart's ServiceAccount in each scope. */
    static String clusterWide;
    static String namespaced;

    record Permission(String group, String resource, String verb, String name) {
        @Override
        public String toString() {
            return verb + " " + (group.isEmpty() ? "" : group + "/") + resource + (name == null ? "" : " " + name);
        }
    }

    @BeforeAll
    static void installRbac(KubernetesClient kube, TestNamespace namespace) {
        client = kube;
        ns = namespace.name();
        // Release names unique to this test: ClusterRoles are cluster-scoped and the cluster is shared.
        clusterWide = apply(Helm.template("all-" + ns, ns, Repo.OPERATOR_CHART));
        namespaced = apply(Helm.template("scoped-" + ns, ns, Repo.OPERATOR_CHART, "--set", "watchNamespaces[0]=" + ns,
                "--set", "leaderElection.enabled=false", "--set", "replicas=1"));
    }

    /** Creates the RBAC objects of one rendering and answers the name of its ServiceAccount. */
    static String apply(String rendered) {
        String serviceAccount = null;
        for (JsonNode doc : Manifests.parse(rendered)) {
            if (RBAC_KINDS.contains(doc.path("kind").asText())) {
                HasMetadata o = client.getKubernetesSerialization().unmarshal(doc.toString());
                applied.add(client.resource(o).create());
                if (o.getKind().equals("ServiceAccount")) {
                    serviceAccount = o.getMetadata().getName();
                }
            }
        }
        assertThat(serviceAccount).as("the chart's ServiceAccount").isNotNull();
        return serviceAccount;
    }

    @AfterAll
    static void removeRbac() {
        if (client != null) {
            applied.forEach(o -> client.resource(o).delete());
        }
    }

    /** What the operator code calls, from the SDK-generated rules. */
    static List<Permission> needed() {
        List<JsonNode> generated = Manifests.parse(Repo.read(Repo.ROOT.resolve("operator/controller/deploy/kubernetes.yml")));
        List<Permission> out = new ArrayList<>();
        for (JsonNode role : Manifests.ofKind(generated, "ClusterRole")) {
            for (JsonNode rule : role.path("rules")) {
                List<String> resources = strings(rule.path("resources"));
                boolean primary = resources.stream().anyMatch(r -> r.endsWith("/status"));
                for (String group : strings(rule.path("apiGroups"))) {
                    for (String resource : resources) {
                        if (resource.endsWith("/finalizers")) {
                            continue; // the operator adds no finalizers (owner references do the clean-up)
                        }
                        for (String verb : strings(rule.path("verbs"))) {
                            if (primary && (PRIMARY_VERBS_NOT_USED.contains(verb) || resource.endsWith("/status") && !Set.of("get", "patch", "update").contains(verb))) {
                                continue;
                            }
                            List<String> names = strings(rule.path("resourceNames"));
                            if (names.isEmpty()) {
                                out.add(new Permission(group, resource, verb, null));
                            } else {
                                names.forEach(n -> out.add(new Permission(group, resource, verb, n)));
                            }
                        }
                    }
                }
            }
        }
        return out;
    }

    static List<String> strings(JsonNode array) {
        return StreamSupport.stream(array.spliterator(), false).map(JsonNode::asText).toList();
    }

    static boolean allowed(String serviceAccount, Permission p, String namespace) {
        String[] subresource = p.resource().split("/", 2);
        SubjectAccessReview review = client.authorization().v1().subjectAccessReview().create(new SubjectAccessReviewBuilder()
                .withNewSpec()
                .withUser("system:serviceaccount:" + ns + ":" + serviceAccount)
                .withGroups("system:serviceaccounts", "system:serviceaccounts:" + ns, "system:authenticated")
                .withNewResourceAttributes()
                .withGroup(p.group()).withResource(subresource[0]).withSubresource(subresource.length > 1 ? subresource[1] : null)
                .withVerb(p.verb()).withName(p.name())
                .withNamespace(p.group().equals("apiextensions.k8s.io") ? null : namespace)
                .endResourceAttributes()
                .endSpec().build());
        return review.getStatus().getAllowed();
    }

    @Test
    void theChartGrantsEverythingTheCodeCallsInBothScopes() {
        List<Permission> needed = needed();
        assertThat(needed).as("permissions read from deploy/kubernetes.yml")
                .contains(new Permission("", "pods", "list", null), new Permission("apps", "deployments", "patch", null));
        for (String sa : List.of(clusterWide, namespaced)) {
            List<String> denied = needed.stream().filter(p -> !allowed(sa, p, ns)).map(Permission::toString).toList();
            assertThat(denied).as("what the operator calls but " + sa + " may not do in its namespace").isEmpty();
        }
    }

    @Test
    void andNothingBeyondIt() {
        for (String sa : List.of(clusterWide, namespaced)) {
            List<Permission> forbidden = List.of(
                    // Secrets are read (SecretsValid), never written
                    new Permission("", "secrets", "create", null), new Permission("", "secrets", "update", null),
                    new Permission("", "secrets", "patch", null), new Permission("", "secrets", "delete", null),
                    new Permission("", "pods", "create", null), new Permission("", "pods/exec", "create", null),
                    new Permission("apiextensions.k8s.io", "customresourcedefinitions", "list", null),
                    new Permission("apiextensions.k8s.io", "customresourcedefinitions", "watch", null),
                    new Permission("apiextensions.k8s.io", "customresourcedefinitions", "get", "fraudengines.vigil.io"),
                    new Permission("apiextensions.k8s.io", "customresourcedefinitions", "update", "kafkas.kafka.strimzi.io"),
                    new Permission("vigil.io", "fraudengines", "create", null), new Permission("vigil.io", "fraudrulesets", "delete", null),
                    new Permission("rbac.authorization.k8s.io", "roles", "create", null));
            List<String> granted = forbidden.stream().filter(p -> allowed(sa, p, ns)).map(Permission::toString).toList();
            assertThat(granted).as(sa + " may do more than the operator needs").isEmpty();
        }
        // Namespace-scoped: nothing at all outside the watched namespace.
        assertThat(allowed(namespaced, new Permission("apps", "deployments", "list", null), "default")).isFalse();
        assertThat(allowed(namespaced, new Permission("vigil.io", "fraudengines", "watch", null), "default")).isFalse();
        assertThat(allowed(namespaced, new Permission("", "secrets", "list", null), "default")).isFalse();
        assertThat(allowed(clusterWide, new Permission("vigil.io", "fraudengines", "watch", null), "default")).isTrue();
    }
}
