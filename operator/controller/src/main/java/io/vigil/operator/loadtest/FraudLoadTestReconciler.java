package io.vigil.operator.loadtest;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.ConditionBuilder;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.ControllerConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import io.quarkiverse.operatorsdk.annotations.RBACRule;
import io.vigil.operator.api.v1alpha1.FraudEngine;
import io.vigil.operator.api.v1alpha1.FraudLoadTest;
import io.vigil.operator.api.v1alpha1.FraudLoadTestStatus;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.jboss.logging.Logger;

/**
 * Runs a FraudLoadTest: renders the script ConfigMap and the k6-operator TestRun of the current
 * generation ({@link LoadTestPlanner}), follows the TestRun's stage, and writes the verdict read from
 * the runner Jobs ({@link RunVerdict}) into the status, once, before anything can clean the Jobs up.
 *
 * <p>The TestRun is followed by polling ({@link #POLL} while a run is in progress) rather than an
 * informer: the k6-operator CRD is optional, and an informer on a missing CRD would fail the whole
 * controller. A missing CRD or target is a condition, re-checked every {@link #RECHECK}.
 */
@ControllerConfiguration(name = "fraudloadtest")
@RBACRule(apiGroups = "vigil.io", resources = "fraudengines", verbs = {"get", "list"})
@RBACRule(apiGroups = "", resources = "configmaps", verbs = {"get", "list", "create", "patch", "update", "delete"})
@RBACRule(apiGroups = "k6.io", resources = "testruns", verbs = {"get", "list", "create", "patch", "delete"})
// Vigil's own TestRun runner (RunnerJobs, vigil.loadtest.runner=jobs, ADR 0014): runner Jobs and the TestRun's stage.
@RBACRule(apiGroups = "k6.io", resources = "testruns/status", verbs = {"get", "patch", "update"})
@RBACRule(apiGroups = "batch", resources = "jobs", verbs = {"get", "list", "create"})
@RBACRule(apiGroups = "", resources = "pods", verbs = {"get", "list"})
@RBACRule(apiGroups = "apiextensions.k8s.io", resources = "customresourcedefinitions", verbs = "get",
        resourceNames = LoadTestPlanner.TEST_RUN_CRD)
public class FraudLoadTestReconciler implements Reconciler<FraudLoadTest> {

    private static final Logger LOG = Logger.getLogger(FraudLoadTestReconciler.class);
    public static final Duration POLL = Duration.ofSeconds(5);
    public static final Duration RECHECK = Duration.ofSeconds(30);
    static final String FIELD_MANAGER = "vigil-operator";

    public static final String STAGE_PENDING = "pending";
    public static final String CONDITION_READY_TO_RUN = "ReadyToRun";
    public static final String CONDITION_COMPLETED = "Completed";

    @Override
    public UpdateControl<FraudLoadTest> reconcile(FraudLoadTest flt, Context<FraudLoadTest> context) {
        KubernetesClient client = context.getClient();
        String ns = flt.getMetadata().getNamespace();
        FraudLoadTestStatus previous = flt.getStatus();
        long generation = LoadTestPlanner.generation(flt);

        // A verdict of this generation is final; only the stage still follows the TestRun to its end (the
        // runners' exit codes can decide before the k6-operator moves the TestRun to finished).
        if (previous != null && previous.verdict != null && Objects.equals(previous.observedGeneration, generation)) {
            return followStage(flt, client);
        }

        FraudEngine target = null;
        if (flt.getSpec() != null && flt.getSpec().target != null && flt.getSpec().target.fraudEngine != null) {
            target = client.resources(FraudEngine.class).inNamespace(ns).withName(flt.getSpec().target.fraudEngine).get();
        }
        LoadTestPlan plan = LoadTestPlanner.plan(flt, target);
        if (!plan.runnable()) {
            // Credentials the engine wants (ADR 0013) have a reason of their own: the spec is fine, a field is missing.
            return status(flt, blocked(flt, plan.credentialsMissing() ? "CallerCredentialsMissing" : "InvalidTarget",
                    String.join("; ", plan.problems())), RECHECK);
        }
        if (!K6Crd.installed(client)) {
            return status(flt, blocked(flt, "K6OperatorMissing", "the k6-operator CRD " + LoadTestPlanner.TEST_RUN_CRD
                    + " is not installed: install the k6-operator (make cluster-crds CRDS=k6 locally)"), RECHECK);
        }

        deleteOtherGenerations(client, flt, plan.testRunName());
        // The scripts only change with the operator build: applied when missing or different, not on every poll.
        ConfigMap scripts = client.configMaps().inNamespace(ns).withName(plan.scripts().getMetadata().getName()).get();
        if (scripts == null || !Objects.equals(scripts.getData(), plan.scripts().getData())) {
            client.resource(plan.scripts()).fieldManager(FIELD_MANAGER).forceConflicts().serverSideApply();
        }
        var testRuns = client.genericKubernetesResources(LoadTestPlanner.TEST_RUNS).inNamespace(ns);
        GenericKubernetesResource testRun = testRuns.withName(plan.testRunName()).get();
        if (testRun == null) {
            // Created once: the k6-operator owns its progress, and a started TestRun must not change.
            testRun = testRuns.resource(plan.testRun()).create();
            LOG.infof("FraudLoadTest %s/%s generation %d: created TestRun %s", ns, flt.getMetadata().getName(), generation,
                    plan.testRunName());
        }
        if (RunnerJobs.enabled()) {
            testRun = RunnerJobs.drive(client, testRun);
        }

        String stage = stageOf(testRun);
        int parallelism = parallelismOf(plan.testRun());
        Map<String, String> runnerLabels = RunnerJobs.runnerLabels(plan.testRunName());
        List<Job> jobs = client.batch().v1().jobs().inNamespace(ns).withLabels(runnerLabels).list().getItems();
        List<Pod> pods = client.pods().inNamespace(ns).withLabels(runnerLabels).list().getItems();
        RunVerdict verdict = RunVerdict.of(stage, parallelism, jobs, pods);

        FraudLoadTestStatus s = base(flt);
        s.stage = stage == null ? STAGE_PENDING : stage;
        s.testRun = plan.testRunName();
        s.runners = verdict.runners();
        s.runnersSucceeded = verdict.succeeded();
        s.runnersFailed = verdict.failed();
        s.startedAt = verdict.startedAt();
        s.finishedAt = verdict.finishedAt();
        s.message = verdict.message();
        s.conditions.add(condition(previous, CONDITION_READY_TO_RUN, "True", "TestRunCreated", "TestRun " + plan.testRunName()));
        if (verdict.decided()) {
            s.verdict = verdict.verdict();
            s.failedThresholds = verdict.failedThresholds().isEmpty() ? null : verdict.failedThresholds();
            s.conditions.add(condition(previous, CONDITION_COMPLETED, "True", verdict.reason(), verdict.message()));
            LOG.infof("FraudLoadTest %s/%s generation %d: %s (%s)", ns, flt.getMetadata().getName(), generation,
                    verdict.verdict(), verdict.message());
            return status(flt, s, terminal(stage) ? null : POLL);
        }
        s.conditions.add(condition(previous, CONDITION_COMPLETED, "False", verdict.reason(), verdict.message()));
        return status(flt, s, POLL);
    }

    /** TestRun stages after which nothing changes. */
    static boolean terminal(String stage) {
        return "finished".equals(stage) || "error".equals(stage);
    }

    /** After the verdict: the stage column keeps following the TestRun until it is terminal or gone. */
    private static UpdateControl<FraudLoadTest> followStage(FraudLoadTest flt, KubernetesClient client) {
        FraudLoadTestStatus previous = flt.getStatus();
        if (terminal(previous.stage) || previous.testRun == null) {
            return UpdateControl.noUpdate();
        }
        GenericKubernetesResource testRun = client.genericKubernetesResources(LoadTestPlanner.TEST_RUNS)
                .inNamespace(flt.getMetadata().getNamespace()).withName(previous.testRun).get();
        if (testRun == null) {
            return UpdateControl.noUpdate(); // deleted: nothing left to follow
        }
        if (RunnerJobs.enabled()) {
            testRun = RunnerJobs.drive(client, testRun);
        }
        String stage = stageOf(testRun);
        FraudLoadTestStatus s = client.getKubernetesSerialization().clone(previous);
        s.stage = stage == null ? STAGE_PENDING : stage;
        return status(flt, s, terminal(stage) ? null : POLL);
    }

    private static FraudLoadTestStatus base(FraudLoadTest flt) {
        FraudLoadTestStatus s = new FraudLoadTestStatus();
        s.observedGeneration = LoadTestPlanner.generation(flt);
        s.conditions = new ArrayList<>();
        return s;
    }

    private static FraudLoadTestStatus blocked(FraudLoadTest flt, String reason, String message) {
        FraudLoadTestStatus s = base(flt);
        s.stage = STAGE_PENDING;
        s.message = message;
        s.conditions.add(condition(flt.getStatus(), CONDITION_READY_TO_RUN, "False", reason, message));
        return s;
    }

    /** Older generations' TestRuns (and with them their Jobs) go: one run per FraudLoadTest at a time. */
    private static void deleteOtherGenerations(KubernetesClient client, FraudLoadTest flt, String current) {
        var testRuns = client.genericKubernetesResources(LoadTestPlanner.TEST_RUNS).inNamespace(flt.getMetadata().getNamespace());
        for (GenericKubernetesResource tr : testRuns.withLabel(LoadTestPlanner.LABEL_LOAD_TEST, flt.getMetadata().getName())
                .list().getItems()) {
            if (!tr.getMetadata().getName().equals(current) && ownedBy(tr, flt)) {
                LOG.infof("FraudLoadTest %s/%s: deleting TestRun %s of an older generation", flt.getMetadata().getNamespace(),
                        flt.getMetadata().getName(), tr.getMetadata().getName());
                try {
                    testRuns.withName(tr.getMetadata().getName()).delete();
                } catch (KubernetesClientException e) {
                    LOG.warnf("could not delete TestRun %s: %s", tr.getMetadata().getName(), e.getMessage());
                }
            }
        }
    }

    private static boolean ownedBy(GenericKubernetesResource tr, FraudLoadTest flt) {
        return tr.getMetadata().getOwnerReferences() != null && tr.getMetadata().getOwnerReferences().stream()
                .anyMatch(o -> Objects.equals(o.getUid(), flt.getMetadata().getUid()));
    }

    @SuppressWarnings("unchecked")
    static String stageOf(GenericKubernetesResource testRun) {
        Object status = testRun.getAdditionalProperties().get("status");
        if (status instanceof Map<?, ?> m && m.get("stage") instanceof String stage) {
            return stage;
        }
        return null;
    }

    static int parallelismOf(GenericKubernetesResource testRun) {
        Object spec = testRun.getAdditionalProperties().get("spec");
        if (spec instanceof Map<?, ?> m && m.get("parallelism") instanceof Number n) {
            return n.intValue();
        }
        return 1;
    }

    /** Keeps lastTransitionTime when a condition's status did not change (no status churn while polling). */
    static Condition condition(FraudLoadTestStatus previous, String type, String status, String reason, String message) {
        String since = Instant.now().truncatedTo(ChronoUnit.SECONDS).toString();
        if (previous != null && previous.conditions != null) {
            for (Condition c : previous.conditions) {
                if (type.equals(c.getType()) && status.equals(c.getStatus()) && c.getLastTransitionTime() != null) {
                    since = c.getLastTransitionTime();
                }
            }
        }
        return new ConditionBuilder().withType(type).withStatus(status).withReason(reason).withMessage(message)
                .withLastTransitionTime(since).build();
    }

    private static UpdateControl<FraudLoadTest> status(FraudLoadTest flt, FraudLoadTestStatus status, Duration reschedule) {
        UpdateControl<FraudLoadTest> control;
        if (sameStatus(flt.getStatus(), status)) {
            control = UpdateControl.noUpdate();
        } else {
            FraudLoadTest patch = new FraudLoadTest();
            patch.setMetadata(new ObjectMetaBuilder().withName(flt.getMetadata().getName())
                    .withNamespace(flt.getMetadata().getNamespace()).build());
            patch.setStatus(status);
            control = UpdateControl.patchStatus(patch);
        }
        if (reschedule != null) {
            control.rescheduleAfter(reschedule);
        }
        return control;
    }

    private static boolean sameStatus(FraudLoadTestStatus a, FraudLoadTestStatus b) {
        if (a == null) {
            return false;
        }
        return Objects.equals(a.observedGeneration, b.observedGeneration) && Objects.equals(a.stage, b.stage)
                && Objects.equals(a.verdict, b.verdict) && Objects.equals(a.testRun, b.testRun)
                && Objects.equals(a.startedAt, b.startedAt) && Objects.equals(a.finishedAt, b.finishedAt)
                && Objects.equals(a.runners, b.runners) && Objects.equals(a.runnersSucceeded, b.runnersSucceeded)
                && Objects.equals(a.runnersFailed, b.runnersFailed) && Objects.equals(a.failedThresholds, b.failedThresholds)
                && Objects.equals(a.message, b.message) && Objects.equals(a.conditions, b.conditions);
    }
}
