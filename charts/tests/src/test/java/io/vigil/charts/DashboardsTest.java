package io.vigil.charts;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The committed dashboards: shape, and every PromQL expression parses (promtool). */
class DashboardsTest {
    static Path promtool;

    @BeforeAll
    static void tools() {
        promtool = Repo.tool("promtool");
    }

    @Test
    void theThreeDashboardsExistWithUniqueUidsAndPanelIds() {
        assertThat(Dashboards.files()).extracting(p -> p.getFileName().toString())
                .containsExactlyInAnyOrder("vigil-slo-overview.json", "vigil-engine-internals.json", "vigil-durability-pipeline.json");
        Set<String> uids = new HashSet<>();
        for (Path f : Dashboards.files()) {
            JsonNode d = Dashboards.read(f);
            assertThat(uids.add(d.path("uid").asText())).as("unique uid in %s", f).isTrue();
            assertThat(d.path("uid").asText().length()).as("Grafana uid limit").isLessThanOrEqualTo(40);
            Set<Integer> ids = new HashSet<>();
            for (JsonNode p : Dashboards.panels(d)) {
                assertThat(ids.add(p.path("id").asInt())).as("unique panel id %s in %s", p.path("id"), f).isTrue();
                if (!"row".equals(p.path("type").asText())) {
                    assertThat(p.path("targets").size()).as("panel %s has queries", p.path("title")).isPositive();
                    assertThat(p.path("datasource").path("uid").asText()).as("panel %s follows the datasource variable", p.path("title"))
                            .isEqualTo("${datasource}");
                }
            }
        }
    }

    @Test
    void theSloDashboardShowsQuantilesAgainstObjectivesBudgetAndBurnRates() {
        String slo = Repo.read(Repo.DASHBOARDS.resolve("vigil-slo-overview.json"));
        assertThat(slo).contains("vigil:auth_latency_seconds:p50", "vigil:auth_latency_seconds:p95", "vigil:auth_latency_seconds:p99",
                "vigil:slo_objective:latency_seconds", "error_budget_remaining", "error_ratio_rate1h", "error_ratio_rate6h");
    }

    @Test
    void everyExpressionParses(@TempDir Path dir) {
        List<Dashboards.Expr> exprs = Dashboards.expressions();
        assertThat(exprs).hasSizeGreaterThan(40);
        // promtool parses a rule file's expressions with Prometheus' own parser: one recording rule each.
        StringBuilder file = new StringBuilder("groups:\n  - name: dashboard-expressions\n    rules:\n");
        for (int i = 0; i < exprs.size(); i++) {
            Dashboards.Expr e = exprs.get(i);
            file.append("      # ").append(e.dashboard()).append(' ').append(e.where().replace('\n', ' ')).append('\n')
                    .append("      - record: dashboard:expr_").append(i).append('\n')
                    .append("        expr: ").append(SloRules.JSON.valueToTree(e.substituted()).toString()).append('\n');
        }
        Path rules = Repo.write(dir.resolve("dashboards.rules.yaml"), file.toString());
        Repo.Result r = Repo.run(Repo.Duration.SHORT, dir, Map.of(), promtool.toString(), "check", "rules", rules.toString());
        assertThat(r.exit()).as(r.output()).isZero();
    }

    @Test
    void aBrokenExpressionIsCaught(@TempDir Path dir) {
        Path rules = Repo.write(dir.resolve("broken.rules.yaml"),
                "groups:\n  - name: g\n    rules:\n      - record: dashboard:expr_0\n        expr: \"sum(rate(vigil_x[5m])\"\n");
        assertThat(Repo.run(Repo.Duration.SHORT, dir, Map.of(), promtool.toString(), "check", "rules", rules.toString()).exit()).isNotZero();
    }
}
