package io.vigil.operator.engine;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.javaoperatorsdk.operator.AggregatedOperatorException;
import io.javaoperatorsdk.operator.processing.dependent.workflow.WorkflowReconcileResult;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Metrics;
import jakarta.inject.Inject;
import io.javaoperatorsdk.operator.api.config.informer.InformerEventSourceConfiguration;
import io.quarkiverse.operatorsdk.annotations.RBACRule;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.ControllerConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import io.javaoperatorsdk.operator.api.reconciler.Workflow;
import io.javaoperatorsdk.operator.api.reconciler.dependent.Dependent;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.source.EventSource;
import io.javaoperatorsdk.operator.processing.event.source.informer.InformerEventSource;
import io.strimzi.api.kafka.model.kafka.Kafka;
import io.vigil.operator.api.v1alpha1.FraudEngine;
import io.vigil.operator.api.v1alpha1.FraudEngineStatus;
import io.vigil.operator.api.v1alpha1.FraudRuleset;
import io.vigil.operator.engine.dependent.Conditions;
import io.vigil.operator.engine.dependent.DashboardDependent;
import io.vigil.operator.engine.dependent.EngineAutoscalerDependent;
import io.vigil.operator.engine.dependent.EngineCertificateDependent;
import io.vigil.operator.engine.dependent.EngineDataServiceDependent;
import io.vigil.operator.engine.dependent.EngineDeploymentDependent;
import io.vigil.operator.engine.dependent.EngineManagementServiceDependent;
import io.vigil.operator.engine.dependent.EngineNetworkPolicyDependent;
import io.vigil.operator.engine.dependent.EnginePodDisruptionBudgetDependent;
import io.vigil.operator.engine.dependent.EngineServiceAccountDependent;
import io.vigil.operator.engine.dependent.KafkaDependent;
import io.vigil.operator.engine.dependent.KafkaNodePoolDependent;
import io.vigil.operator.engine.dependent.KafkaTopicDependent;
import io.vigil.operator.engine.dependent.PrometheusRuleDependent;
import io.vigil.operator.engine.dependent.RedisConfigDependent;
import io.vigil.operator.engine.dependent.RedisReplicationDependent;
import io.vigil.operator.engine.dependent.RedisSentinelDependent;
import io.vigil.operator.engine.dependent.RedisStandaloneDependent;
import io.vigil.operator.engine.dependent.RelayDeploymentDependent;
import io.vigil.operator.engine.dependent.RelayManagementServiceDependent;
import io.vigil.operator.engine.dependent.RelayNetworkPolicyDependent;
import io.vigil.operator.engine.dependent.RelayScaledObjectDependent;
import io.vigil.operator.engine.dependent.RelayTriggerAuthenticationDependent;
import io.vigil.operator.engine.dependent.RulesetConfigMapsDependent;
import io.vigil.operator.engine.dependent.ServiceMonitorDependent;
import io.vigil.operator.engine.desired.EngineCallerAuth;
import io.vigil.operator.engine.desired.OwnedObject;
import io.vigil.operator.support.OptionalCrds;
import io.vigil.operator.support.OptionalCrds.Crd;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.jboss.logging.Logger;

/**
 * Reconciles a FraudEngine: every owned object is a dependent resource of its own (server-side apply,
 * owner reference), then the status is aggregated. Optional collaborators whose CRDs are missing are
 * skipped (activation conditions) and reported as conditions; the reconciler then looks again after
 * {@link #RECHECK}, which is the only retry a missing CRD causes.
 *
 * <p>The workflow is invoked explicitly from {@link #reconcile} so that a dependent the API server
 * refuses always reaches the status (Degraded/Ready {@code DependentFailed}), an Event and a metric:
 * with implicit invocation the Quarkus operator SDK 7.2.3 ignores {@code handleExceptionsInReconciler}
 * ({@code QuarkusWorkflowSpec.handleExceptionsInReconciler()} answers false), so the aggregated error
 * was thrown before {@code reconcile()} and the status kept its previous content.
 */
@Workflow(explicitInvocation = true, handleExceptionsInReconciler = true, dependents = {
        @Dependent(name = FraudEngineReconciler.RULESET_CONFIGMAPS, type = RulesetConfigMapsDependent.class),
        @Dependent(name = "engine-serviceaccount", type = EngineServiceAccountDependent.class),
        @Dependent(name = "engine-deployment", type = EngineDeploymentDependent.class,
                dependsOn = {FraudEngineReconciler.RULESET_CONFIGMAPS, "engine-serviceaccount"}),
        @Dependent(name = "engine-service", type = EngineDataServiceDependent.class),
        @Dependent(name = "engine-management-service", type = EngineManagementServiceDependent.class),
        @Dependent(name = "engine-pdb", type = EnginePodDisruptionBudgetDependent.class),
        @Dependent(name = "engine-networkpolicy", type = EngineNetworkPolicyDependent.class),
        @Dependent(name = "engine-hpa", type = EngineAutoscalerDependent.class,
                reconcilePrecondition = Conditions.WantedBySpec.class),
        @Dependent(name = "relay-deployment", type = RelayDeploymentDependent.class, dependsOn = "engine-serviceaccount"),
        @Dependent(name = "relay-management-service", type = RelayManagementServiceDependent.class),
        @Dependent(name = "relay-networkpolicy", type = RelayNetworkPolicyDependent.class),
        @Dependent(name = "relay-scaledobject", type = RelayScaledObjectDependent.class,
                activationCondition = Conditions.CrdInstalled.class),
        @Dependent(name = "relay-triggerauthentication", type = RelayTriggerAuthenticationDependent.class,
                activationCondition = Conditions.CrdInstalled.class,
                reconcilePrecondition = Conditions.WantedBySpec.class),
        @Dependent(name = "redis-config", type = RedisConfigDependent.class,
                reconcilePrecondition = Conditions.WantedBySpec.class),
        @Dependent(name = "redis-standalone", type = RedisStandaloneDependent.class, dependsOn = "redis-config",
                activationCondition = Conditions.CrdInstalled.class,
                reconcilePrecondition = Conditions.WantedBySpec.class),
        @Dependent(name = "redis-replication", type = RedisReplicationDependent.class, dependsOn = "redis-config",
                activationCondition = Conditions.CrdInstalled.class,
                reconcilePrecondition = Conditions.WantedBySpec.class),
        @Dependent(name = "redis-sentinel", type = RedisSentinelDependent.class,
                activationCondition = Conditions.CrdInstalled.class,
                reconcilePrecondition = Conditions.WantedBySpec.class),
        @Dependent(name = "kafka", type = KafkaDependent.class,
                activationCondition = Conditions.CrdInstalled.class,
                reconcilePrecondition = Conditions.WantedBySpec.class),
        @Dependent(name = "kafka-nodepool", type = KafkaNodePoolDependent.class,
                activationCondition = Conditions.CrdInstalled.class,
                reconcilePrecondition = Conditions.WantedBySpec.class),
        @Dependent(name = "kafka-topic", type = KafkaTopicDependent.class,
                activationCondition = Conditions.CrdInstalled.class,
                reconcilePrecondition = Conditions.WantedBySpec.class),
        @Dependent(name = "servicemonitor", type = ServiceMonitorDependent.class,
                activationCondition = Conditions.CrdInstalled.class,
                reconcilePrecondition = Conditions.WantedBySpec.class),
        @Dependent(name = "prometheusrule", type = PrometheusRuleDependent.class,
                activationCondition = Conditions.CrdInstalled.class,
                reconcilePrecondition = Conditions.WantedBySpec.class),
        @Dependent(name = "grafana-dashboard", type = DashboardDependent.class,
                reconcilePrecondition = Conditions.WantedBySpec.class),
        @Dependent(name = "engine-certificate", type = EngineCertificateDependent.class,
                activationCondition = Conditions.CrdInstalled.class,
                reconcilePrecondition = Conditions.WantedBySpec.class),
})
@ControllerConfiguration(name = "fraudengine")
@RBACRule(apiGroups = "vigil.io", resources = "fraudrulesets", verbs = {"get", "list", "watch"})
@RBACRule(apiGroups = "apps", resources = "statefulsets", verbs = {"get", "list", "watch"})
@RBACRule(apiGroups = "", resources = "pods", verbs = {"get", "list", "watch"})
@RBACRule(apiGroups = "", resources = "events", verbs = {"create", "patch"})
@RBACRule(apiGroups = "", resources = "secrets", verbs = {"get", "list", "watch"})
@RBACRule(apiGroups = "apiextensions.k8s.io", resources = "customresourcedefinitions", verbs = "get", resourceNames = {
        "scaledobjects.keda.sh", "triggerauthentications.keda.sh",
        "servicemonitors.monitoring.coreos.com", "prometheusrules.monitoring.coreos.com",
        "kafkas.kafka.strimzi.io", "kafkanodepools.kafka.strimzi.io", "kafkatopics.kafka.strimzi.io",
        "redis.redis.redis.opstreelabs.in", "redisreplications.redis.redis.opstreelabs.in", "redissentinels.redis.redis.opstreelabs.in",
        "certificates.cert-manager.io"})
public class FraudEngineReconciler implements Reconciler<FraudEngine> {

    static final String RULESET_CONFIGMAPS = "ruleset-configmaps";
    static final String REDIS_STATEFULSETS = "redis-statefulsets";
    static final String WORKLOAD_PODS = "workload-pods";
    /** How soon a FraudEngine waiting for an optional CRD (or after a failed dependent) is looked at again. */
    static final Duration RECHECK = Duration.ofSeconds(Long.getLong("vigil.operator.recheck-seconds", 60));
    private static final Logger LOG = Logger.getLogger(FraudEngineReconciler.class);

    private final DependentFailureReporter failureReporter;

    /** Outside Quarkus (tests on the plain java-operator-sdk): metrics go to Micrometer's global registry. */
    public FraudEngineReconciler() {
        this(Metrics.globalRegistry);
    }

    @Inject
    public FraudEngineReconciler(MeterRegistry registry) {
        this.failureReporter = new DependentFailureReporter(registry);
    }

    /**
     * FraudRulesets are watched so a new, fixed or deleted version reconciles the engines that ask for its
     * key; the StatefulSets redis-operator makes for a managed Redis (it copies the CR's labels onto them)
     * so the store's pod readiness reaches VelocityStoreReady; the engine and relay pods so why they do
     * not start (image, crash loop) reaches Ready; the Secrets of the namespace (read only) so a Secret that
     * spec.auth or spec.personalData names, once created or fixed, reconciles the engines that mount it.
     */
    @Override
    public List<EventSource<?, FraudEngine>> prepareEventSources(EventSourceContext<FraudEngine> context) {
        var config = InformerEventSourceConfiguration.from(FraudRuleset.class, FraudEngine.class)
                .withName(Plans.RULESETS_EVENT_SOURCE)
                .withSecondaryToPrimaryMapper(ruleset -> context.getPrimaryCache()
                        .list(ruleset.getMetadata().getNamespace())
                        .filter(fe -> fe.getSpec() != null && fe.getSpec().rulesets.stream()
                                .anyMatch(r -> ruleset.getSpec() != null && r.key.equals(ruleset.getSpec().key)))
                        .map(ResourceID::fromResource)
                        .collect(Collectors.toSet()))
                .build();
        var redisPods = InformerEventSourceConfiguration.from(StatefulSet.class, FraudEngine.class)
                .withName(REDIS_STATEFULSETS)
                .withLabelSelector(Names.MANAGED_SELECTOR + "," + Names.LABEL_COMPONENT + "=redis")
                .withSecondaryToPrimaryMapper(sts -> {
                    String instance = sts.getMetadata().getLabels() == null ? null : sts.getMetadata().getLabels().get(Names.LABEL_INSTANCE);
                    return instance == null ? Set.of() : Set.of(new ResourceID(instance, sts.getMetadata().getNamespace()));
                })
                .build();
        // The engine and relay pods: their container statuses (image pull, crash loop) reach Ready and
        // DurabilityReady, and change when the Deployment's counts do not.
        var workloadPods = InformerEventSourceConfiguration.from(Pod.class, FraudEngine.class)
                .withName(WORKLOAD_PODS)
                .withLabelSelector(Names.MANAGED_SELECTOR + "," + Names.LABEL_COMPONENT + " in (" + Names.ENGINE + "," + Names.RELAY + ")")
                .withSecondaryToPrimaryMapper(pod -> {
                    String instance = pod.getMetadata().getLabels() == null ? null : pod.getMetadata().getLabels().get(Names.LABEL_INSTANCE);
                    return instance == null ? Set.of() : Set.of(new ResourceID(instance, pod.getMetadata().getNamespace()));
                })
                .build();
        var secrets = InformerEventSourceConfiguration.from(Secret.class, FraudEngine.class)
                .withName(Plans.SECRETS_EVENT_SOURCE)
                .withSecondaryToPrimaryMapper(secret -> context.getPrimaryCache()
                        .list(secret.getMetadata().getNamespace())
                        .filter(fe -> fe.getSpec() != null && EngineCallerAuth.secrets(fe).stream()
                                .anyMatch(m -> m.secret().equals(secret.getMetadata().getName())))
                        .map(ResourceID::fromResource)
                        .collect(Collectors.toSet()))
                .build();
        return List.of(new InformerEventSource<>(config, context), new InformerEventSource<>(redisPods, context),
                new InformerEventSource<>(workloadPods, context), new InformerEventSource<>(secrets, context));
    }

    @Override
    public UpdateControl<FraudEngine> reconcile(FraudEngine fe, Context<FraudEngine> context) {
        List<DependentFailure> failures = reconcileDependents(context);
        failureReporter.report(context.getClient(), fe, failures);
        EnginePlan plan = Plans.of(fe, context);
        Set<Crd> missing = missingCrds(fe, context);
        Observed observed = new Observed(
                deployment(context, Names.engine(fe)),
                deployment(context, Names.relay(fe)),
                context.getSecondaryResourcesAsStream(Kafka.class).filter(k -> Names.kafka(fe).equals(k.getMetadata().getName())).findFirst().orElse(null),
                managedRedis(fe, context),
                missing, failures, pods(fe, context, Names.ENGINE), pods(fe, context, Names.RELAY));
        Instant now = Instant.now();
        FraudEngineStatus status = StatusAggregator.aggregate(plan, observed, now);

        FraudEngine patch = new FraudEngine();
        patch.setMetadata(new ObjectMetaBuilder().withName(fe.getMetadata().getName()).withNamespace(fe.getMetadata().getNamespace()).build());
        patch.setStatus(status);
        UpdateControl<FraudEngine> control = UpdateControl.patchStatus(patch);
        // The sooner of two reasons to look again: something missing or failing, a certificate's expiry line.
        Stream.concat(
                        !missing.isEmpty() || !failures.isEmpty() ? Stream.of(RECHECK) : Stream.empty(),
                        SecretChecks.nextExpiryChange(EngineCallerAuth.secrets(fe), Plans.secrets(fe, context), now)
                                .map(crossing -> untilCertificateChange(crossing, now)).stream())
                .min(Comparator.naturalOrder())
                .ifPresent(control::rescheduleAfter);
        return control;
    }

    /** The longest wait for a certificate's expiry line: beyond it the engine is looked at again anyway, then re-planned. */
    static final Duration CERTIFICATE_WAIT_MAX = Duration.ofHours(6);

    /**
     * How long until the reconcile that sees a certificate cross its expiry line (14 days before notAfter, or
     * notAfter itself), so SecretsValid and Degraded change on time rather than at the next unrelated event:
     * one second past the crossing (the checks' verdict changes strictly after it; a certificate's dates have
     * whole seconds), at least one second, at most {@link #CERTIFICATE_WAIT_MAX}.
     */
    static Duration untilCertificateChange(Instant crossing, Instant now) {
        Duration d = Duration.between(now, crossing).plusSeconds(1);
        Duration atLeastOneSecond = d.compareTo(Duration.ofSeconds(1)) < 0 ? Duration.ofSeconds(1) : d;
        return atLeastOneSecond.compareTo(CERTIFICATE_WAIT_MAX) > 0 ? CERTIFICATE_WAIT_MAX : atLeastOneSecond;
    }

    /**
     * Runs the dependents' workflow and returns those that failed. Both shapes of the outcome are
     * handled: the result (plain java-operator-sdk honours handleExceptionsInReconciler) and the
     * aggregated exception (Quarkus operator SDK 7.2.3 does not, see the class comment).
     */
    static List<DependentFailure> reconcileDependents(Context<FraudEngine> context) {
        try {
            WorkflowReconcileResult result = context.managedWorkflowAndDependentResourceContext().reconcileManagedWorkflow();
            Map<String, Exception> errors = new java.util.LinkedHashMap<>();
            result.getErroredDependents().forEach((dependent, e) -> errors.put(dependent.name(), e));
            return DependentFailure.of(errors);
        } catch (AggregatedOperatorException e) {
            return DependentFailure.of(e);
        }
    }

    /** The managed Redis custom resource and the StatefulSets redis-operator created for it. */
    static Observed.ManagedRedis managedRedis(FraudEngine fe, Context<FraudEngine> context) {
        var redis = fe.getSpec().velocity.redis;
        if (redis.hasExternal()) {
            return Observed.ManagedRedis.NONE;
        }
        String name = Names.redis(fe);
        String kind = redis.managedOrDefault().replication() ? "RedisReplication" : "Redis";
        GenericKubernetesResource store = context.getSecondaryResourcesAsStream(GenericKubernetesResource.class)
                .filter(g -> g.getApiVersion() != null && g.getApiVersion().startsWith("redis.redis.opstreelabs.in/")
                        && kind.equals(g.getKind()) && name.equals(g.getMetadata().getName()))
                .findFirst().orElse(null);
        return new Observed.ManagedRedis(store, statefulSet(context, name), statefulSet(context, name + "-sentinel"));
    }

    private static StatefulSet statefulSet(Context<FraudEngine> context, String name) {
        return context.getSecondaryResourcesAsStream(StatefulSet.class).filter(s -> name.equals(s.getMetadata().getName())).findFirst().orElse(null);
    }

    /** Optional CRDs of the owned objects this spec wants that the cluster lacks. */
    static Set<Crd> missingCrds(FraudEngine fe, Context<FraudEngine> context) {
        Set<Crd> missing = EnumSet.noneOf(Crd.class);
        for (OwnedObject o : OwnedObject.values()) {
            if (o.crd != null && o.wanted(fe) && !OptionalCrds.present(context.getClient(), o.crd)) {
                missing.add(o.crd);
            }
        }
        return missing;
    }

    private static List<Pod> pods(FraudEngine fe, Context<FraudEngine> context, String component) {
        return context.getSecondaryResourcesAsStream(Pod.class)
                .filter(p -> p.getMetadata().getLabels() != null
                        && component.equals(p.getMetadata().getLabels().get(Names.LABEL_COMPONENT))
                        && fe.getMetadata().getName().equals(p.getMetadata().getLabels().get(Names.LABEL_INSTANCE)))
                .toList();
    }

    private static Deployment deployment(Context<FraudEngine> context, String name) {
        return context.getSecondaryResourcesAsStream(Deployment.class).filter(d -> name.equals(d.getMetadata().getName())).findFirst().orElse(null);
    }

}
