package io.vigil.operator.loadtest;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.Duration;

/**
 * Whether the k6-operator's TestRun CRD is installed, cached for {@link #TTL}: a missing CRD costs one
 * GET per TTL (never a retry storm) and an installed one is noticed within it.
 */
final class K6Crd {
    static final Duration TTL = Duration.ofSeconds(30);
    private static volatile boolean present;
    private static volatile long checkedAt = Long.MIN_VALUE;

    private K6Crd() {
    }

    static boolean installed(KubernetesClient client) {
        long now = System.nanoTime();
        if (checkedAt != Long.MIN_VALUE && now - checkedAt < TTL.toNanos()) {
            return present;
        }
        boolean p;
        try {
            p = client.apiextensions().v1().customResourceDefinitions().withName(LoadTestPlanner.TEST_RUN_CRD).get() != null;
        } catch (KubernetesClientException e) {
            p = false; // cannot tell (e.g. RBAC): the condition message says the CRD is missing
        }
        present = p;
        checkedAt = now;
        return p;
    }

    /** Tests install and remove CRDs. */
    static void forget() {
        checkedAt = Long.MIN_VALUE;
    }
}
