package io.vigil.charts;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * One latency and availability objective. Its single source is the FraudEngine CRD's spec.slo
 * defaults (crds/, generated from SloSpec); the chart's defaults, every environment, the local sample,
 * docs/slo.md and the k6 thresholds' defaults state the same numbers. Benchmarks may hold stricter
 * targets (the ladder's "held" rule) but never a looser one, and name them targets.
 */
class SloObjectiveTest {
    static double p50;
    static double p95;
    static double p99;
    static double availability;
    static String window;

    @BeforeAll
    static void theObjectiveFromTheCrd() throws Exception {
        p50 = Double.parseDouble(DefaultsAgreeTest.crdDefault("slo.p50Ms"));
        p95 = Double.parseDouble(DefaultsAgreeTest.crdDefault("slo.p95Ms"));
        p99 = Double.parseDouble(DefaultsAgreeTest.crdDefault("slo.p99Ms"));
        availability = Double.parseDouble(DefaultsAgreeTest.crdDefault("slo.availability"));
        window = DefaultsAgreeTest.crdDefault("slo.window");
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"charts/vigil-engine/values.yaml", "environments/local/values.yaml",
            "environments/staging/values.yaml", "environments/production/values.yaml"})
    void theChartAndEveryEnvironmentStateTheSloOfTheCrd(String file) throws Exception {
        assertSlo(file, SloRules.YAML.readTree(Repo.read(Repo.ROOT.resolve(file))).path("slo"));
    }

    @Test
    void theLocalSampleFraudEngineStatesTheSloOfTheCrd() throws Exception {
        String file = "environments/local/samples/fraudengine.yaml";
        assertSlo(file, SloRules.YAML.readTree(Repo.read(Repo.ROOT.resolve(file))).path("spec").path("slo"));
    }

    @Test
    void sloMdStatesTheObjectives() {
        String slo = Repo.read(Repo.ROOT.resolve("docs/slo.md"));
        assertThat(slo).contains("| AUTH availability |").contains("| " + number(availability) + " % |")
                .contains("answered within " + number(p99) + " ms / all answered AUTH requests | 99 %")
                .contains("answered within " + number(p95) + " ms / all answered AUTH requests | 95 %")
                .contains("against " + number(p50) + " ms on the dashboard");
    }

    @Test
    void theK6ThresholdsDefaultToTheSlo() {
        String js = Repo.read(Repo.ROOT.resolve("loadtests/k6/slo.js"));
        assertThat(k6Default(js, "P50_MS")).isEqualTo(p50);
        assertThat(k6Default(js, "P95_MS")).isEqualTo(p95);
        assertThat(k6Default(js, "P99_MS")).isEqualTo(p99);
        assertThat(k6Default(js, "ERROR_RATE")).as("share of bad answers the availability objective allows")
                .isEqualTo(Math.round((100 - availability) * 1000) / 100000.0);
    }

    @Test
    void theLadderHoldsATargetNoLooserThanTheSloAndNamesItATarget() {
        Path ladder = Repo.ROOT.resolve("loadtests/bench/ladder.py");
        String py = Repo.read(ladder);
        Matcher m = Pattern.compile("(?m)^HELD_P99_MS = ([0-9.]+)").matcher(py);
        assertThat(m.find()).as("HELD_P99_MS in %s", ladder).isTrue();
        assertThat(Double.parseDouble(m.group(1))).as("the ladder's held p99 is a target at or below the SLO's p99").isLessThanOrEqualTo(p99);
        assertThat(py).contains("benchmark target, stricter than the SLO");
    }

    static void assertSlo(String file, JsonNode slo) {
        assertThat(slo.path("p50Ms").asDouble()).as("%s slo.p50Ms", file).isEqualTo(p50);
        assertThat(slo.path("p95Ms").asDouble()).as("%s slo.p95Ms", file).isEqualTo(p95);
        assertThat(slo.path("p99Ms").asDouble()).as("%s slo.p99Ms", file).isEqualTo(p99);
        assertThat(slo.path("availability").asDouble()).as("%s slo.availability", file).isEqualTo(availability);
        assertThat(slo.path("window").asText()).as("%s slo.window", file).isEqualTo(window);
    }

    static double k6Default(String js, String variable) {
        Matcher m = Pattern.compile("num\\('" + variable + "', ([0-9.]+)\\)").matcher(js);
        assertThat(m.find()).as("a default for %s in loadtests/k6/slo.js", variable).isTrue();
        return Double.parseDouble(m.group(1));
    }

    /** 10.0 → "10", 99.9 → "99.9": as the docs write them. */
    static String number(double v) {
        return v == Math.rint(v) ? String.valueOf((long) v) : String.valueOf(v);
    }
}
