package io.vigil.operator.loadtest;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import java.util.List;

/**
 * What one generation of a FraudLoadTest wants in the cluster: the script ConfigMap and the TestRun,
 * or the problems that prevent them (then both are null).
 */
public record LoadTestPlan(String testRunName, ConfigMap scripts, GenericKubernetesResource testRun, List<String> problems) {

    public boolean runnable() {
        return problems.isEmpty();
    }
}
