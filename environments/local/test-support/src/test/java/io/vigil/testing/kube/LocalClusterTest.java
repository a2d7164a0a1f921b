package io.vigil.testing.kube;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The {@link LocalCluster} API: Helm against the cluster, CRD sets installed and removed on demand. */
@LocalKubernetes(crds = "strimzi")
class LocalClusterTest {

    private static final long WAIT_SECONDS = 120;

    @Test
    void helmInstallsATinyChartAndUninstallCleansUp(KubernetesClient client, TestNamespace namespace, @TempDir Path helmHome)
            throws Exception {
        Path chart = Path.of(Objects.requireNonNull(getClass().getResource("/charts/tiny")).toURI());

        String installed = helm(helmHome, "install", "tiny", chart.toString(), "--namespace", namespace.name(),
                "--set", "greeting=bonjour", "--wait", "--timeout", "90s");
        assertThat(installed).contains("STATUS: deployed");

        ConfigMap config = client.configMaps().inNamespace(namespace.name()).withName("tiny-config").get();
        assertThat(config.getData()).containsEntry("greeting", "bonjour");
        Deployment app = client.apps().deployments().inNamespace(namespace.name()).withName("tiny-app").get();
        assertThat(app.getStatus().getAvailableReplicas()).as("--wait returned once the pods were ready").isEqualTo(2);
        assertThat(helm(helmHome, "list", "--namespace", namespace.name(), "--short")).contains("tiny");

        helm(helmHome, "uninstall", "tiny", "--namespace", namespace.name(), "--wait", "--timeout", "90s");

        client.configMaps().inNamespace(namespace.name()).withName("tiny-config")
                .waitUntilCondition(Objects::isNull, WAIT_SECONDS, TimeUnit.SECONDS);
        client.apps().deployments().inNamespace(namespace.name()).withName("tiny-app")
                .waitUntilCondition(Objects::isNull, WAIT_SECONDS, TimeUnit.SECONDS);
        assertThat(client.secrets().inNamespace(namespace.name()).withLabel("owner", "helm").list().getItems())
                .as("release records").isEmpty();
    }

    @Test
    void annotationInstalledStrimziCrdsServeBothVersions(KubernetesClient client, TestNamespace namespace) {
        var v1beta2 = client.genericKubernetesResources(kafkaContext("v1beta2")).inNamespace(namespace.name());
        v1beta2.resource(kafka("v1beta2", "events")).create();

        GenericKubernetesResource asV1 = client.genericKubernetesResources(kafkaContext("v1"))
                .inNamespace(namespace.name()).withName("events").get();

        assertThat(asV1.getApiVersion()).isEqualTo("kafka.strimzi.io/v1");
        assertThat(asV1.<Integer>get("spec", "kafka", "replicas")).isEqualTo(1);
    }

    @Test
    void crdSetsCanBeRemovedAndInstalledAgain(KubernetesClient client) {
        List<String> redisCrds = List.of("redis.redis.redis.opstreelabs.in", "redisreplications.redis.redis.opstreelabs.in",
                "redissentinels.redis.redis.opstreelabs.in", "redisclusters.redis.redis.opstreelabs.in");
        LocalCluster.installCrds("redis");
        try {
            assertThat(redisCrds).allSatisfy(name ->
                    assertThat(client.apiextensions().v1().customResourceDefinitions().withName(name).get()).isNotNull());

            LocalCluster.uninstallCrds("redis");

            assertThat(redisCrds).allSatisfy(name ->
                    assertThat(client.apiextensions().v1().customResourceDefinitions().withName(name).get()).isNull());
        } finally {
            // The cluster is shared by the whole build: leave the set installed as other tests may expect.
            LocalCluster.installCrds("redis");
        }
        assertThat(client.apiextensions().v1().customResourceDefinitions().withName(redisCrds.getFirst()).get()).isNotNull();
    }

    @Test
    void thirdPartyCrdsComeFromTheirModules(KubernetesClient client) {
        LocalCluster.installCrds("keda", "monitoring", "k6");

        assertThat(List.of("scaledobjects.keda.sh", "triggerauthentications.keda.sh",
                "servicemonitors.monitoring.coreos.com", "prometheusrules.monitoring.coreos.com", "testruns.k6.io"))
                .allSatisfy(name -> {
                    var crd = client.apiextensions().v1().customResourceDefinitions().withName(name).get();
                    assertThat(crd).as(name).isNotNull();
                    // Upstream CRDs carry full schemas, unlike our minimal fixtures.
                    assertThat(crd.getSpec().getVersions().getFirst().getSchema().getOpenAPIV3Schema().getProperties())
                            .as(name).containsKey("spec");
                    assertThat(crd.getSpec().getVersions().getFirst().getSchema().getOpenAPIV3Schema()
                            .getProperties().get("spec").getProperties()).as(name).isNotEmpty();
                });
    }

    @Test
    void unknownCrdSetIsRefusedWithTheKnownNames() {
        assertThatThrownBy(() -> LocalCluster.installCrds("istio"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("istio")
                .hasMessageContaining("keda, monitoring, k6, strimzi, redis");
    }

    private static ResourceDefinitionContext kafkaContext(String version) {
        return new ResourceDefinitionContext.Builder().withGroup("kafka.strimzi.io").withVersion(version)
                .withKind("Kafka").withPlural("kafkas").withNamespaced(true).build();
    }

    private static GenericKubernetesResource kafka(String version, String name) {
        return new GenericKubernetesResourceBuilder()
                .withApiVersion("kafka.strimzi.io/" + version).withKind("Kafka")
                .withNewMetadata().withName(name).endMetadata()
                .withAdditionalProperties(Map.of("spec", Map.of("kafka", Map.of("replicas", 1, "version", "4.1.1"))))
                .build();
    }

    /** Runs helm against the local cluster with its own config/cache/data directories. */
    private static String helm(Path home, String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of(LocalCluster.helm().toString()));
        command.addAll(List.of(args));
        command.addAll(List.of("--kubeconfig", LocalCluster.kubeconfig().toString()));
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
        builder.environment().put("HELM_CONFIG_HOME", home.resolve("config").toString());
        builder.environment().put("HELM_CACHE_HOME", home.resolve("cache").toString());
        builder.environment().put("HELM_DATA_HOME", home.resolve("data").toString());
        Process process = builder.start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.waitFor(2, TimeUnit.MINUTES)).as("helm finished").isTrue();
        assertThat(process.exitValue()).as("helm %s exit status; output:%n%s", args[0], output).isZero();
        return output;
    }
}
