package io.vigil.operator.loadtest;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import java.util.List;

/**
 * What one generation of a FraudLoadTest wants in the cluster: the script ConfigMap and the TestRun,
 * or the problems that prevent them (then both are null).
 *
 * @param credentialsMissing true when every problem is a caller credential the target engine wants and
 *                           the spec does not give (a status reason of its own: the spec is otherwise fine)
 */
public record LoadTestPlan(String testRunName, ConfigMap scripts, GenericKubernetesResource testRun, List<String> problems,
                           boolean credentialsMissing) {

    public LoadTestPlan(String testRunName, ConfigMap scripts, GenericKubernetesResource testRun, List<String> problems) {
        this(testRunName, scripts, testRun, problems, false);
    }

    public boolean runnable() {
        return problems.isEmpty();
    }
}
