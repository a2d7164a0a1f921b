package io.vigil.operator.engine.desired;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.EnvVarBuilder;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.KeyToPathBuilder;
import io.fabric8.kubernetes.api.model.Probe;
import io.fabric8.kubernetes.api.model.ProbeBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceRequirements;
import io.fabric8.kubernetes.api.model.ResourceRequirementsBuilder;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceAccount;
import io.fabric8.kubernetes.api.model.ServiceAccountBuilder;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.api.model.Toleration;
import io.fabric8.kubernetes.api.model.VolumeProjection;
import io.fabric8.kubernetes.api.model.VolumeProjectionBuilder;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscalerBuilder;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudgetBuilder;
import io.vigil.operator.api.v1alpha1.DurabilitySpec;
import io.vigil.operator.api.v1alpha1.Durations;
import io.vigil.operator.api.v1alpha1.EngineSpec;
import io.vigil.operator.api.v1alpha1.FraudEngine;
import io.vigil.operator.api.v1alpha1.VelocitySpec;
import io.vigil.operator.engine.EnginePlan;
import io.vigil.operator.engine.Names;
import io.vigil.operator.support.Hashing;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** Desired state of the engine tier: ruleset ConfigMaps, Deployment, Services, PDB, NetworkPolicy, ServiceAccount, HPA. */
public final class EngineWorkload {

    public static final int DATA_PORT = 8081;
    public static final int MANAGEMENT_PORT = 9081;
    public static final String RULESETS_DIR = "/etc/vigil/rulesets";
    static final String RULESET_FILE_KEY = "ruleset.json";
    static final String ACTIVE_FILE_KEY = "active";

    private EngineWorkload() {
    }

    /**
     * One immutable ConfigMap per served ruleset version, named by content hash: a new version or an edited
     * document is a new ConfigMap, so running pods never see their files change under them and the pod
     * template (which lists the ConfigMaps) changes, which rolls the Deployment.
     */
    public static Map<String, ConfigMap> rulesetConfigMaps(EnginePlan plan) {
        FraudEngine fe = plan.engine();
        Map<String, ConfigMap> out = new LinkedHashMap<>();
        for (EnginePlan.PlannedRuleset r : plan.rulesets()) {
            var meta = Meta.of(fe, r.configMapName(), Names.RULESET);
            meta.getLabels().put(Names.LABEL_RULESET_KEY, r.key());
            meta.getLabels().put(Names.LABEL_RULESET_VERSION, String.valueOf(r.version()));
            meta.setAnnotations(new LinkedHashMap<>(Map.of("vigil.io/ruleset-checksum", r.checksum())));
            out.put(r.configMapName(), new ConfigMapBuilder()
                    .withMetadata(meta)
                    .withImmutable(true)
                    .addToData(RULESET_FILE_KEY, r.content())
                    .addToData(ACTIVE_FILE_KEY, r.version() + "\n")
                    .build());
        }
        return out;
    }

    public static ServiceAccount serviceAccount(FraudEngine fe) {
        return new ServiceAccountBuilder()
                .withMetadata(Meta.of(fe, Names.engine(fe), Names.ENGINE))
                .withAutomountServiceAccountToken(false)
                .build();
    }

    /** Environment of the engine container: every setting of the spec, mapped to the engine's config keys. */
    static List<EnvVar> engineEnv(FraudEngine fe) {
        EngineSpec e = fe.getSpec().engine;
        VelocitySpec.Pool pool = fe.getSpec().velocity.pool;
        DurabilitySpec d = fe.getSpec().durability;
        RedisConnection redis = RedisConnection.of(fe);
        List<EnvVar> env = new ArrayList<>();
        add(env, "VIGIL_RULESETS_DIR", RULESETS_DIR);
        add(env, "VIGIL_ENGINE_DEADLINE", Durations.parse(e.deadline).toMillis() + "ms");
        add(env, "VIGIL_ENGINE_MAX_IN_FLIGHT", e.loadShedLimit);
        add(env, "VIGIL_ENGINE_VELOCITY_FAILURE_POLICY", e.velocityFailurePolicy.name().toLowerCase(Locale.ROOT));
        redisClient(env, "QUARKUS_REDIS_", redis);
        add(env, "QUARKUS_REDIS_MAX_POOL_SIZE", pool.maxConnections);
        add(env, "QUARKUS_REDIS_MAX_POOL_WAITING", pool.maxPoolWaiting);
        add(env, "QUARKUS_REDIS_MAX_WAITING_HANDLERS", pool.maxWaitingHandlers);
        add(env, "VIGIL_VELOCITY_TIMEOUT", pool.timeout);
        add(env, "VIGIL_VELOCITY_IDEMPOTENCY_WINDOW", fe.getSpec().velocity.idempotencyWindow);
        redisClient(env, "QUARKUS_REDIS_OUTBOX_", redis);
        add(env, "VIGIL_OUTBOX_QUEUE_CAPACITY", d.queueCapacity);
        add(env, "VIGIL_OUTBOX_STREAM", d.stream.name);
        add(env, "VIGIL_OUTBOX_STREAMS", d.stream.shards);
        add(env, "VIGIL_OUTBOX_MAX_LENGTH", d.stream.maxLength);
        EngineCallerAuth.env(fe, env);
        add(env, "JAVA_TOOL_OPTIONS", e.jvmOptions + EngineCallerAuth.systemProperties(fe));
        return env;
    }

    /** One Quarkus Redis client's settings (the default client for velocity, the "outbox" one for the stream). */
    static void redisClient(List<EnvVar> env, String prefix, RedisConnection redis) {
        add(env, prefix + "HOSTS", redis.uri());
        add(env, prefix + "CLIENT_TYPE", redis.sentinel() ? "sentinel" : "standalone");
        if (redis.sentinel()) {
            add(env, prefix + "MASTER_NAME", redis.masterName());
            add(env, prefix + "ROLE", "master");
        }
        if (redis.password() != null) {
            env.add(new EnvVarBuilder().withName(prefix + "PASSWORD").withNewValueFrom().withNewSecretKeyRef()
                    .withName(redis.password().name).withKey(redis.password().key).endSecretKeyRef().endValueFrom().build());
        }
    }

    static void add(List<EnvVar> env, String name, Object value) {
        env.add(new EnvVar(name, String.valueOf(value), null));
    }

    /**
     * Hash of everything that should roll the pods: the configuration and the content of every ruleset.
     * It goes into the pod template, so any change is a rolling update (maxUnavailable 0: no capacity dip).
     */
    public static String configHash(EnginePlan plan) {
        StringBuilder sb = new StringBuilder();
        FraudEngine fe = plan.engine();
        sb.append(OperatorImages.engine(fe)).append('\n');
        for (EnvVar v : engineEnv(fe)) {
            sb.append(v.getName()).append('=').append(v.getValue() != null ? v.getValue()
                    : v.getValueFrom().getSecretKeyRef().getName() + "/" + v.getValueFrom().getSecretKeyRef().getKey()).append('\n');
        }
        plan.rulesets().forEach(r -> sb.append(r.key()).append(':').append(r.version()).append(':').append(r.contentHash()).append('\n'));
        return Hashing.sha256(sb.toString()).substring(0, 16);
    }

    public static Deployment deployment(EnginePlan plan) {
        FraudEngine fe = plan.engine();
        EngineSpec e = fe.getSpec().engine;
        // Nothing valid to serve: no pods (an engine without rules only fails its readiness). Zero also
        // holds an HPA off (it does not scale a Deployment at 0 replicas).
        Integer replicas = plan.rulesets().isEmpty() ? Integer.valueOf(0)
                : e.autoscaling != null ? null : (e.replicas != null ? e.replicas : EngineSpec.DEFAULT_REPLICAS);
        Map<String, String> podLabels = Names.labels(fe, Names.ENGINE);

        List<VolumeProjection> sources = new ArrayList<>();
        for (EnginePlan.PlannedRuleset r : plan.rulesets()) {
            sources.add(new VolumeProjectionBuilder().withNewConfigMap()
                    .withName(r.configMapName())
                    .withItems(new KeyToPathBuilder().withKey(RULESET_FILE_KEY).withPath(r.key() + "/v" + r.version() + "/" + RULESET_FILE_KEY).build(),
                            new KeyToPathBuilder().withKey(ACTIVE_FILE_KEY).withPath(r.key() + "/active").build())
                    .endConfigMap().build());
        }

        String managementScheme = EngineCallerAuth.managementTls(fe) ? "HTTPS" : null;
        Container engine = new ContainerBuilder()
                .withName("engine")
                .withImage(OperatorImages.engine(fe))
                .withImagePullPolicy(e.imagePullPolicy)
                .addNewPort().withName("data").withContainerPort(DATA_PORT).withProtocol("TCP").endPort()
                .addNewPort().withName("management").withContainerPort(MANAGEMENT_PORT).withProtocol("TCP").endPort()
                .withEnv(engineEnv(fe))
                .withResources(e.resources != null ? e.resources : defaultResources("500m", "512Mi", "1Gi"))
                .withStartupProbe(probe("/q/health/started", 1, 60, managementScheme))
                .withLivenessProbe(probe("/q/health/live", 10, 3, managementScheme))
                .withReadinessProbe(probe("/q/health/ready", 5, 2, managementScheme))
                .withSecurityContext(Security.container())
                // A container that exits without writing /dev/termination-log leaves the end of its log as
                // the termination message, which the FraudEngine status shows for a crash loop.
                .withTerminationMessagePolicy("FallbackToLogsOnError")
                .addNewVolumeMount().withName("rulesets").withMountPath(RULESETS_DIR).withReadOnly(true).endVolumeMount()
                .addNewVolumeMount().withName("tmp").withMountPath("/tmp").endVolumeMount()
                .addAllToVolumeMounts(EngineCallerAuth.mounts(fe))
                .build();

        return new DeploymentBuilder()
                .withMetadata(Meta.of(fe, Names.engine(fe), Names.ENGINE))
                .withNewSpec()
                .withReplicas(replicas)
                .withNewSelector().withMatchLabels(Names.selector(fe, Names.ENGINE)).endSelector()
                .withNewStrategy().withType("RollingUpdate").withNewRollingUpdate()
                .withMaxUnavailable(new IntOrString(0)).withMaxSurge(new IntOrString(1)).endRollingUpdate().endStrategy()
                .withMinReadySeconds(5)
                .withRevisionHistoryLimit(5)
                .withNewTemplate()
                .withNewMetadata().withLabels(podLabels)
                .addToAnnotations(Names.CONFIG_HASH_ANNOTATION, configHash(plan))
                .endMetadata()
                .withNewSpec()
                .withServiceAccountName(Names.engine(fe))
                .withAutomountServiceAccountToken(false)
                .withSecurityContext(Security.pod())
                .withTerminationGracePeriodSeconds(30L)
                .withNodeSelector(nodeSelector(fe))
                .withTolerations(tolerations(fe))
                .addNewTopologySpreadConstraint().withMaxSkew(1).withTopologyKey("kubernetes.io/hostname")
                .withWhenUnsatisfiable("ScheduleAnyway").withNewLabelSelector().withMatchLabels(Names.selector(fe, Names.ENGINE))
                .endLabelSelector().endTopologySpreadConstraint()
                .withContainers(engine)
                .addNewVolume().withName("rulesets").withNewProjected().withDefaultMode(0444).withSources(sources).endProjected().endVolume()
                .addNewVolume().withName("tmp").withNewEmptyDir().withSizeLimit(new Quantity("64Mi")).endEmptyDir().endVolume()
                .addAllToVolumes(EngineCallerAuth.volumes(fe))
                .endSpec()
                .endTemplate()
                .endSpec()
                .build();
    }

    /** spec.scheduling.nodeSelector, or none (null keeps the field out of the rendered pod template). */
    static Map<String, String> nodeSelector(FraudEngine fe) {
        var s = fe.getSpec().scheduling;
        return s == null || s.nodeSelector == null || s.nodeSelector.isEmpty() ? null : new LinkedHashMap<>(s.nodeSelector);
    }

    static List<Toleration> tolerations(FraudEngine fe) {
        var s = fe.getSpec().scheduling;
        return s == null || s.tolerations == null || s.tolerations.isEmpty() ? null : new ArrayList<>(s.tolerations);
    }

    /** @param scheme null (HTTP), or HTTPS when the management port serves TLS (the kubelet does not verify the certificate) */
    static Probe probe(String path, int periodSeconds, int failureThreshold, String scheme) {
        return new ProbeBuilder().withNewHttpGet().withPath(path).withPort(new IntOrString("management")).withScheme(scheme).endHttpGet()
                .withPeriodSeconds(periodSeconds).withFailureThreshold(failureThreshold).withTimeoutSeconds(2).build();
    }

    static ResourceRequirements defaultResources(String cpu, String memRequest, String memLimit) {
        return new ResourceRequirementsBuilder()
                .addToRequests("cpu", new Quantity(cpu)).addToRequests("memory", new Quantity(memRequest))
                .addToLimits("memory", new Quantity(memLimit))
                .build();
    }

    /** What callers use: the data port only. */
    public static Service dataService(FraudEngine fe) {
        return new ServiceBuilder()
                .withMetadata(Meta.of(fe, Names.engine(fe), Names.ENGINE))
                .withNewSpec()
                .withType("ClusterIP")
                .withSelector(Names.selector(fe, Names.ENGINE))
                .addNewPort().withName("http").withPort(DATA_PORT).withTargetPort(new IntOrString("data")).withProtocol("TCP").endPort()
                .endSpec()
                .build();
    }

    /** Health, metrics and the ruleset API; separate so the callers' Service never exposes it. */
    public static Service managementService(FraudEngine fe) {
        var meta = Meta.of(fe, Names.engineManagement(fe), Names.ENGINE);
        meta.getLabels().put(Monitoring.METRICS_LABEL, "true");
        return new ServiceBuilder()
                .withMetadata(meta)
                .withNewSpec()
                .withType("ClusterIP")
                .withSelector(Names.selector(fe, Names.ENGINE))
                .addNewPort().withName("management").withPort(MANAGEMENT_PORT).withTargetPort(new IntOrString("management")).withProtocol("TCP").endPort()
                .endSpec()
                .build();
    }

    /** One pod at a time may be evicted voluntarily; with maxUnavailable 0 on rollouts, capacity stays at spec. */
    public static PodDisruptionBudget podDisruptionBudget(FraudEngine fe) {
        return new PodDisruptionBudgetBuilder()
                .withMetadata(Meta.of(fe, Names.engine(fe), Names.ENGINE))
                .withNewSpec()
                .withMaxUnavailable(new IntOrString(1))
                .withNewSelector().withMatchLabels(Names.selector(fe, Names.ENGINE)).endSelector()
                .endSpec()
                .build();
    }


    /** Only when spec.engine.autoscaling is set; the Deployment then leaves spec.replicas to this HPA. */
    public static HorizontalPodAutoscaler horizontalPodAutoscaler(FraudEngine fe) {
        EngineSpec.Autoscaling a = fe.getSpec().engine.autoscaling != null ? fe.getSpec().engine.autoscaling : new EngineSpec.Autoscaling();
        return new HorizontalPodAutoscalerBuilder()
                .withMetadata(Meta.of(fe, Names.engine(fe), Names.ENGINE))
                .withNewSpec()
                .withNewScaleTargetRef().withApiVersion("apps/v1").withKind("Deployment").withName(Names.engine(fe)).endScaleTargetRef()
                .withMinReplicas(a.minReplicas)
                .withMaxReplicas(a.maxReplicas)
                .addNewMetric().withType("Resource").withNewResource().withName("cpu").withNewTarget()
                .withType("Utilization").withAverageUtilization(a.targetCpuUtilization).endTarget().endResource().endMetric()
                .endSpec()
                .build();
    }
}
