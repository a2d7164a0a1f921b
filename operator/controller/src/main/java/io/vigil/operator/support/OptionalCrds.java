package io.vigil.operator.support;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.jboss.logging.Logger;

/**
 * Whether the CRDs of optional collaborators (KEDA, prometheus-operator, Strimzi, redis-operator, cert-manager) are
 * installed. Answers are cached for {@link #TTL}, so a missing CRD costs one GET per TTL, never a retry
 * storm, and an installed one is noticed within it.
 */
public final class OptionalCrds {

    public static final Duration TTL = Duration.ofSeconds(Long.getLong("vigil.operator.crd-cache-seconds", 30));
    private static final Logger LOG = Logger.getLogger(OptionalCrds.class);

    public enum Crd {
        KEDA_SCALED_OBJECT("scaledobjects.keda.sh", "KEDA"),
        KEDA_TRIGGER_AUTHENTICATION("triggerauthentications.keda.sh", "KEDA"),
        SERVICE_MONITOR("servicemonitors.monitoring.coreos.com", "prometheus-operator"),
        PROMETHEUS_RULE("prometheusrules.monitoring.coreos.com", "prometheus-operator"),
        STRIMZI_KAFKA("kafkas.kafka.strimzi.io", "Strimzi"),
        STRIMZI_NODE_POOL("kafkanodepools.kafka.strimzi.io", "Strimzi"),
        STRIMZI_TOPIC("kafkatopics.kafka.strimzi.io", "Strimzi"),
        REDIS("redis.redis.redis.opstreelabs.in", "redis-operator"),
        REDIS_REPLICATION("redisreplications.redis.redis.opstreelabs.in", "redis-operator"),
        REDIS_SENTINEL("redissentinels.redis.redis.opstreelabs.in", "redis-operator"),
        CERT_MANAGER_CERTIFICATE("certificates.cert-manager.io", "cert-manager");

        public final String crdName;
        public final String provider;

        Crd(String crdName, String provider) {
            this.crdName = crdName;
            this.provider = provider;
        }
    }

    private record Answer(boolean present, long checkedAtNanos) {
    }

    private static final Map<Crd, Answer> CACHE = new ConcurrentHashMap<>();

    private OptionalCrds() {
    }

    public static boolean present(KubernetesClient client, Crd crd) {
        long now = System.nanoTime();
        Answer a = CACHE.get(crd);
        if (a != null && now - a.checkedAtNanos < TTL.toNanos()) {
            return a.present;
        }
        boolean present;
        try {
            present = client.apiextensions().v1().customResourceDefinitions().withName(crd.crdName).get() != null;
        } catch (KubernetesClientException e) {
            // Cannot tell (e.g. RBAC): treat as absent; the condition message says so.
            LOG.warnf("cannot read CRD %s (%s): treating it as not installed", crd.crdName, e.getMessage());
            present = false;
        }
        if (a == null || a.present != present) {
            LOG.infof("CRD %s (%s) is %s", crd.crdName, crd.provider, present ? "installed" : "not installed");
        }
        CACHE.put(crd, new Answer(present, now));
        return present;
    }

    /** Forget every answer (tests install and remove CRDs). */
    public static void forget() {
        CACHE.clear();
    }
}
