package io.vigil.charts;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The SLO rules (one source: charts/vigil-engine/files/rules/vigil-slo.rules.yaml) checked and unit
 * tested by promtool, the tool Prometheus itself uses to load them.
 */
class SloRulesTest {
    static final Path UNIT_TESTS = Path.of("src/test/resources/promtool/vigil-slo.rules.test.yaml");
    static final String[] TEST_VALUES = {"engine=test", "namespace=vigil", "engineSelector=job=\"vigil-engine\"", "relaySelector=job=\"vigil-relay\""};
    static Path promtool;

    @BeforeAll
    static void tools() {
        promtool = Repo.tool("promtool");
    }

    @Test
    void renderedRulesPassPromtoolCheck(@TempDir Path dir) {
        Path rules = Repo.write(dir.resolve("vigil-slo.rules.yaml"), Repo.renderRules(TEST_VALUES));
        Repo.Result r = Repo.run(Repo.Duration.SHORT, dir, Map.of(), promtool.toString(), "check", "rules", rules.toString()).assertOk();
        assertThat(r.output()).contains("SUCCESS");
    }

    @Test
    void promtoolUnitTestsPass(@TempDir Path dir) {
        Repo.write(dir.resolve("vigil-slo.rules.yaml"), SloRules.withoutAnnotations(Repo.renderRules(TEST_VALUES)));
        Path tests = Repo.write(dir.resolve("vigil-slo.rules.test.yaml"), Repo.read(UNIT_TESTS));
        Repo.Result r = Repo.run(Repo.Duration.LONG, dir, Map.of(), promtool.toString(), "test", "rules", tests.toString());
        r.assertOk();
        assertThat(r.output()).contains("SUCCESS");
    }

    @Test
    void aBrokenRuleMakesThePromtoolUnitTestsFail(@TempDir Path dir) {
        // Guards the test above against passing vacuously: a rule whose threshold is off fails its test
        // group (only that group runs: --run, to keep this cheap).
        String rules = Repo.renderRules(TEST_VALUES);
        String broken = rules.replace("increase(vigil_ruleset_load_failures_total{job=\"vigil-engine\"}[10m])) > 0",
                "increase(vigil_ruleset_load_failures_total{job=\"vigil-engine\"}[10m])) > 5");
        assertThat(broken).isNotEqualTo(rules);
        Repo.write(dir.resolve("vigil-slo.rules.yaml"), SloRules.withoutAnnotations(broken));
        Path tests = Repo.write(dir.resolve("vigil-slo.rules.test.yaml"), Repo.read(UNIT_TESTS));
        Repo.Result r = Repo.run(Repo.Duration.LONG, dir, Map.of(), promtool.toString(), "test", "rules",
                "--run", "a rejected ruleset version", tests.toString());
        assertThat(r.exit()).isNotZero();
        assertThat(r.output()).contains("VigilRulesetLoadFailed");
    }

    @Test
    void everyAlertIsUnitTestedFiringAndNotFiring() {
        JsonNode rules = SloRules.parseYaml(Repo.renderRules(TEST_VALUES));
        JsonNode tests = SloRules.parseYaml(Repo.read(UNIT_TESTS));
        Set<String> firing = new TreeSet<>();
        Set<String> silent = new TreeSet<>();
        tests.path("tests").forEach(t -> t.path("alert_rule_test").forEach(a -> {
            (a.path("exp_alerts").isEmpty() ? silent : firing).add(a.path("alertname").asText());
        }));
        Set<String> alerts = new TreeSet<>(SloRules.alertNames(rules));
        assertThat(alerts).hasSizeGreaterThanOrEqualTo(15);
        assertThat(firing).as("alerts shown to fire").containsAll(alerts);
        assertThat(silent).as("alerts shown not to fire").containsAll(alerts);
    }

    @Test
    void everyAlertTellsWhatAndWhereToLook() {
        JsonNode rules = SloRules.parseYaml(Repo.renderRules(TEST_VALUES));
        String runbooks = Repo.read(Repo.ROOT.resolve("docs/slo.md"));
        SloRules.rules(rules).stream().filter(r -> r.has("alert")).forEach(r -> {
            String name = r.get("alert").asText();
            assertThat(runbooks).as("docs/slo.md has a section for %s (its runbook_url anchor)", name).contains("\n### " + name + "\n");
            assertThat(r.path("labels").path("severity").asText()).as(name).isIn("page", "ticket");
            assertThat(r.path("annotations").path("summary").asText()).as(name).isNotBlank();
            assertThat(r.path("annotations").path("description").asText()).as(name).isNotBlank();
            assertThat(r.path("annotations").path("runbook_url").asText()).as(name).isEqualTo("docs/slo.md#" + name.toLowerCase());
        });
    }

    @Test
    void theRuleSourceUsesExactlyTheDocumentedPlaceholders() {
        String source = Repo.read(Repo.RULE_SOURCE);
        Set<String> used = new LinkedHashSet<>();
        Matcher m = Pattern.compile("\\$\\{([A-Za-z0-9]+)}").matcher(source.replaceAll("(?m)^\\s*#.*$", ""));
        while (m.find()) {
            used.add(m.group(1));
        }
        assertThat(used).containsExactlyInAnyOrder("engine", "namespace", "engineSelector", "relaySelector",
                "availabilityPercent", "p50Le", "p95Le", "p99Le", "window", "windowHours");
        for (String p : used) {
            assertThat(source).as("placeholder %s documented in the header", p).containsPattern("(?m)^#   .*\\b" + p + "\\b");
        }
        assertThat(Repo.renderRules(TEST_VALUES)).doesNotContainPattern("(?m)^[^#]*\\$\\{[A-Za-z]");
    }
}
