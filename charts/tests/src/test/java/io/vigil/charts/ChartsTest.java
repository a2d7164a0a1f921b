package io.vigil.charts;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The charts without a cluster: lint, golden output, schema refusals, one source for CRDs, rules and
 * dashboards. Golden files: src/test/resources/golden; regenerate with -Dvigil.golden.update=true and
 * review the diff.
 */
class ChartsTest {
    static final Path GOLDEN = Path.of("src/test/resources/golden");
    static final String[] ENVIRONMENTS = {"local", "staging", "production"};

    @Test
    void lintPassesForBothChartsWithEveryEnvironment() {
        for (Path chart : List.of(Repo.ENGINE_CHART, Repo.OPERATOR_CHART)) {
            Helm.run("lint", "--strict", chart.toString()).assertOk();
            for (String env : ENVIRONMENTS) {
                Path values = Repo.ROOT.resolve("environments/" + env + "/" + (chart == Repo.OPERATOR_CHART ? "operator-values.yaml" : "values.yaml"));
                Helm.run("lint", "--strict", chart.toString(), "-f", values.toString()).assertOk();
            }
        }
    }

    @ParameterizedTest(name = "{0} with {1}")
    @CsvSource({
            "vigil-engine, default", "vigil-engine, local", "vigil-engine, staging", "vigil-engine, production",
            "vigil-operator, default", "vigil-operator, local", "vigil-operator, staging", "vigil-operator, production"})
    void templateOutputMatchesTheGoldenFile(String chart, String env) throws IOException {
        Path chartDir = Repo.ROOT.resolve("charts/" + chart);
        List<String> args = new ArrayList<>();
        if (!env.equals("default")) {
            args.addAll(List.of("-f", Repo.ROOT.resolve("environments/" + env + "/"
                    + (chart.equals("vigil-operator") ? "operator-values.yaml" : "values.yaml")).toString()));
        }
        // CRDs are left out: they are the generated crds/ (checked by theOperatorChartCrdsAreTheGeneratedCrds).
        // The environments run the prometheus-operator: its ServiceMonitor kind is served (OperatorChartTest
        // checks the chart without it).
        if (chart.equals("vigil-operator")) {
            args.addAll(List.of("--api-versions", OperatorChartTest.SERVICE_MONITOR_API));
        }
        String out = Helm.template(chart.equals("vigil-operator") ? "vigil-operator" : "fraud",
                chart.equals("vigil-operator") ? "vigil-system" : "vigil", chartDir, args.toArray(String[]::new));
        Path golden = GOLDEN.resolve(chart + "-" + env + ".yaml");
        if (Boolean.getBoolean("vigil.golden.update") || !Files.exists(golden)) {
            Repo.write(golden, out);
        }
        assertThat(out).as("helm template %s with %s values (regenerate: -Dvigil.golden.update=true)", chart, env)
                .isEqualTo(Files.readString(golden));
    }

    @Test
    void theSchemaRefusesObjectivesTheSloRulesCannotCount() {
        Repo.Result r = Helm.run("template", "fraud", Repo.ENGINE_CHART.toString(), "--set", "slo.p99Ms=8");
        assertThat(r.exit()).isNotZero();
        assertThat(r.stderr()).contains("p99Ms");
        r = Helm.run("template", "fraud", Repo.ENGINE_CHART.toString(), "--set", "rules.managedBy=someone");
        assertThat(r.exit()).isNotZero();
        assertThat(r.stderr()).contains("managedBy");
        r = Helm.run("template", "fraud", Repo.ENGINE_CHART.toString(), "--set", "rulesets[0].key=CARD_AUTH", "--set", "rulesets[0].version=3");
        assertThat(r.exit()).as("a ruleset without a document").isNotZero();
        r = Helm.run("template", "op", Repo.OPERATOR_CHART.toString(), "--set", "replicas=2", "--set", "leaderElection.enabled=false");
        assertThat(r.exit()).as("two operators without leader election").isNotZero();
        r = Helm.run("template", "op", Repo.OPERATOR_CHART.toString(), "--set", "watchNamespaces[0]=Not_A_Namespace");
        assertThat(r.exit()).isNotZero();
        assertThat(r.stderr()).contains("watchNamespaces");
        r = Helm.run("template", "op", Repo.OPERATOR_CHART.toString(), "--set", "loadTests.runner=k6");
        assertThat(r.exit()).as("an unknown load-test runner").isNotZero();
        assertThat(r.stderr()).contains("loadTests");
    }

    @Test
    void theOperatorChartCrdsAreTheGeneratedCrds() throws IOException {
        Map<String, String> generated = files(Repo.ROOT.resolve("crds"));
        Map<String, String> inChart = files(Repo.OPERATOR_CHART.resolve("crds"));
        assertThat(generated).isNotEmpty();
        assertThat(inChart).isEqualTo(generated);
        for (Path p : Files.newDirectoryStream(Repo.OPERATOR_CHART.resolve("crds"))) {
            assertThat(Files.isSymbolicLink(p)).as("%s links to crds/ (one source of truth)", p).isTrue();
        }
        String rendered = Helm.template("op", "vigil-system", Repo.OPERATOR_CHART, "--include-crds");
        for (String crd : List.of("fraudengines.vigil.io", "fraudrulesets.vigil.io", "fraudloadtests.vigil.io")) {
            assertThat(rendered).contains("name: \"" + crd + "\"");
        }
    }

    @Test
    void watchingNamespacesGrantsRolesThereAndNoClusterWideWrites() {
        String all = Helm.template("op", "vigil-system", Repo.OPERATOR_CHART);
        List<JsonNode> docs = Manifests.parse(all);
        assertThat(Manifests.ofKind(docs, "ClusterRole")).extracting(d -> d.path("metadata").path("name").asText())
                .containsExactlyInAnyOrder("op-vigil-operator", "op-vigil-operator-crd-discovery");

        String scoped = Helm.template("op", "vigil-system", Repo.OPERATOR_CHART, "--set", "watchNamespaces={team-a,team-b}");
        docs = Manifests.parse(scoped);
        assertThat(Manifests.ofKind(docs, "ClusterRole")).extracting(d -> d.path("metadata").path("name").asText())
                .containsExactly("op-vigil-operator-crd-discovery");
        JsonNode discovery = Manifests.ofKind(docs, "ClusterRole").get(0);
        discovery.path("rules").forEach(rule -> rule.path("verbs").forEach(v ->
                assertThat(v.asText()).as("cluster-wide access is read only").isIn("get", "list", "watch")));
        assertThat(Manifests.ofKind(docs, "Role")).extracting(d -> d.path("metadata").path("namespace").asText())
                .containsExactlyInAnyOrder("team-a", "team-b", "vigil-system");
        JsonNode deployment = Manifests.ofKind(docs, "Deployment").get(0);
        assertThat(deployment.toString()).contains("\"name\":\"QUARKUS_OPERATOR_SDK_NAMESPACES\",\"value\":\"team-a,team-b\"");
        // Secrets: read only (SecretsValid), in the watched namespaces only; the operator passes them by reference
        for (String kind : List.of("Role", "ClusterRole")) {
            Manifests.ofKind(docs, kind).forEach(role -> role.path("rules").forEach(rule -> {
                if (rule.path("resources").toString().contains("secrets")) {
                    assertThat(kind).as("secrets outside the watched namespaces").isEqualTo("Role");
                    assertThat(role.path("metadata").path("namespace").asText()).isIn("team-a", "team-b");
                    assertThat(rule.path("resources").toString()).isEqualTo("[\"secrets\"]");
                    assertThat(rule.path("verbs").toString()).isEqualTo("[\"get\",\"list\",\"watch\"]");
                }
            }));
        }
    }

    @Test
    void theOperatorPodIsRestricted() {
        JsonNode deployment = Manifests.ofKind(Manifests.parse(Helm.template("op", "vigil-system", Repo.OPERATOR_CHART)), "Deployment").get(0);
        JsonNode pod = deployment.path("spec").path("template").path("spec");
        JsonNode c = pod.path("containers").get(0);
        assertThat(pod.path("securityContext").path("runAsNonRoot").asBoolean()).isTrue();
        assertThat(pod.path("securityContext").path("seccompProfile").path("type").asText()).isEqualTo("RuntimeDefault");
        assertThat(c.path("securityContext").path("readOnlyRootFilesystem").asBoolean()).isTrue();
        assertThat(c.path("securityContext").path("allowPrivilegeEscalation").asBoolean()).isFalse();
        assertThat(c.path("securityContext").path("capabilities").path("drop").toString()).contains("ALL");
        assertThat(c.has("livenessProbe") && c.has("readinessProbe") && c.has("startupProbe")).isTrue();
        assertThat(c.path("resources").path("requests").path("memory").asText()).isNotEmpty();
        assertThat(deployment.path("spec").path("replicas").asInt()).isEqualTo(2);
        assertThat(c.toString()).contains("VIGIL_OPERATOR_LEADER_ELECTION_ENABLED");
    }

    @Test
    void theChartRendersTheSameSloRulesAsTheRuleSourceRenderer() {
        String out = Helm.template("fraud", "payments", Repo.ENGINE_CHART, "--set", "rules.managedBy=chart", "--set", "slo.p99Ms=20",
                "--set", "slo.window=28d");
        JsonNode rule = Manifests.ofKind(Manifests.parse(out), "PrometheusRule").get(0);
        JsonNode expected = SloRules.parseYaml(Repo.renderRules("engine=fraud", "namespace=payments",
                "engineSelector=namespace=\"payments\",job=\"fraud-engine-management\"",
                "relaySelector=namespace=\"payments\",job=\"fraud-relay-management\"",
                "p99Le=0.02", "window=28d", "windowHours=672"));
        assertThat(rule.path("spec")).isEqualTo(expected);
        assertThat(Manifests.ofKind(Manifests.parse(out), "FraudEngine").get(0).path("spec").path("observability")
                .path("prometheusRule").path("enabled").asBoolean()).as("the operator's copy is off").isFalse();

        String byOperator = Helm.template("fraud", "payments", Repo.ENGINE_CHART);
        assertThat(Manifests.ofKind(Manifests.parse(byOperator), "PrometheusRule")).isEmpty();
        assertThat(Manifests.ofKind(Manifests.parse(byOperator), "FraudEngine").get(0).path("spec").path("observability")
                .path("prometheusRule").path("enabled").asBoolean()).isTrue();
    }

    @Test
    void dashboardsShipAsLabelledConfigMapsWithTheCommittedJson() throws IOException {
        List<JsonNode> maps = Manifests.ofKind(Manifests.parse(Helm.template("fraud", "vigil", Repo.ENGINE_CHART)), "ConfigMap");
        assertThat(maps).hasSize(3);
        for (JsonNode cm : maps) {
            assertThat(cm.path("metadata").path("labels").path("grafana_dashboard").asText()).isEqualTo("1");
            var field = cm.path("data").fields().next();
            assertThat(SloRules.JSON.readTree(field.getValue().asText()))
                    .isEqualTo(SloRules.JSON.readTree(Repo.DASHBOARDS.resolve(field.getKey()).toFile()));
        }
        assertThat(Manifests.ofKind(Manifests.parse(Helm.template("fraud", "vigil", Repo.ENGINE_CHART, "--set", "dashboards.enabled=false")),
                "ConfigMap")).isEmpty();
    }

    @Test
    void rulesetsComeFromValuesAndSamplesAndOnlyActiveOnesAreReferenced() {
        String out = Helm.template("fraud", "vigil", Repo.ENGINE_CHART, "--set", "sampleRulesets=true",
                "--set", "rulesets[0].key=CARD_AUTH", "--set", "rulesets[0].version=3", "--set", "rulesets[0].active=false",
                "--set-file", "rulesets[0].documentText=" + Repo.ROOT.resolve("engine/rulesets/CARD_AUTH/v1/ruleset.json"));
        List<JsonNode> docs = Manifests.parse(out);
        assertThat(Manifests.ofKind(docs, "FraudRuleset")).extracting(d -> d.path("metadata").path("name").asText())
                .containsExactlyInAnyOrder("fraud-card-auth-v2", "fraud-card-monitoring-v1", "fraud-card-auth-v3");
        JsonNode v2 = Manifests.ofKind(docs, "FraudRuleset").stream().filter(d -> d.path("spec").path("version").asInt() == 2).findFirst().orElseThrow();
        assertThat(v2.path("spec").path("document").path("rules").size()).isGreaterThan(50);
        assertThat(Manifests.ofKind(docs, "FraudEngine").get(0).path("spec").path("rulesets").toString())
                .isEqualTo("[{\"key\":\"CARD_AUTH\",\"version\":2},{\"key\":\"CARD_MONITORING\",\"version\":1}]");
    }

    private static Map<String, String> files(Path dir) throws IOException {
        Map<String, String> out = new TreeMap<>();
        try (Stream<Path> s = Files.list(dir)) {
            for (Path p : s.toList()) {
                out.put(p.getFileName().toString(), Files.readString(p));
            }
        }
        return out;
    }
}
