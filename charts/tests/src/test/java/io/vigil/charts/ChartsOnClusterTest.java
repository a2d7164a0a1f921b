package io.vigil.charts;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.vigil.testing.app.PackagedApp;
import io.vigil.testing.kube.LocalCluster;
import io.vigil.testing.kube.LocalKubernetes;
import io.vigil.testing.kube.TestNamespace;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * helm install / upgrade / uninstall of both charts on the local control plane (real kube-apiserver,
 * controllers and kwok nodes, every CRD installed), with the local environment's values.
 */
@LocalKubernetes(crds = "all")
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ChartsOnClusterTest {
    static final ResourceDefinitionContext FRAUD_ENGINE = crd("FraudEngine", "fraudengines");
    static final ResourceDefinitionContext FRAUD_RULESET = crd("FraudRuleset", "fraudrulesets");
    static final ResourceDefinitionContext PROMETHEUS_RULE = new ResourceDefinitionContext.Builder()
            .withGroup("monitoring.coreos.com").withVersion("v1").withKind("PrometheusRule").withPlural("prometheusrules").withNamespaced(true).build();

    final KubernetesClient client;
    final String ns;
    final Path kubeconfig = LocalCluster.kubeconfig();

    ChartsOnClusterTest(KubernetesClient client, TestNamespace namespace) {
        this.client = client;
        this.ns = namespace.name();
    }

    static PackagedApp operator;
    static Path operatorLog;
    static String namespaceName;

    @BeforeAll
    static void crdsAndOperator(TestNamespace namespace) throws Exception {
        Kube.applyVigilCrds();
        namespaceName = namespace.name();
        // The operator chart's pods are simulated by kwok (no container runtime here), so the packaged
        // operator runs as a local process against the same API server, watching this test's namespace.
        operatorLog = Files.createTempFile("vigil-operator", ".log");
        operator = operatorWatching(namespace.name()).log(operatorLog).start();
    }

    /**
     * The packaged operator launched as make run launches it (PackagedApp: the shared settings), on
     * the tests' cluster, watching {@code namespace} only; started once ready.
     */
    static PackagedApp.Builder operatorWatching(String namespace) {
        return PackagedApp.operator()
                .env("KUBECONFIG", LocalCluster.kubeconfig())
                .env("QUARKUS_OPERATOR_SDK_NAMESPACES", namespace);
    }

    @AfterAll
    static void stopOperator() {
        if (operator != null) {
            operator.close();
        }
        // After a failure midway, remove what the namespace's deletion would not: the operator
        // release's cluster-scoped RBAC (no-op when the last test already uninstalled it).
        if (namespaceName != null) {
            Helm.run(LocalCluster.kubeconfig(), "uninstall", releaseFor(namespaceName), "--namespace", namespaceName, "--ignore-not-found");
        }
    }

    /** Polls (bounded) until the condition holds; the operator's log is in the failure message. */
    static void eventually(String what, BooleanSupplier condition) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        while (System.nanoTime() < deadline) {
            if (condition.getAsBoolean()) {
                return;
            }
            assertThat(operator.isRunning()).as("operator process exited; log:\n" + Files.readString(operatorLog)).isTrue();
            Thread.sleep(500);
        }
        throw new AssertionError("timed out waiting for " + what + "; operator log tail:\n" + tail(operatorLog));
    }

    static String tail(Path log) throws IOException {
        List<String> lines = Files.readAllLines(log);
        return String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
    }

    private String operatorRelease() {
        return releaseFor(ns);
    }

    static String releaseFor(String namespace) {
        return "op-" + namespace.substring(Math.max(0, namespace.length() - 12)).replaceAll("^-+", "");
    }

    @Test
    @Order(1)
    void theOperatorChartInstallsAndItsDeploymentBecomesAvailable() {
        Helm.run(kubeconfig, "install", operatorRelease(), Repo.OPERATOR_CHART.toString(), "--namespace", ns,
                "-f", Repo.ROOT.resolve("environments/local/operator-values.yaml").toString(),
                "--set", "watchNamespaces={" + ns + "}", "--wait", "--timeout", "3m").assertOk();
        var deployment = client.apps().deployments().inNamespace(ns).withName(operatorRelease() + "-vigil-operator").get();
        assertThat(deployment).isNotNull();
        assertThat(deployment.getStatus().getAvailableReplicas()).isEqualTo(1);
        assertThat(client.rbac().roles().inNamespace(ns).withName(operatorRelease() + "-vigil-operator").get()).isNotNull();
        assertThat(client.rbac().clusterRoles().withName(operatorRelease() + "-vigil-operator").get())
                .as("watching one namespace: no cluster-wide role").isNull();
        assertThat(client.rbac().clusterRoles().withName(operatorRelease() + "-vigil-operator-crd-discovery").get()).isNotNull();
        // the service account may do what the operator needs in its namespace, and not elsewhere
        String sa = "system:serviceaccount:" + ns + ":" + operatorRelease() + "-vigil-operator";
        assertThat(canI("patch", "fraudengines.vigil.io/status", ns, sa)).isTrue();
        assertThat(canI("create", "deployments.apps", ns, sa)).isTrue();
        assertThat(canI("create", "prometheusrules.monitoring.coreos.com", ns, sa)).isTrue();
        // Secrets read only: the operator checks the ones spec.auth and spec.personalData name (SecretsValid)
        assertThat(canI("get", "secrets", ns, sa)).as("reads the Secrets a FraudEngine names").isTrue();
        assertThat(canI("create", "secrets", ns, sa)).as("never writes a Secret").isFalse();
        assertThat(canI("update", "secrets", ns, sa)).as("never writes a Secret").isFalse();
        assertThat(canI("get", "secrets", "default", sa)).as("no Secret outside the watched namespace").isFalse();
        assertThat(canI("create", "deployments.apps", "default", sa)).as("nothing outside the watched namespace").isFalse();
    }

    @Test
    @Order(2)
    void theEngineChartInstallsAFraudEngineThatTheOperatorReconciles() throws Exception {
        Helm.run(kubeconfig, "install", "fraud", Repo.ENGINE_CHART.toString(), "--namespace", ns,
                "-f", Repo.ROOT.resolve("environments/local/values.yaml").toString(), "--wait", "--timeout", "2m").assertOk();
        GenericKubernetesResource fe = client.genericKubernetesResources(FRAUD_ENGINE).inNamespace(ns).withName("fraud").get();
        assertThat(fe).isNotNull();
        assertThat(fe.get("spec", "rulesets").toString()).contains("CARD_AUTH").contains("CARD_MONITORING");
        // the API server applied the CRD's defaults to what the chart left out
        assertThat(fe.<Object>get("spec", "engine", "velocityFailurePolicy")).isEqualTo("SKIP");
        assertThat(client.genericKubernetesResources(FRAUD_RULESET).inNamespace(ns).list().getItems())
                .extracting(r -> r.getMetadata().getName()).containsExactlyInAnyOrder("fraud-card-auth-v2", "fraud-card-monitoring-v1");
        assertThat(client.configMaps().inNamespace(ns).withLabel("grafana_dashboard", "1").list().getItems()).hasSize(3);

        // The operator validated both rulesets with the rules library and built the engine from the FraudEngine.
        eventually("FraudRulesets valid", () -> client.genericKubernetesResources(FRAUD_RULESET).inNamespace(ns).list().getItems().stream()
                .allMatch(r -> Boolean.TRUE.equals(r.get("status", "valid"))));
        eventually("engine Deployment owned by the FraudEngine", () -> {
            var d = client.apps().deployments().inNamespace(ns).withName("fraud-engine").get();
            return d != null && d.getMetadata().getOwnerReferences().stream().anyMatch(o -> o.getKind().equals("FraudEngine"));
        });
        eventually("the operator's PrometheusRule (rules.managedBy=operator)",
                () -> client.genericKubernetesResources(PROMETHEUS_RULE).inNamespace(ns).withName("fraud-slo").get() != null);
    }

    @Test
    @Order(3)
    void anUpgradeChangesTheObjectivesAndMovesTheRulesToTheChart() throws Exception {
        Helm.run(kubeconfig, "upgrade", "fraud", Repo.ENGINE_CHART.toString(), "--namespace", ns,
                "-f", Repo.ROOT.resolve("environments/local/values.yaml").toString(),
                "--set", "slo.p99Ms=20", "--set", "rules.managedBy=chart", "--wait", "--timeout", "2m").assertOk();
        GenericKubernetesResource fe = client.genericKubernetesResources(FRAUD_ENGINE).inNamespace(ns).withName("fraud").get();
        assertThat(((Number) fe.get("spec", "slo", "p99Ms")).doubleValue()).isEqualTo(20.0);
        assertThat(fe.<Object>get("spec", "observability", "prometheusRule", "enabled")).isEqualTo(false);
        GenericKubernetesResource rule = client.genericKubernetesResources(PROMETHEUS_RULE).inNamespace(ns).withName("fraud-vigil-slo").get();
        assertThat(rule).as("the prometheus-operator CRD accepted the rendered rules").isNotNull();
        assertThat(rule.get("spec").toString()).contains("le=\"0.02\"").contains("VigilAuthAvailabilityBudgetBurn");
        assertThat(Helm.run(kubeconfig, "history", "fraud", "--namespace", ns).assertOk().stdout()).contains("deployed");
        eventually("the operator removed its own PrometheusRule (spec.observability.prometheusRule.enabled=false)",
                () -> client.genericKubernetesResources(PROMETHEUS_RULE).inNamespace(ns).withName("fraud-slo").get() == null);
    }

    @Test
    @Order(4)
    void aBadUpgradeIsRefusedAndTheReleaseKeepsServing() {
        Repo.Result r = Helm.run(kubeconfig, "upgrade", "fraud", Repo.ENGINE_CHART.toString(), "--namespace", ns,
                "-f", Repo.ROOT.resolve("environments/local/values.yaml").toString(),
                "--set", "slo.p99Ms=20", "--set", "rules.managedBy=chart", "--set", "engine.velocityFailurePolicy=MAYBE");
        assertThat(r.exit()).as("the CRD's enum refuses it").isNotZero();
        assertThat(r.stderr()).contains("velocityFailurePolicy");
        assertThat(client.genericKubernetesResources(FRAUD_ENGINE).inNamespace(ns).withName("fraud").get()
                .<Object>get("spec", "engine", "velocityFailurePolicy")).isEqualTo("SKIP");
    }

    @Test
    @Order(5)
    void uninstallRemovesTheReleaseButKeepsRulesetVersionsAndCrds() throws Exception {
        Helm.run(kubeconfig, "uninstall", "fraud", "--namespace", ns, "--wait", "--timeout", "2m").assertOk();
        assertThat(client.genericKubernetesResources(FRAUD_ENGINE).inNamespace(ns).withName("fraud").get()).isNull();
        eventually("owned engine Deployment garbage-collected", () -> client.apps().deployments().inNamespace(ns).withName("fraud-engine").get() == null);
        assertThat(client.genericKubernetesResources(PROMETHEUS_RULE).inNamespace(ns).withName("fraud-vigil-slo").get()).isNull();
        assertThat(client.configMaps().inNamespace(ns).withLabel("grafana_dashboard", "1").list().getItems()).isEmpty();
        assertThat(client.genericKubernetesResources(FRAUD_RULESET).inNamespace(ns).list().getItems())
                .as("ruleset versions are kept (helm.sh/resource-policy: keep) for rollbacks").hasSize(2);

        Helm.run(kubeconfig, "uninstall", operatorRelease(), "--namespace", ns, "--wait", "--timeout", "2m").assertOk();
        assertThat(client.apps().deployments().inNamespace(ns).withName(operatorRelease() + "-vigil-operator").get()).isNull();
        assertThat(client.rbac().clusterRoles().withName(operatorRelease() + "-vigil-operator-crd-discovery").get()).isNull();
        assertThat(client.apiextensions().v1().customResourceDefinitions().withName("fraudengines.vigil.io").get())
                .as("Helm never deletes CRDs (that would delete every FraudEngine)").isNotNull();
    }

    private boolean canI(String verb, String resource, String namespace, String as) {
        Repo.Result r = Kube.kubectl(null, "auth", "can-i", verb, resource, "--namespace", namespace, "--as", as);
        return r.stdout().strip().equals("yes");
    }

    static ResourceDefinitionContext crd(String kind, String plural) {
        return new ResourceDefinitionContext.Builder().withGroup("vigil.io").withVersion("v1alpha1").withKind(kind)
                .withPlural(plural).withNamespaced(true).build();
    }

}
