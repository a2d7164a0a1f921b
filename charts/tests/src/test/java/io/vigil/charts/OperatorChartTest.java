package io.vigil.charts;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** What the operator chart renders on the Kubernetes versions and clusters docs/installation.md supports. */
class OperatorChartTest {
    static final String SERVICE_MONITOR_API = "monitoring.coreos.com/v1/ServiceMonitor";

    @ParameterizedTest(name = "Kubernetes {0}: policy rendered {1}")
    @CsvSource({"1.28.0, false", "1.29.9, false", "1.30.0, true", "1.32.4, true"})
    void theRulesetVersionPolicyIsRenderedFromKubernetes130Only(String kubeVersion, boolean rendered) {
        List<JsonNode> docs = Manifests.parse(Helm.template("vigil-operator", "vigil-system", Repo.OPERATOR_CHART,
                "--kube-version", kubeVersion));
        // the operator itself installs on every supported version
        assertThat(Manifests.ofKind(docs, "Deployment")).hasSize(1);
        assertThat(Manifests.ofKind(docs, "ValidatingAdmissionPolicy")).hasSize(rendered ? 1 : 0);
        assertThat(Manifests.ofKind(docs, "ValidatingAdmissionPolicyBinding")).hasSize(rendered ? 1 : 0);
        for (JsonNode d : docs) {
            assertThat(d.path("apiVersion").asText()).as("no beta admission API on any version")
                    .isNotEqualTo("admissionregistration.k8s.io/v1beta1");
        }
    }

    @Test
    void theOperatorMetricsAreScrapedWithTheEnginesReleaseLabelConvention() throws Exception {
        List<JsonNode> docs = Manifests.parse(Helm.template("vigil-operator", "vigil-system", Repo.OPERATOR_CHART,
                "-f", Repo.ROOT.resolve("environments/production/operator-values.yaml").toString(),
                "--api-versions", SERVICE_MONITOR_API));
        JsonNode service = named(Manifests.ofKind(docs, "Service"), "vigil-operator-metrics");
        JsonNode monitor = Manifests.ofKind(docs, "ServiceMonitor").get(0);
        JsonNode deployment = Manifests.ofKind(docs, "Deployment").get(0);

        // the same label the production FraudEngine's ServiceMonitor carries (spec.observability.serviceMonitor.labels)
        String engineRelease = SloRules.YAML.readTree(Repo.read(Repo.ROOT.resolve("environments/production/values.yaml")))
                .path("observability").path("serviceMonitor").path("labels").path("release").asText();
        assertThat(monitor.path("metadata").path("labels").path("release").asText()).isEqualTo(engineRelease)
                .isEqualTo("kube-prometheus-stack");

        // the ServiceMonitor selects the Service, the Service selects the operator pods, on the port they serve
        monitor.path("spec").path("selector").path("matchLabels").fields().forEachRemaining(l ->
                assertThat(service.path("metadata").path("labels").path(l.getKey()).asText()).as(l.getKey()).isEqualTo(l.getValue().asText()));
        JsonNode podLabels = deployment.path("spec").path("template").path("metadata").path("labels");
        service.path("spec").path("selector").fields().forEachRemaining(l ->
                assertThat(podLabels.path(l.getKey()).asText()).as(l.getKey()).isEqualTo(l.getValue().asText()));
        JsonNode endpoint = monitor.path("spec").path("endpoints").get(0);
        assertThat(endpoint.path("port").asText()).isEqualTo(service.path("spec").path("ports").get(0).path("name").asText());
        assertThat(endpoint.path("path").asText()).isEqualTo("/q/metrics");
        JsonNode containerPort = deployment.path("spec").path("template").path("spec").path("containers").get(0).path("ports").get(0);
        assertThat(service.path("spec").path("ports").get(0).path("targetPort").asText()).isEqualTo(containerPort.path("name").asText());
    }

    @Test
    void withoutThePrometheusOperatorOnlyTheServiceIsRendered() {
        List<JsonNode> docs = Manifests.parse(Helm.template("vigil-operator", "vigil-system", Repo.OPERATOR_CHART));
        assertThat(Manifests.ofKind(docs, "ServiceMonitor")).isEmpty();
        assertThat(Manifests.ofKind(docs, "Service")).extracting(d -> d.path("metadata").path("name").asText())
                .contains("vigil-operator-metrics");
    }

    @Test
    void whoRunsLoadTestsIsTheChartsChoice() {
        assertThat(loadTestRunner(Helm.template("vigil-operator", "vigil-system", Repo.OPERATOR_CHART)))
                .as("default: the k6-operator runs TestRuns").isEqualTo("k6-operator");
        // the local cluster has no k6-operator: its values make the operator run them (ADR 0014)
        assertThat(loadTestRunner(Helm.template("vigil-operator", "vigil-system", Repo.OPERATOR_CHART,
                "-f", Repo.ROOT.resolve("environments/local/operator-values.yaml").toString()))).isEqualTo("jobs");
    }

    private static String loadTestRunner(String manifests) {
        JsonNode container = Manifests.ofKind(Manifests.parse(manifests), "Deployment").get(0)
                .path("spec").path("template").path("spec").path("containers").get(0);
        for (JsonNode env : container.path("env")) {
            if ("VIGIL_LOADTEST_RUNNER".equals(env.path("name").asText())) {
                return env.path("value").asText();
            }
        }
        throw new AssertionError("no VIGIL_LOADTEST_RUNNER in the operator's container: " + container.path("env"));
    }

    static JsonNode named(List<JsonNode> docs, String name) {
        return docs.stream().filter(d -> name.equals(d.path("metadata").path("name").asText())).findFirst()
                .orElseThrow(() -> new AssertionError("no " + name + " in " + docs.stream().map(d -> d.path("metadata").path("name").asText()).toList()));
    }
}
