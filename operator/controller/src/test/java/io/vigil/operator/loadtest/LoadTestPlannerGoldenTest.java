package io.vigil.operator.loadtest;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.vigil.operator.api.v1alpha1.FraudLoadTest;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The rendered ConfigMap and TestRun of each scenario, compared with reviewed YAML under
 * src/test/resources/golden/loadtest. The scripts appear by file name only (LoadTestScriptsTest checks
 * the content itself, so editing a k6 source does not churn these files). After an intended change:
 * {@code ./mvnw -pl operator/controller test -Dtest=LoadTestPlannerGoldenTest -Dvigil.golden.update=true}, review the diff.
 */
class LoadTestPlannerGoldenTest {

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"constant-arrival-rate", "ramp", "spike", "soak", "smoke", "mixed", "monitoring-long-name"})
    void renderedObjectsMatchGolden(String name) throws IOException {
        FraudLoadTest flt = LoadTests.fixture(name);
        LoadTestPlan plan = LoadTestPlanner.plan(flt, LoadTests.engine(flt.getMetadata().getNamespace()));
        assertThat(plan.problems()).isEmpty();

        ConfigMap scripts = new io.fabric8.kubernetes.api.model.ConfigMapBuilder(plan.scripts()).build();
        Map<String, String> hashes = new LinkedHashMap<>();
        // Content is LoadTestScriptsTest's business; here only which files the ConfigMap carries.
        scripts.getData().forEach((k, v) -> hashes.put(k, "<loadtests/k6/" + k + ">"));
        scripts.setData(hashes);
        String actual = LoadTests.yaml(scripts) + "---\n" + LoadTests.yaml(plan.testRun());

        Path golden = Path.of("src/test/resources/golden/loadtest", name + ".yaml");
        if (Boolean.parseBoolean(System.getProperty("vigil.golden.update"))) {
            Files.createDirectories(golden.getParent());
            Files.writeString(golden, actual);
        }
        assertThat(golden).as("golden file (regenerate with -Dvigil.golden.update=true)").exists();
        assertThat(actual).as("rendered objects of " + name + " vs " + golden).isEqualTo(Files.readString(golden));
    }

    @Test
    void eachGenerationGetsItsOwnTestRunNameThatStaysAValidJobPrefix() {
        FraudLoadTest flt = LoadTests.fixture("constant-arrival-rate");
        String first = LoadTestPlanner.testRunName(flt);
        flt.getMetadata().setGeneration(2L);
        assertThat(LoadTestPlanner.testRunName(flt)).isEqualTo("constant-arrival-rate-g2").isNotEqualTo(first);

        FraudLoadTest longName = LoadTests.fixture("monitoring-long-name");
        String tr = LoadTestPlanner.testRunName(longName);
        assertThat(tr).hasSizeLessThanOrEqualTo(LoadTestPlanner.MAX_TEST_RUN_NAME).endsWith("-g12")
                .matches("[a-z0-9]([-a-z0-9]*[a-z0-9])?");
        assertThat((tr + "-initializer").length()).isLessThanOrEqualTo(63);
        // Two long names with the same head do not collide.
        longName.getMetadata().setName(longName.getMetadata().getName() + "-b");
        assertThat(LoadTestPlanner.testRunName(longName)).isNotEqualTo(tr);
    }

    @Test
    void thresholdsDefaultToTheTargetSloAndTheSpecOverridesThem() {
        FraudLoadTest flt = LoadTests.fixture("constant-arrival-rate");
        var target = LoadTests.engine("payments");
        target.getSpec().slo.p99Ms = 7.5;
        target.getSpec().slo.availability = 99.95;
        Map<String, Object> env = env(LoadTestPlanner.plan(flt, target));
        assertThat(env).containsEntry("P50_MS", "2").containsEntry("P95_MS", "5").containsEntry("P99_MS", "7.5")
                .containsEntry("ERROR_RATE", "0.0005");

        FraudLoadTest ramp = LoadTests.fixture("ramp");
        Map<String, Object> rampEnv = env(LoadTestPlanner.plan(ramp, target));
        assertThat(rampEnv).containsEntry("P99_MS", "8").containsEntry("ERROR_RATE", "0.0005").containsEntry("P95_MS", "5");
    }

    @Test
    void aMissingTargetIsAProblemAndNothingIsRendered() {
        LoadTestPlan plan = LoadTestPlanner.plan(LoadTests.fixture("soak"), null);
        assertThat(plan.runnable()).isFalse();
        assertThat(plan.testRun()).isNull();
        assertThat(plan.scripts()).isNull();
        assertThat(plan.problems()).singleElement().asString()
                .contains("spec.target.fraudEngine").contains("\"fraud\"").contains("payments");
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> env(LoadTestPlan plan) {
        Map<String, Object> spec = (Map<String, Object>) plan.testRun().getAdditionalProperties().get("spec");
        Map<String, Object> runner = (Map<String, Object>) spec.get("runner");
        Map<String, Object> env = new LinkedHashMap<>();
        for (Map<String, Object> e : (List<Map<String, Object>>) runner.get("env")) {
            env.put((String) e.get("name"), e.get("value"));
        }
        return env;
    }
}
