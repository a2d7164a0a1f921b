package io.vigil.operator.engine;

import io.vigil.operator.api.v1alpha1.FraudEngine;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/** Names and labels of everything a FraudEngine owns; one place so renderers and status agree. */
public final class Names {
    public static final String MANAGED_BY = "vigil-operator";
    public static final String LABEL_MANAGED_BY = "app.kubernetes.io/managed-by";
    public static final String LABEL_INSTANCE = "app.kubernetes.io/instance";
    public static final String LABEL_COMPONENT = "app.kubernetes.io/component";
    public static final String LABEL_NAME = "app.kubernetes.io/name";
    public static final String LABEL_PART_OF = "app.kubernetes.io/part-of";
    public static final String LABEL_RULESET_KEY = "vigil.io/ruleset-key";
    public static final String LABEL_RULESET_VERSION = "vigil.io/ruleset-version";
    /** Selects only what this operator created, so its informers cache nothing else. */
    public static final String MANAGED_SELECTOR = LABEL_MANAGED_BY + "=" + MANAGED_BY;
    public static final String CONFIG_HASH_ANNOTATION = "vigil.io/config-hash";

    public static final String ENGINE = "engine";
    public static final String RELAY = "relay";
    public static final String RULESET = "ruleset";

    private Names() {
    }

    public static String engine(FraudEngine fe) {
        return fe.getMetadata().getName() + "-engine";
    }

    /** The cert-manager Certificate of the engine's serving certificate (spec.auth.tls.issuerRef). */
    public static String engineCertificate(FraudEngine fe) {
        return fe.getMetadata().getName() + "-engine-tls";
    }

    public static String engineManagement(FraudEngine fe) {
        return fe.getMetadata().getName() + "-engine-management";
    }

    public static String relay(FraudEngine fe) {
        return fe.getMetadata().getName() + "-relay";
    }

    public static String redis(FraudEngine fe) {
        return fe.getMetadata().getName() + "-redis";
    }

    /** The managed Redis's configuration (redis-operator's additionalRedisConfig ConfigMap). */
    public static String redisConfig(FraudEngine fe) {
        return redis(fe) + "-config";
    }

    public static String kafka(FraudEngine fe) {
        return fe.getMetadata().getName() + "-kafka";
    }

    public static String dashboard(FraudEngine fe) {
        return fe.getMetadata().getName() + "-dashboard";
    }

    public static String slo(FraudEngine fe) {
        return fe.getMetadata().getName() + "-slo";
    }

    public static String rulesetConfigMap(FraudEngine fe, String key, int version, String contentHash) {
        return fe.getMetadata().getName() + "-rs-" + key.toLowerCase(Locale.ROOT).replace('_', '-') + "-v" + version + "-"
                + contentHash.substring(0, 10);
    }

    /** Labels on every owned object. */
    public static Map<String, String> labels(FraudEngine fe, String component) {
        Map<String, String> l = new LinkedHashMap<>(selector(fe, component));
        l.put(LABEL_PART_OF, "vigil");
        l.put(LABEL_MANAGED_BY, MANAGED_BY);
        return l;
    }

    /** The stable subset used in selectors (never changes for the life of the FraudEngine). */
    public static Map<String, String> selector(FraudEngine fe, String component) {
        Map<String, String> l = new LinkedHashMap<>();
        l.put(LABEL_NAME, "vigil-" + component);
        l.put(LABEL_INSTANCE, fe.getMetadata().getName());
        l.put(LABEL_COMPONENT, component);
        return l;
    }
}
