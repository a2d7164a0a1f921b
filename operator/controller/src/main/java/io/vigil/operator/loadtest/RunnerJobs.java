package io.vigil.operator.loadtest;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HostAlias;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.PodSecurityContext;
import io.fabric8.kubernetes.api.model.ResourceRequirements;
import io.fabric8.kubernetes.api.model.SecurityContext;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.Toleration;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeBuilder;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.VolumeMountBuilder;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.JobBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.net.URI;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jboss.logging.Logger;

/**
 * Vigil's own runner of k6-operator TestRuns (ADR 0014), for clusters without the k6-operator, such as
 * the local one: one Job per runner, named and labelled as the k6-operator names them
 * ({@code <testrun>-<n>}, {@code k6_cr=<testrun>, runner=true}), from the same TestRun fields (script
 * ConfigMap mounted at /test, arguments, parallelism as k6 execution segments, runner image, env,
 * resources, security contexts, placement, volumes), and the TestRun's {@code status.stage} moved
 * {@code started} → {@code finished}. The verdict is read from these Jobs exactly as from the
 * k6-operator's ({@link RunVerdict}).
 *
 * <p>What it leaves out of the k6-operator's contract: the initializer ({@code k6 inspect}), the paused
 * start of all runners at once through their REST API (runners of one run start as they are scheduled),
 * cloud output, the {@code cleanup} field and the initializer and starter settings. Off unless
 * {@code vigil.loadtest.runner=jobs} (env {@code VIGIL_LOADTEST_RUNNER=jobs}): with the k6-operator
 * installed both would run every TestRun.
 */
public final class RunnerJobs {

    private static final Logger LOG = Logger.getLogger(RunnerJobs.class);
    public static final String MODE_PROPERTY = "vigil.loadtest.runner";
    public static final String MODE_JOBS = "jobs";
    static final String SCRIPT_VOLUME = "k6-test-volume";
    static final String STAGE_STARTED = "started";
    static final String STAGE_FINISHED = "finished";
    /** A Service name as a host: {@code <service>.<namespace>.svc[.cluster.local]}. */
    private static final Pattern SERVICE_HOST = Pattern.compile("^([a-z0-9-]+)\\.([a-z0-9-]+)\\.svc(\\.cluster\\.local)?$");

    private RunnerJobs() {
    }

    /** Whether this operator runs TestRuns itself ({@value #MODE_PROPERTY}, or env VIGIL_LOADTEST_RUNNER). */
    public static boolean enabled() {
        String mode = System.getProperty(MODE_PROPERTY, System.getenv().getOrDefault("VIGIL_LOADTEST_RUNNER", "k6-operator"));
        return MODE_JOBS.equals(mode);
    }

    public static Map<String, String> runnerLabels(String testRun) {
        return Map.of("k6_cr", testRun, "runner", "true");
    }

    /**
     * Starts the runners of a TestRun that has no stage yet, and moves a started one to finished when
     * every runner Job is done. Returns the TestRun as it now is.
     */
    static GenericKubernetesResource drive(KubernetesClient client, GenericKubernetesResource testRun) {
        String ns = testRun.getMetadata().getNamespace();
        String name = testRun.getMetadata().getName();
        String stage = FraudLoadTestReconciler.stageOf(testRun);
        List<Job> jobs = client.batch().v1().jobs().inNamespace(ns).withLabels(runnerLabels(name)).list().getItems();
        if (stage == null) {
            if (jobs.isEmpty()) {
                for (Job job : of(testRun, hostAliases(client, testRun), client.getKubernetesSerialization())) {
                    try {
                        client.resource(job).create();
                    } catch (KubernetesClientException e) {
                        if (e.getCode() != 409) {
                            throw e;
                        }
                    }
                }
                LOG.infof("TestRun %s/%s: started %d runner Job(s)", ns, name, FraudLoadTestReconciler.parallelismOf(testRun));
            }
            return stage(client, testRun, STAGE_STARTED);
        }
        if (STAGE_STARTED.equals(stage) && jobs.size() >= FraudLoadTestReconciler.parallelismOf(testRun)
                && jobs.stream().allMatch(j -> j.getStatus() != null && (RunVerdict.isFailed(j.getStatus()) || RunVerdict.isSucceeded(j.getStatus())))) {
            return stage(client, testRun, STAGE_FINISHED);
        }
        return testRun;
    }

    private static GenericKubernetesResource stage(KubernetesClient client, GenericKubernetesResource testRun, String stage) {
        return client.genericKubernetesResources(LoadTestPlanner.TEST_RUNS).inNamespace(testRun.getMetadata().getNamespace())
                .withName(testRun.getMetadata().getName()).editStatus(tr -> {
                    tr.setAdditionalProperty("status", Map.of("stage", stage));
                    return tr;
                });
    }

    /**
     * The engine's Service name in BASE_URL pinned to its ClusterIP: a cluster without DNS (the local one)
     * cannot resolve it otherwise; with DNS it is the address DNS would give.
     */
    static List<HostAlias> hostAliases(KubernetesClient client, GenericKubernetesResource testRun) {
        String baseUrl = env(testRun, client.getKubernetesSerialization()).stream()
                .filter(e -> "BASE_URL".equals(e.getName()) && e.getValue() != null).map(EnvVar::getValue).findFirst().orElse(null);
        if (baseUrl == null) {
            return List.of();
        }
        String host = URI.create(baseUrl).getHost();
        Matcher m = host == null ? null : SERVICE_HOST.matcher(host);
        if (m == null || !m.matches()) {
            return List.of();
        }
        Service service = client.services().inNamespace(m.group(2)).withName(m.group(1)).get();
        if (service == null || service.getSpec().getClusterIP() == null || "None".equals(service.getSpec().getClusterIP())) {
            return List.of();
        }
        HostAlias alias = new HostAlias();
        alias.setIp(service.getSpec().getClusterIP());
        alias.setHostnames(List.of(host));
        return List.of(alias);
    }

    /** The runner Jobs of a TestRun (1-based, as the k6-operator numbers them). */
    static List<Job> of(GenericKubernetesResource testRun, List<HostAlias> hostAliases, KubernetesSerialization json) {
        String name = testRun.getMetadata().getName();
        Map<String, Object> spec = map(testRun.getAdditionalProperties().get("spec"));
        Map<String, Object> runner = map(spec.get("runner"));
        Map<String, Object> configMap = map(map(spec.get("script")).get("configMap"));
        if (configMap.get("name") == null) {
            throw new IllegalArgumentException("TestRun " + name + ": only spec.script.configMap is supported by Vigil's runner");
        }
        String file = configMap.get("file") == null ? "test.js" : configMap.get("file").toString();
        int parallelism = FraudLoadTestReconciler.parallelismOf(testRun);

        Map<String, String> labels = new LinkedHashMap<>();
        labels.put("app", "k6");
        labels.putAll(runnerLabels(name));
        Map<String, Object> runnerMeta = map(runner.get("metadata"));
        map(runnerMeta.get("labels")).forEach((k, v) -> labels.putIfAbsent(k, String.valueOf(v)));

        List<Volume> volumes = new ArrayList<>(List.of(new VolumeBuilder().withName(SCRIPT_VOLUME)
                .withNewConfigMap().withName(configMap.get("name").toString()).endConfigMap().build()));
        volumes.addAll(list(json, runner.get("volumes"), Volume[].class));
        List<VolumeMount> mounts = new ArrayList<>(List.of(new VolumeMountBuilder().withName(SCRIPT_VOLUME).withMountPath("/test").build()));
        mounts.addAll(list(json, runner.get("volumeMounts"), VolumeMount[].class));

        List<Job> jobs = new ArrayList<>();
        for (int index = 1; index <= parallelism; index++) {
            String jobName = name + "-" + index;
            List<String> command = new ArrayList<>(List.of("k6", "run", "--quiet"));
            command.addAll(segment(index, parallelism));
            Object arguments = spec.get("arguments");
            if (arguments != null && !arguments.toString().isBlank()) {
                command.addAll(Arrays.asList(arguments.toString().trim().split(" +")));
            }
            command.add("/test/" + file);
            command.addAll(List.of("--tag", "instance_id=" + index, "--tag", "testrun_name=" + name));

            Container k6 = new ContainerBuilder()
                    .withName("k6")
                    .withImage(runner.get("image") == null ? LoadTestPlanner.DEFAULT_IMAGE : runner.get("image").toString())
                    .withImagePullPolicy(runner.get("imagePullPolicy") == null ? null : runner.get("imagePullPolicy").toString())
                    .withCommand(command)
                    .withEnv(env(testRun, json))
                    .withResources(runner.get("resources") == null ? null : json.convertValue(runner.get("resources"), ResourceRequirements.class))
                    .withSecurityContext(runner.get("containerSecurityContext") == null ? null
                            : json.convertValue(runner.get("containerSecurityContext"), SecurityContext.class))
                    .withVolumeMounts(mounts)
                    .build();
            jobs.add(new JobBuilder()
                    .withNewMetadata().withName(jobName).withNamespace(testRun.getMetadata().getNamespace()).withLabels(labels)
                    .withOwnerReferences(new OwnerReferenceBuilder().withApiVersion(testRun.getApiVersion()).withKind(testRun.getKind())
                            .withName(name).withUid(testRun.getMetadata().getUid()).withController(true).withBlockOwnerDeletion(true).build())
                    .endMetadata()
                    .withNewSpec().withBackoffLimit(0)
                    .withNewTemplate().withNewMetadata().withLabels(labels).endMetadata()
                    .withNewSpec()
                    .withRestartPolicy("Never")
                    .withHostname(jobName)
                    // Runners call the engine, not the API server.
                    .withAutomountServiceAccountToken(false)
                    .withNodeSelector(runner.get("nodeSelector") == null ? null : stringMap(runner.get("nodeSelector")))
                    .withTolerations(list(json, runner.get("tolerations"), Toleration[].class))
                    .withSecurityContext(runner.get("securityContext") == null ? null
                            : json.convertValue(runner.get("securityContext"), PodSecurityContext.class))
                    .withHostAliases(hostAliases)
                    .withContainers(k6)
                    .withVolumes(volumes)
                    .endSpec().endTemplate().endSpec()
                    .build());
        }
        return jobs;
    }

    /** k6's execution segment of runner {@code index} of {@code n} (what the k6-operator passes), none for one runner. */
    static List<String> segment(int index, int n) {
        if (n <= 1) {
            return List.of();
        }
        List<String> sequence = new ArrayList<>(List.of("0"));
        for (int i = 1; i < n; i++) {
            sequence.add(i + "/" + n);
        }
        sequence.add("1");
        String from = index == 1 ? "0" : (index - 1) + "/" + n;
        String to = index == n ? "1" : index + "/" + n;
        return List.of("--execution-segment=" + from + ":" + to, "--execution-segment-sequence=" + String.join(",", sequence));
    }

    static List<EnvVar> env(GenericKubernetesResource testRun, KubernetesSerialization json) {
        return list(json, map(map(testRun.getAdditionalProperties().get("spec")).get("runner")).get("env"), EnvVar[].class);
    }

    private static <T> List<T> list(KubernetesSerialization json, Object value, Class<T[]> type) {
        return value == null ? new ArrayList<>() : new ArrayList<>(Arrays.asList(json.convertValue(value, type)));
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> map(Object value) {
        return value instanceof Map<?, ?> m ? (Map<String, Object>) m : Map.of();
    }

    private static Map<String, String> stringMap(Object value) {
        Map<String, String> out = new LinkedHashMap<>();
        map(value).forEach((k, v) -> out.put(k, String.valueOf(v)));
        return out;
    }
}
