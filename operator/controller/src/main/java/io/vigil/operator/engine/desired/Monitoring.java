package io.vigil.operator.engine.desired;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.SecretKeySelectorBuilder;
import io.fabric8.openshift.api.model.monitoring.v1.Endpoint;
import io.fabric8.openshift.api.model.monitoring.v1.EndpointBuilder;
import io.fabric8.openshift.api.model.monitoring.v1.PrometheusRule;
import io.fabric8.openshift.api.model.monitoring.v1.PrometheusRuleBuilder;
import io.fabric8.openshift.api.model.monitoring.v1.ServiceMonitor;
import io.fabric8.openshift.api.model.monitoring.v1.SafeAuthorizationBuilder;
import io.fabric8.openshift.api.model.monitoring.v1.ServiceMonitorBuilder;
import io.fabric8.openshift.api.model.monitoring.v1.TLSConfigBuilder;
import io.vigil.operator.api.v1alpha1.FraudEngine;
import io.vigil.operator.api.v1alpha1.SloSpec;
import io.vigil.operator.engine.Names;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * ServiceMonitor, PrometheusRule (SLO recording rules and multi-window, multi-burn-rate alerts as in the
 * Google SRE workbook) and a Grafana dashboard ConfigMap, all from spec.slo and spec.observability.
 */
public final class Monitoring {

    public static final String METRICS_LABEL = "vigil.io/metrics";
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
        return new ServiceMonitorBuilder()
                .withMetadata(meta)
                .withNewSpec()
                .withNewSelector()
                .addToMatchLabels(Names.LABEL_INSTANCE, fe.getMetadata().getName())
                .addToMatchLabels(METRICS_LABEL, "true")
                .endSelector()
                .withEndpoints(engineEndpoint(fe, obs.interval), endpoint(Names.RELAY, obs.interval))
                .endSpec()
                .build();
    }

    /**
     * The engine's management Services only: it may want a credential (ADR 0013: Prometheus sends the
     * static metrics token, never to the relay) and HTTPS, checking the certificate against ca.crt of
     * spec.auth.tls.secretName (what cert-manager's CA issuers write) under the management Service's
     * name, as Prometheus scrapes pod IPs.
     */
    static Endpoint engineEndpoint(FraudEngine fe, String interval) {
        Endpoint endpoint = endpoint(Names.ENGINE, interval);
        var auth = fe.getSpec().auth;
        if (auth != null && auth.management.jwt && auth.management.metricsTokenSecretRef != null) {
            endpoint.setAuthorization(new SafeAuthorizationBuilder().withType("Bearer")
                    .withCredentials(new SecretKeySelectorBuilder()
                            .withName(auth.management.metricsTokenSecretRef.name).withKey(auth.management.metricsTokenSecretRef.key).build())
                    .build());
        }
        if (EngineCallerAuth.managementTls(fe)) {
            endpoint.setScheme("https");
            endpoint.setTlsConfig(new TLSConfigBuilder()
                    .withNewCa().withSecret(new SecretKeySelectorBuilder().withName(auth.tls.secretName).withKey("ca.crt").build()).endCa()
                    .withServerName(EngineCallerAuth.managementServerName(fe))
                    .build());
        }
        return endpoint;
    }

    /**
     * One endpoint per component (engine, relay): both Services name their port "management", so each
     * endpoint keeps only its component's Services, and each gets its own scheme and credentials.
     */
    private static Endpoint endpoint(String component, String interval) {
        return new EndpointBuilder().withPort("management").withPath("/q/metrics").withInterval(interval)
                // The engine's own "endpoint" label (auth, monitoring) must survive the scrape.
                .withHonorLabels(true)
                .addNewRelabeling().withAction("keep")
                .withSourceLabels("__meta_kubernetes_service_label_app_kubernetes_io_component").withRegex(component).endRelabeling()
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
     * The SLO rules from the one rule source the Helm chart also renders
     * (charts/vigil-engine/files/rules, see {@link SloRuleSource}), filled in from spec.slo.
     */
    public static PrometheusRule prometheusRule(FraudEngine fe) {
        return new PrometheusRuleBuilder()
                .withMetadata(Meta.of(fe, Names.slo(fe), "monitoring"))
                .withSpec(SloRuleSource.spec(fe))
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
