package io.vigil.operator.loadtest;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceRequirements;
import io.fabric8.kubernetes.api.model.ResourceRequirementsBuilder;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.vigil.operator.api.v1alpha1.Durations;
import io.vigil.operator.api.v1alpha1.FraudEngine;
import io.vigil.operator.api.v1alpha1.FraudLoadTest;
import io.vigil.operator.api.v1alpha1.FraudLoadTestSpec;
import io.vigil.operator.api.v1alpha1.Groups;
import io.vigil.operator.api.v1alpha1.SecretKeyRef;
import io.vigil.operator.api.v1alpha1.SloSpec;
import io.vigil.operator.engine.Names;
import io.vigil.operator.engine.desired.EngineWorkload;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Desired state of a FraudLoadTest as pure functions of the spec and its target FraudEngine: the
 * script ConfigMap (the bundled loadtests/k6 sources, unchanged) and a k6-operator TestRun whose runner
 * env carries the scenario settings and the thresholds (FraudLoadTest thresholds, else the target's SLO).
 *
 * <p>Each generation gets its own TestRun name ({@code <name>-g<generation>}): a finished TestRun
 * cannot be started again, so a spec change (or {@code spec.rerun}) is a new object and the old one
 * is deleted by the reconciler.
 */
public final class LoadTestPlanner {

    public static final String K6_GROUP = "k6.io";
    public static final String K6_VERSION = "v1alpha1";
    public static final String TEST_RUN_KIND = "TestRun";
    public static final String TEST_RUN_CRD = "testruns." + K6_GROUP;
    public static final ResourceDefinitionContext TEST_RUNS = new ResourceDefinitionContext.Builder()
            .withGroup(K6_GROUP).withVersion(K6_VERSION).withKind(TEST_RUN_KIND).withPlural("testruns").withNamespaced(true)
            .build();

    /** The k6 release of environments/local/bin/versions.sh (K6_VERSION); a test keeps them equal. */
    public static final String K6_RELEASE = "1.8.1";
    public static final String DEFAULT_IMAGE = "grafana/k6:" + K6_RELEASE;
    /** The grafana/k6 image's user; explicit so runAsNonRoot can be verified by the kubelet. */
    public static final long K6_UID = 12345L;

    public static final String COMPONENT = "loadtest";
    public static final String LABEL_LOAD_TEST = "vigil.io/fraudloadtest";
    public static final String LABEL_GENERATION = "vigil.io/run-generation";
    /** Where k6 (handleSummary) writes the failed thresholds for the reconciler to read. */
    public static final String TERMINATION_LOG = "/dev/termination-log";
    /** Where the runners find the caller tokens of spec.runner.tokensSecretRef. */
    public static final String TOKENS_DIR = "/var/run/vigil/loadtest-tokens";
    static final String TOKENS_VOLUME = "caller-tokens";
    static final String TOKENS_FILE_NAME = "tokens";
    /** Where the runners find the client certificate, key and trusted CA of spec.runner.clientCertificate. */
    public static final String CLIENT_CERTIFICATE_DIR = "/var/run/vigil/loadtest-client-certificate";
    static final String CLIENT_CERTIFICATE_VOLUME = "client-certificate";
    /** k6-operator job names add up to "-initializer" (12 characters) and must stay DNS labels. */
    static final int MAX_TEST_RUN_NAME = 45;

    private LoadTestPlanner() {
    }

    public static LoadTestPlan plan(FraudLoadTest flt, FraudEngine target) {
        List<String> problems = new ArrayList<>();
        FraudLoadTestSpec spec = flt.getSpec();
        String trName = testRunName(flt);
        if (spec == null || spec.target == null || spec.target.fraudEngine == null) {
            problems.add("spec.target.fraudEngine: required");
        } else if (target == null) {
            problems.add("spec.target.fraudEngine: FraudEngine \"" + spec.target.fraudEngine + "\" not found in namespace "
                    + flt.getMetadata().getNamespace());
        }
        Scenario scenario = null;
        try {
            scenario = Scenario.of(spec == null ? null : spec.scenario);
        } catch (IllegalArgumentException e) {
            problems.add(e.getMessage());
        }
        if (spec != null && spec.duration != null) {
            try {
                Durations.parse(spec.duration);
            } catch (IllegalArgumentException e) {
                problems.add("spec.duration: " + e.getMessage());
            }
        }
        List<String> credentials = spec != null && target != null ? callerProblems(spec, target) : List.of();
        if (!problems.isEmpty() || !credentials.isEmpty()) {
            problems.addAll(credentials);
            return new LoadTestPlan(trName, null, null, List.copyOf(problems), problems.size() == credentials.size());
        }
        return new LoadTestPlan(trName, scripts(flt), testRun(flt, target, scenario, trName), List.of());
    }

    /**
     * What the target's caller authentication (ADR 0013) asks of the runners and the spec does not give: a
     * bearer token when its data port wants a JWT, a client certificate when it wants mutual TLS. Refused up
     * front, so a run is not 100 % refusals.
     */
    static List<String> callerProblems(FraudLoadTestSpec spec, FraudEngine target) {
        List<String> problems = new ArrayList<>();
        var auth = target.getSpec() == null || target.getSpec().auth == null ? null : target.getSpec().auth.data;
        if (auth == null) {
            return problems;
        }
        String engine = target.getMetadata().getName();
        if (auth.jwt && (spec.runner == null || spec.runner.tokensSecretRef == null)) {
            problems.add("spec.runner.tokensSecretRef: required: FraudEngine \"" + engine
                    + "\" wants a bearer JWT on its data port (spec.auth.data.jwt); name a Secret key holding tokens, one a line");
        }
        if (auth.mutualTls && (spec.runner == null || spec.runner.clientCertificate == null)) {
            problems.add("spec.runner.clientCertificate: required: FraudEngine \"" + engine
                    + "\" wants mutual TLS on its data port (spec.auth.data.mutualTls); name a kubernetes.io/tls Secret (tls.crt,"
                    + " tls.key, and ca.crt: the CA of the engine's certificate) issued by a CA the engine trusts");
        }
        return problems;
    }

    public static String scriptsName(FraudLoadTest flt) {
        return flt.getMetadata().getName() + "-k6-scripts";
    }

    /** {@code <name>-g<generation>}, shortened (with a hash of the full name) when it would be too long. */
    public static String testRunName(FraudLoadTest flt) {
        String suffix = "-g" + generation(flt);
        String name = flt.getMetadata().getName();
        if (name.length() + suffix.length() <= MAX_TEST_RUN_NAME) {
            return name + suffix;
        }
        String hash = sha256(name).substring(0, 6);
        String head = name.substring(0, MAX_TEST_RUN_NAME - suffix.length() - hash.length() - 1).replaceAll("-+$", "");
        return head + "-" + hash + suffix;
    }

    static long generation(FraudLoadTest flt) {
        Long g = flt.getMetadata().getGeneration();
        return g == null ? 1L : g;
    }

    public static Map<String, String> labels(FraudLoadTest flt) {
        Map<String, String> l = new LinkedHashMap<>();
        l.put(Names.LABEL_NAME, "vigil-" + COMPONENT);
        l.put(Names.LABEL_INSTANCE, flt.getMetadata().getName());
        l.put(Names.LABEL_COMPONENT, COMPONENT);
        l.put(Names.LABEL_PART_OF, "vigil");
        l.put(Names.LABEL_MANAGED_BY, Names.MANAGED_BY);
        l.put(LABEL_LOAD_TEST, flt.getMetadata().getName());
        return l;
    }

    static ConfigMap scripts(FraudLoadTest flt) {
        return new ConfigMapBuilder()
                .withMetadata(meta(flt, scriptsName(flt), labels(flt)))
                .withData(new LinkedHashMap<>(LoadTestScripts.all()))
                .build();
    }

    static GenericKubernetesResource testRun(FraudLoadTest flt, FraudEngine target, Scenario scenario, String name) {
        FraudLoadTestSpec spec = flt.getSpec();
        Map<String, String> labels = labels(flt);
        labels.put(LABEL_GENERATION, Long.toString(generation(flt)));

        Map<String, Object> runner = new LinkedHashMap<>();
        runner.put("image", spec.runner != null && spec.runner.image != null ? spec.runner.image : DEFAULT_IMAGE);
        runner.put("metadata", Map.of("labels", labels));
        runner.put("env", env(flt, target, scenario));
        runner.put("resources", resources(spec));
        runner.put("securityContext", ordered("runAsNonRoot", true, "runAsUser", K6_UID,
                "seccompProfile", Map.of("type", "RuntimeDefault")));
        runner.put("containerSecurityContext", ordered("allowPrivilegeEscalation", false,
                "capabilities", Map.of("drop", List.of("ALL"))));
        var scheduling = spec.runner == null ? null : spec.runner.scheduling;
        if (scheduling != null && scheduling.nodeSelector != null && !scheduling.nodeSelector.isEmpty()) {
            runner.put("nodeSelector", new LinkedHashMap<>(scheduling.nodeSelector));
        }
        if (scheduling != null && scheduling.tolerations != null && !scheduling.tolerations.isEmpty()) {
            runner.put("tolerations", List.copyOf(scheduling.tolerations));
        }
        SecretKeyRef tokens = spec.runner == null ? null : spec.runner.tokensSecretRef;
        if (tokens != null) {
            // The Secret's one key as a file: the scripts read TOKENS_FILE once per VU (loadtests/k6/vigil.js).
            runner.put("volumes", List.of(ordered("name", TOKENS_VOLUME, "secret", ordered("secretName", tokens.name,
                    "items", List.of(ordered("key", tokens.key, "path", TOKENS_FILE_NAME))))));
            runner.put("volumeMounts", List.of(ordered("name", TOKENS_VOLUME, "mountPath", TOKENS_DIR, "readOnly", true)));
        }
        FraudLoadTestSpec.ClientCertificate certificate = mutualTls(flt, target);
        if (certificate != null) {
            // The Secret's certificate, key and CA as files: the scripts read them at init (loadtests/k6/vigil.js).
            List<Object> volumes = new ArrayList<>((List<?>) runner.getOrDefault("volumes", List.of()));
            volumes.add(ordered("name", CLIENT_CERTIFICATE_VOLUME, "secret", ordered("secretName", certificate.secretName,
                    "items", List.of(ordered("key", "tls.crt", "path", "tls.crt"), ordered("key", "tls.key", "path", "tls.key"),
                            ordered("key", certificate.serverCaKey == null ? "ca.crt" : certificate.serverCaKey, "path", "ca.crt")))));
            List<Object> mounts = new ArrayList<>((List<?>) runner.getOrDefault("volumeMounts", List.of()));
            mounts.add(ordered("name", CLIENT_CERTIFICATE_VOLUME, "mountPath", CLIENT_CERTIFICATE_DIR, "readOnly", true));
            runner.put("volumes", volumes);
            runner.put("volumeMounts", mounts);
        }

        Map<String, Object> specMap = new LinkedHashMap<>();
        specMap.put("parallelism", spec.parallelism == null ? 1 : spec.parallelism);
        specMap.put("script", Map.of("configMap", ordered("name", scriptsName(flt), "file", scenario.script)));
        // No cleanup: the verdict is read from the runner Jobs, which cleanup would delete.
        specMap.put("arguments", "--tag testid=" + name);
        specMap.put("runner", runner);

        GenericKubernetesResource tr = new GenericKubernetesResource();
        tr.setApiVersion(K6_GROUP + "/" + K6_VERSION);
        tr.setKind(TEST_RUN_KIND);
        tr.setMetadata(meta(flt, name, labels));
        tr.setAdditionalProperty("spec", specMap);
        return tr;
    }

    /** Runner env: what loadtests/k6 reads from __ENV (see slo.js and each scenario's header). */
    static List<Map<String, Object>> env(FraudLoadTest flt, FraudEngine target, Scenario scenario) {
        FraudLoadTestSpec spec = flt.getSpec();
        Map<String, String> env = new LinkedHashMap<>();
        String ns = target.getMetadata().getNamespace() != null ? target.getMetadata().getNamespace() : flt.getMetadata().getNamespace();
        // with mutual TLS the data port serves HTTPS only, under the Service's name (its certificate names it)
        FraudLoadTestSpec.ClientCertificate certificate = mutualTls(flt, target);
        env.put("BASE_URL", (certificate != null ? "https://" : "http://") + Names.engine(target) + "." + ns + ".svc:" + EngineWorkload.DATA_PORT);
        String path = spec.target.path == null ? "/v1/evaluate/auth" : spec.target.path;
        if (scenario != Scenario.MIXED) {
            env.put("TARGET", path.endsWith("/monitoring") ? "monitoring" : "auth");
        }
        long rate = spec.rate == null ? 1000 : spec.rate;
        long seconds = Durations.parse(spec.duration == null ? "5m" : spec.duration).toSeconds();
        switch (scenario) {
            case CONSTANT_ARRIVAL_RATE, SOAK, MIXED -> {
                env.put("RATE", Long.toString(rate));
                env.put("DURATION", seconds + "s");
            }
            case RAMP -> {
                env.put("RATE", Long.toString(rate));
                env.put("DURATION", seconds + "s");
                // Every step of an in-cluster ramp is held: the peak is what the user asked for.
                env.put("SLO_MAX_RATE", Long.toString(rate));
            }
            case SPIKE -> {
                long spike = Math.max(5, seconds / 5);
                env.put("RATE", Long.toString(rate));
                env.put("SPIKE_DURATION", spike + "s");
                env.put("BASE_DURATION", Math.max(5, (seconds - spike) / 2) + "s");
            }
            case SMOKE -> env.put("ITERATIONS", Long.toString(Math.min(rate, 200)));
        }
        SloSpec slo = target.getSpec() != null && target.getSpec().slo != null ? target.getSpec().slo : new SloSpec();
        FraudLoadTestSpec.Thresholds t = spec.thresholds != null ? spec.thresholds : new FraudLoadTestSpec.Thresholds();
        env.put("P50_MS", number(t.p50Ms != null ? t.p50Ms : slo.p50Ms));
        env.put("P95_MS", number(t.p95Ms != null ? t.p95Ms : slo.p95Ms));
        env.put("P99_MS", number(t.p99Ms != null ? t.p99Ms : slo.p99Ms));
        env.put("ERROR_RATE", number(t.errorRate != null ? t.errorRate
                : BigDecimal.valueOf(100).subtract(BigDecimal.valueOf(slo.availability)).movePointLeft(2).doubleValue()));
        if (spec.runner != null && spec.runner.tokensSecretRef != null) {
            env.put("TOKENS_FILE", TOKENS_DIR + "/" + TOKENS_FILE_NAME);
        }
        if (certificate != null) {
            env.put("CLIENT_CERT", CLIENT_CERTIFICATE_DIR + "/tls.crt");
            env.put("CLIENT_KEY", CLIENT_CERTIFICATE_DIR + "/tls.key");
            // k6 (Go) takes its trusted CAs from SSL_CERT_FILE: the engine's CA alone, no skipped verification
            env.put("SSL_CERT_FILE", CLIENT_CERTIFICATE_DIR + "/ca.crt");
        }
        env.put("TERMINATION_LOG", TERMINATION_LOG);
        env.put("TXN_PREFIX", flt.getMetadata().getName() + "-g" + generation(flt));
        env.put("RUN_LABEL", flt.getMetadata().getNamespace() + "/" + flt.getMetadata().getName() + " generation " + generation(flt));
        List<Map<String, Object>> list = new ArrayList<>();
        env.forEach((k, v) -> {
            Map<String, Object> e = new LinkedHashMap<>();
            e.put("name", k);
            e.put("value", v);
            list.add(e);
        });
        return list;
    }

    /** The runners' client certificate when the target wants mutual TLS on its data port, else null (plain HTTP). */
    private static FraudLoadTestSpec.ClientCertificate mutualTls(FraudLoadTest flt, FraudEngine target) {
        var runner = flt.getSpec().runner;
        boolean wanted = target.getSpec() != null && target.getSpec().auth != null && target.getSpec().auth.data.mutualTls;
        return wanted && runner != null ? runner.clientCertificate : null;
    }

    /** A map in the order given (Map.of's order changes between JVM runs: golden files must not). */
    private static Map<String, Object> ordered(Object... keysAndValues) {
        Map<String, Object> m = new LinkedHashMap<>();
        for (int i = 0; i < keysAndValues.length; i += 2) {
            m.put((String) keysAndValues[i], keysAndValues[i + 1]);
        }
        return m;
    }

    static ResourceRequirements resources(FraudLoadTestSpec spec) {
        if (spec.runner != null && spec.runner.resources != null) {
            return spec.runner.resources;
        }
        return new ResourceRequirementsBuilder()
                .addToRequests("cpu", new Quantity("1")).addToRequests("memory", new Quantity("512Mi"))
                .addToLimits("memory", new Quantity("1Gi"))
                .build();
    }

    private static String number(double d) {
        return BigDecimal.valueOf(d).stripTrailingZeros().toPlainString();
    }

    private static ObjectMeta meta(FraudLoadTest flt, String name, Map<String, String> labels) {
        return new ObjectMetaBuilder()
                .withName(name)
                .withNamespace(flt.getMetadata().getNamespace())
                .withLabels(new LinkedHashMap<>(labels))
                .withOwnerReferences(owner(flt))
                .build();
    }

    static OwnerReference owner(FraudLoadTest flt) {
        return new OwnerReferenceBuilder()
                .withApiVersion(Groups.API_VERSION)
                .withKind("FraudLoadTest")
                .withName(flt.getMetadata().getName())
                .withUid(flt.getMetadata().getUid())
                .withController(true)
                .withBlockOwnerDeletion(true)
                .build();
    }

    private static String sha256(String s) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
