package io.vigil.operator.engine.desired;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.openshift.api.model.monitoring.v1.EndpointBuilder;
import io.fabric8.openshift.api.model.monitoring.v1.PrometheusRule;
import io.fabric8.openshift.api.model.monitoring.v1.PrometheusRuleBuilder;
import io.fabric8.openshift.api.model.monitoring.v1.Rule;
import io.fabric8.openshift.api.model.monitoring.v1.RuleBuilder;
import io.fabric8.openshift.api.model.monitoring.v1.ServiceMonitor;
import io.fabric8.openshift.api.model.monitoring.v1.ServiceMonitorBuilder;
import io.vigil.operator.api.v1alpha1.Durations;
import io.vigil.operator.api.v1alpha1.FraudEngine;
import io.vigil.operator.api.v1alpha1.SloSpec;
import io.vigil.operator.engine.Names;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * ServiceMonitor, PrometheusRule (SLO recording rules and multi-window, multi-burn-rate alerts as in the
 * Google SRE workbook) and a Grafana dashboard ConfigMap, all from spec.slo and spec.observability.
 */
public final class Monitoring {

    public static final String METRICS_LABEL = "vigil.io/metrics";
    static final String[] RATE_WINDOWS = {"5m", "30m", "1h", "2h", "6h", "1d", "3d"};
    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    private Monitoring() {
    }

    public static ServiceMonitor serviceMonitor(FraudEngine fe) {
        var obs = fe.getSpec().observability.serviceMonitor;
        var meta = Meta.of(fe, fe.getMetadata().getName(), "monitoring");
        // User labels (e.g. release: kube-prometheus-stack) on top; ours win on conflict so ownership labels stay.
        Map<String, String> labels = new LinkedHashMap<>(obs.labels == null ? Map.of() : obs.labels);
        labels.putAll(meta.getLabels());
        meta.setLabels(labels);
        var endpoint = new EndpointBuilder().withPort("management").withPath("/q/metrics").withInterval(obs.interval)
                // The engine's own "endpoint" label (auth, monitoring) must survive the scrape.
                .withHonorLabels(true).build();
        return new ServiceMonitorBuilder()
                .withMetadata(meta)
                .withNewSpec()
                .withNewSelector()
                .addToMatchLabels(Names.LABEL_INSTANCE, fe.getMetadata().getName())
                .addToMatchLabels(METRICS_LABEL, "true")
                .endSelector()
                .withEndpoints(endpoint)
                .endSpec()
                .build();
    }

    static String selector(FraudEngine fe) {
        return "namespace=\"" + fe.getMetadata().getNamespace() + "\",job=\"" + Names.engineManagement(fe) + "\",endpoint=\"auth\"";
    }

    /** Error budget as a ratio: 99.9 → 0.001. */
    static double budget(SloSpec slo) {
        return Math.round((100.0 - slo.availability) * 1e6) / 1e8;
    }

    /**
     * Burn rate that spends {@code budgetShare} of the budget within {@code alertWindow}, for an SLO
     * window of any length (14.4, 6, 3 and 1 for the workbook's 30 days).
     */
    static double burnRate(SloSpec slo, double budgetShare, String alertWindow) {
        double windowHours = Durations.parse(slo.window).toMinutes() / 60.0;
        double alertHours = Durations.parse(alertWindow).toMinutes() / 60.0;
        return Math.round(budgetShare * windowHours / alertHours * 1000) / 1000.0;
    }

    public static PrometheusRule prometheusRule(FraudEngine fe) {
        SloSpec slo = fe.getSpec().slo;
        String sel = selector(fe);
        Map<String, String> ruleLabels = Map.of("vigil_engine", fe.getMetadata().getName(), "namespace", fe.getMetadata().getNamespace());
        List<Rule> recording = new ArrayList<>();
        for (String w : RATE_WINDOWS) {
            recording.add(record("vigil:auth_requests:rate" + w, "sum(rate(vigil_evaluate_seconds_count{" + sel + "}[" + w + "]))", ruleLabels));
            recording.add(record("vigil:auth_errors:ratio_rate" + w,
                    "sum(rate(vigil_evaluate_seconds_count{" + sel + ",mode!=\"NORMAL\"}[" + w + "]))"
                            + " / clamp_min(sum(rate(vigil_evaluate_seconds_count{" + sel + "}[" + w + "])), 1e-9)", ruleLabels));
        }
        for (String q : List.of("50", "95", "99")) {
            recording.add(record("vigil:auth_latency_seconds:p" + q,
                    "histogram_quantile(0." + q + ", sum by (le) (rate(vigil_evaluate_seconds_bucket{" + sel + "}[5m])))", ruleLabels));
        }

        String eng = "vigil_engine=\"" + fe.getMetadata().getName() + "\",namespace=\"" + fe.getMetadata().getNamespace() + "\"";
        double b = budget(slo);
        List<Rule> alerts = new ArrayList<>();
        alerts.add(alert("VigilErrorBudgetBurnFast", "page",
                burn(eng, "1h", "5m", burnRate(slo, 0.02, "1h"), b) + "\nor\n" + burn(eng, "6h", "30m", burnRate(slo, 0.05, "6h"), b),
                "2m", fe, "AUTH answers that are not NORMAL are burning the " + slo.window + " error budget fast (2% in 1h or 5% in 6h)."));
        alerts.add(alert("VigilErrorBudgetBurnSlow", "ticket",
                burn(eng, "1d", "2h", burnRate(slo, 0.10, "1d"), b) + "\nor\n" + burn(eng, "3d", "6h", burnRate(slo, 0.10, "3d"), b),
                "15m", fe, "AUTH answers that are not NORMAL are burning the " + slo.window + " error budget (10% in 1d or 3d)."));
        Map<String, Double> objectives = new LinkedHashMap<>();
        objectives.put("50", slo.p50Ms);
        objectives.put("95", slo.p95Ms);
        objectives.put("99", slo.p99Ms);
        objectives.forEach((q, ms) -> alerts.add(alert("VigilAuthLatencyP" + q + "AboveObjective", "ticket",
                "vigil:auth_latency_seconds:p" + q + "{" + eng + "} > " + seconds(ms), "10m", fe,
                "AUTH p" + q + " latency is above its objective of " + ms + " ms.")));

        return new PrometheusRuleBuilder()
                .withMetadata(Meta.of(fe, Names.slo(fe), "monitoring"))
                .withNewSpec()
                .addNewGroup().withName("vigil-" + fe.getMetadata().getName() + "-slo-recording").withInterval("30s").withRules(recording).endGroup()
                .addNewGroup().withName("vigil-" + fe.getMetadata().getName() + "-slo-alerts").withRules(alerts).endGroup()
                .endSpec()
                .build();
    }

    private static String burn(String eng, String longW, String shortW, double factor, double budget) {
        String threshold = fmt(factor * budget);
        return "(vigil:auth_errors:ratio_rate" + longW + "{" + eng + "} > " + threshold
                + " and vigil:auth_errors:ratio_rate" + shortW + "{" + eng + "} > " + threshold + ")";
    }

    static String seconds(double ms) {
        return fmt(ms / 1000.0);
    }

    static String fmt(double d) {
        return String.format(Locale.ROOT, "%.8f", d).replaceAll("0+$", "").replaceAll("\\.$", "");
    }

    private static Rule record(String name, String expr, Map<String, String> labels) {
        return new RuleBuilder().withRecord(name).withExpr(new IntOrString(expr)).withLabels(new LinkedHashMap<>(labels)).build();
    }

    private static Rule alert(String name, String severity, String expr, String forDuration, FraudEngine fe, String summary) {
        return new RuleBuilder().withAlert(name).withExpr(new IntOrString(expr)).withFor(forDuration)
                .withLabels(new LinkedHashMap<>(Map.of("severity", severity)))
                .withAnnotations(new LinkedHashMap<>(Map.of(
                        "summary", summary,
                        "runbook_url", "docs/runbooks/ruleset-upgrade-rollback.md",
                        "fraudengine", fe.getMetadata().getNamespace() + "/" + fe.getMetadata().getName())))
                .build();
    }

    /** Grafana picks up ConfigMaps labelled grafana_dashboard: "1" (kube-prometheus-stack's sidecar). */
    public static ConfigMap dashboard(FraudEngine fe) {
        var meta = Meta.of(fe, Names.dashboard(fe), "monitoring");
        meta.getLabels().put("grafana_dashboard", "1");
        return new ConfigMapBuilder()
                .withMetadata(meta)
                .addToData("vigil-" + fe.getMetadata().getName() + ".json", dashboardJson(fe))
                .build();
    }

    static String dashboardJson(FraudEngine fe) {
        SloSpec slo = fe.getSpec().slo;
        String sel = selector(fe);
        String eng = "vigil_engine=\"" + fe.getMetadata().getName() + "\",namespace=\"" + fe.getMetadata().getNamespace() + "\"";
        ObjectNode d = JSON.createObjectNode();
        d.put("title", "Vigil " + fe.getMetadata().getNamespace() + "/" + fe.getMetadata().getName());
        d.put("uid", ("vigil-" + fe.getMetadata().getNamespace() + "-" + fe.getMetadata().getName()).substring(0,
                Math.min(40, ("vigil-" + fe.getMetadata().getNamespace() + "-" + fe.getMetadata().getName()).length())));
        d.put("schemaVersion", 39);
        d.putArray("tags").add("vigil");
        d.put("refresh", "30s");
        d.putObject("time").put("from", "now-3h").put("to", "now");
        ObjectNode ds = d.putObject("templating").putArray("list").addObject();
        ds.put("name", "datasource").put("type", "datasource").put("query", "prometheus").put("label", "Data source");
        ArrayNode panels = d.putArray("panels");
        int y = 0;
        panels.add(panel(1, "AUTH requests/s by decision", 0, y, "reqps", null,
                target("sum by (decision) (rate(vigil_evaluate_seconds_count{" + sel + "}[1m]))", "{{decision}}")));
        panels.add(panel(2, "AUTH latency vs objectives", 12, y, "s",
                new double[]{slo.p50Ms / 1000, slo.p95Ms / 1000, slo.p99Ms / 1000},
                target("vigil:auth_latency_seconds:p50{" + eng + "}", "p50 (objective " + slo.p50Ms + " ms)"),
                target("vigil:auth_latency_seconds:p95{" + eng + "}", "p95 (objective " + slo.p95Ms + " ms)"),
                target("vigil:auth_latency_seconds:p99{" + eng + "}", "p99 (objective " + slo.p99Ms + " ms)")));
        y += 8;
        panels.add(panel(3, "Answers not NORMAL (ratio) vs error budget", 0, y, "percentunit", new double[]{budget(slo)},
                target("vigil:auth_errors:ratio_rate5m{" + eng + "}", "5m"),
                target("vigil:auth_errors:ratio_rate1h{" + eng + "}", "1h")));
        panels.add(panel(4, "Degraded / fail-open by code", 12, y, "reqps", null,
                target("sum by (mode) (rate(vigil_evaluate_seconds_count{" + sel + ",mode!=\"NORMAL\"}[1m]))", "{{mode}}")));
        y += 8;
        panels.add(panel(5, "Outbox queue depth", 0, y, "short", null,
                target("sum by (pod) (vigil_outbox_queue_depth{namespace=\"" + fe.getMetadata().getNamespace() + "\",job=\"" + Names.engineManagement(fe) + "\"})", "{{pod}}")));
        panels.add(panel(6, "Velocity round trip (p99)", 12, y, "s", null,
                target("histogram_quantile(0.99, sum by (le) (rate(vigil_velocity_round_trip_seconds_bucket{namespace=\"" + fe.getMetadata().getNamespace()
                        + "\",job=\"" + Names.engineManagement(fe) + "\"}[5m])))", "p99")));
        try {
            return JSON.writeValueAsString(d) + "\n";
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    private static ObjectNode target(String expr, String legend) {
        ObjectNode t = JSON.createObjectNode();
        t.put("expr", expr);
        t.put("legendFormat", legend);
        return t;
    }

    private static ObjectNode panel(int id, String title, int x, int y, String unit, double[] thresholds, ObjectNode... targets) {
        ObjectNode p = JSON.createObjectNode();
        p.put("id", id);
        p.put("type", "timeseries");
        p.put("title", title);
        p.putObject("gridPos").put("h", 8).put("w", 12).put("x", x).put("y", y);
        p.putObject("datasource").put("type", "prometheus").put("uid", "${datasource}");
        ObjectNode defaults = p.putObject("fieldConfig").putObject("defaults");
        defaults.put("unit", unit);
        if (thresholds != null) {
            ObjectNode th = defaults.putObject("thresholds");
            th.put("mode", "absolute");
            ArrayNode steps = th.putArray("steps");
            steps.addObject().put("color", "green").putNull("value");
            String[] colors = {"yellow", "orange", "red"};
            for (int i = 0; i < thresholds.length; i++) {
                steps.addObject().put("color", colors[thresholds.length == 1 ? 2 : Math.min(i, 2)]).put("value", thresholds[i]);
            }
            defaults.putObject("custom").putObject("thresholdsStyle").put("mode", "line");
        }
        ArrayNode ts = p.putArray("targets");
        for (ObjectNode t : targets) {
            ts.add(t);
        }
        return p;
    }
}
