package io.vigil.testing.kube;

import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * The local Kubernetes cluster of this repository ({@code make cluster-up}), seen from Java tests.
 * Every method starts the cluster first if this JVM has not done so yet (idempotent: a running
 * cluster is reused). Most tests only need {@link LocalKubernetes}; this class is for what the
 * annotation does not cover:
 *
 * <ul>
 *   <li>{@link #kubeconfig()}: the admin kubeconfig ({@code .local/test-cluster/kubeconfig}), e.g. for an
 *       operator started by the test.</li>
 *   <li>{@link #newClient()}: a fabric8 client for the cluster (the caller closes it).</li>
 *   <li>{@link #installCrds(String...)} / {@link #uninstallCrds(String...)}: third-party CRD sets
 *       {@value #CRD_SETS_DOC}.</li>
 *   <li>{@link #helm()}: the Helm binary (built on first use), to be run with
 *       {@code --kubeconfig }{@link #kubeconfig()}.</li>
 *   <li>{@link #ensureRealNode()} / {@link #importImage(String)}: the one real node beside the kwok
 *       nodes (containerd + kubelet + kube-proxy, {@code node-up.sh}; ADR 0008) and images for it.</li>
 * </ul>
 *
 * The tests' cluster is not the {@code make run} one: it lives in {@code .local/test-cluster}
 * (override with the environment variable {@code VIGIL_TEST_CLUSTER_DIR}) and listens on ports that
 * were free when it started ({@code VIGIL_CLUSTER_FRESH=1}: a cluster that is not running starts from
 * empty state). It is shared by the test JVMs of one build; {@code make test} stops it at the end
 * unless {@code VIGIL_KEEP_TEST_CLUSTER=1} (docs/local-environment.md).
 *
 * <p>The repository root is found by walking up from the working directory (override with the system
 * property {@code vigil.repo.root}). Script output (tool builds, startup progress) is echoed to
 * {@code System.out} with a {@code [local-kubernetes]} prefix.
 */
public final class LocalCluster {

    static final String CRD_SETS_DOC = "keda, monitoring, k6, strimzi, redis, certmanager (or all, which leaves out certmanager)";
    private static final Set<String> CRD_SETS = Set.of("keda", "monitoring", "k6", "strimzi", "redis", "certmanager", "all");
    // A cold start builds kube-apiserver & co. from source: about 20 CPU-minutes, which took 44 minutes
    // of wall clock on a heavily shared 2-core machine (docs/local-environment.md); leave ample room.
    private static final long UP_TIMEOUT_MINUTES = 60;
    private static final long SCRIPT_TIMEOUT_MINUTES = 10;

    private static boolean started;

    private LocalCluster() {
    }

    /** Starts the cluster unless this JVM already did (runs {@code cluster-up.sh}, idempotent). */
    public static synchronized void ensureRunning() {
        if (started) {
            return;
        }
        run(UP_TIMEOUT_MINUTES, script("cluster-up.sh").toString());
        started = true;
    }

    /** Name of the real node ({@code node-lib.sh}); pods reach it with {@link #REAL_NODE_SELECTOR} and {@link #REAL_NODE_TAINT}. */
    public static final String REAL_NODE = "vigil-real-node";
    /** Label of the real node (kwok nodes are {@code type=kwok}). */
    public static final Map<String, String> REAL_NODE_SELECTOR = Map.of("vigil.io/node", "real");
    /** Key of the real node's NoSchedule taint: only pods that tolerate it land there. */
    public static final String REAL_NODE_TAINT = "vigil.io/real-node";
    /** Exit status of node-up.sh when another cluster on this machine holds the real node. */
    private static final int REAL_NODE_HELD_ELSEWHERE = 4;

    private static boolean realNode;

    /**
     * Starts the real node of the tests' cluster unless this JVM did already ({@code node-up.sh},
     * idempotent; the first time builds kubelet and kube-proxy and needs containerd, runc and the CNI
     * plugins from {@code ensure-deps.sh}). One real node per machine: when another cluster (e.g. the
     * {@code make run} one) holds it, the calling test is aborted (skipped) with that reason, unless
     * {@code VIGIL_REQUIRE_REAL_NODE=1}, where it fails.
     */
    public static synchronized void ensureRealNode() {
        ensureRunning();
        if (realNode) {
            return;
        }
        Result result = execute(UP_TIMEOUT_MINUTES, script("node-up.sh").toString());
        if (result.exit() == REAL_NODE_HELD_ELSEWHERE && !"1".equals(System.getenv("VIGIL_REQUIRE_REAL_NODE"))) {
            org.junit.jupiter.api.Assumptions.abort("the real node is held by another cluster on this machine: "
                    + String.join(" ", result.tail()));
        }
        result.orThrow();
        realNode = true;
    }

    /**
     * Imports an image into the real node's containerd: a docker-archive file, or an image of podman's
     * local store by name (e.g. {@code localhost/vigil/engine:0.1.0}). Pods then run it with
     * {@code imagePullPolicy: IfNotPresent} or {@code Never}; no registry is involved.
     */
    public static void importImage(String archiveOrImage) {
        ensureRealNode();
        run(SCRIPT_TIMEOUT_MINUTES, script("node-import.sh").toString(), archiveOrImage);
    }

    /**
     * Imports one of the repository's images ({@code engine}, {@code relay}, {@code operator},
     * {@code loadtest-runner}) into the real node: {@code images.sh archive <name>} builds it when it is
     * missing or stale (the Quarkus app must be packaged, as the reactor does before this module's
     * tests), then {@link #importImage(String)}. Returns the image reference.
     */
    public static String importRepositoryImage(String name) {
        ensureRealNode();
        List<String> out = run(UP_TIMEOUT_MINUTES, script("images.sh").toString(), "archive", name);
        importImage(out.getLast().trim());
        return run(SCRIPT_TIMEOUT_MINUTES, script("images.sh").toString(), "ref", name).getLast().trim();
    }

    /** The admin kubeconfig of the running cluster ({@code .local/test-cluster/kubeconfig}). */
    public static Path kubeconfig() {
        ensureRunning();
        return clusterDir().resolve("kubeconfig");
    }

    /** fabric8 configuration for the cluster (admin token, the cluster's own CA). */
    public static Config config() {
        try {
            return Config.fromKubeconfig(Files.readString(kubeconfig()));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A new fabric8 client (cluster-admin) for the cluster; the caller closes it. */
    public static KubernetesClient newClient() {
        return new KubernetesClientBuilder().withConfig(config()).build();
    }

    /**
     * Installs CRD sets and waits until they are Established. Sets: {@value #CRD_SETS_DOC}.
     * Installing a set that is already there is a no-op.
     *
     * @throws IllegalArgumentException for an unknown set name
     */
    public static void installCrds(String... sets) {
        crds(false, sets);
    }

    /**
     * Removes CRD sets (and so every object of their kinds) and waits until they are gone, to test
     * "CRD missing" behaviour. The cluster is shared by every test of the build: put back what you
     * removed ({@link #installCrds(String...)}) when the test ends.
     *
     * @throws IllegalArgumentException for an unknown set name
     */
    public static void uninstallCrds(String... sets) {
        crds(true, sets);
    }

    /**
     * Server-side applies one CRD (e.g. a committed file under {@code crds/}) and waits until the API
     * server reports it Established. A freshly created CRD has no status conditions for a moment, so
     * a missing list counts as "not yet", not as an error.
     */
    public static void applyCrd(KubernetesClient client, CustomResourceDefinition crd) {
        client.resource(crd).fieldManager("vigil-test").forceConflicts().serverSideApply();
        client.apiextensions().v1().customResourceDefinitions().withName(crd.getMetadata().getName())
                .waitUntilCondition(LocalCluster::established, 60, TimeUnit.SECONDS);
    }

    /** Whether the CRD exists and its Established condition is True (null-safe while status is empty). */
    public static boolean established(CustomResourceDefinition crd) {
        return crd != null && crd.getStatus() != null && crd.getStatus().getConditions() != null
                && crd.getStatus().getConditions().stream()
                        .anyMatch(c -> "Established".equals(c.getType()) && "True".equals(c.getStatus()));
    }

    /** The Helm 3 binary (built into {@code ~/.cache/vigil/bin} on first use). */
    public static Path helm() {
        return tool("helm");
    }

    /** The kubectl binary of the same Kubernetes version as the cluster. */
    public static Path kubectl() {
        return tool("kubectl");
    }

    private static void crds(boolean uninstall, String... sets) {
        if (sets.length == 0) {
            throw new IllegalArgumentException("name at least one CRD set: " + CRD_SETS_DOC);
        }
        List<String> command = new ArrayList<>(List.of(script("cluster-crds.sh").toString()));
        if (uninstall) {
            command.add("--uninstall");
        }
        for (String set : sets) {
            if (!CRD_SETS.contains(set)) {
                throw new IllegalArgumentException("unknown CRD set '" + set + "' (known: " + CRD_SETS_DOC + ")");
            }
            command.add(set);
        }
        ensureRunning();
        run(SCRIPT_TIMEOUT_MINUTES, command.toArray(String[]::new));
    }

    private static Path tool(String name) {
        List<String> out = run(UP_TIMEOUT_MINUTES, script("tools.sh").toString(), "path", name);
        Path path = Path.of(out.getLast().trim());
        if (!Files.isExecutable(path)) {
            throw new IllegalStateException("tools.sh did not produce an executable " + name + ": " + path);
        }
        return path;
    }

    static Path repositoryRoot() {
        String configured = System.getProperty("vigil.repo.root");
        if (configured != null && !configured.isBlank()) {
            // normalize(): the poms pass ${project.basedir}/../..; scripts compare the cluster directory
            // as a string (the real node's owner), so one cluster must have one spelling.
            return Path.of(configured).toAbsolutePath().normalize();
        }
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            if (Files.isRegularFile(dir.resolve("environments/local/bin/cluster-up.sh"))) {
                return dir;
            }
        }
        throw new IllegalStateException("cannot find the repository root (environments/local/bin/cluster-up.sh) above "
                + Path.of("").toAbsolutePath() + "; set -Dvigil.repo.root");
    }

    /** The test cluster's state directory ({@code VIGIL_TEST_CLUSTER_DIR}, else {@code .local/test-cluster}). */
    public static Path clusterDir() {
        String configured = System.getenv("VIGIL_TEST_CLUSTER_DIR");
        return configured != null && !configured.isBlank()
                ? Path.of(configured).toAbsolutePath().normalize()
                : repositoryRoot().resolve(".local/test-cluster");
    }

    private static Path script(String name) {
        return repositoryRoot().resolve("environments/local/bin").resolve(name);
    }

    /**
     * Runs a script, echoing its stdout+stderr line by line (through System.out, so Surefire shows it
     * in order with the test output), and returns its stdout+stderr lines.
     */
    private static List<String> run(long timeoutMinutes, String... command) {
        return execute(timeoutMinutes, command).orThrow();
    }

    private record Result(String command, int exit, List<String> lines) {
        List<String> tail() {
            return lines.subList(Math.max(0, lines.size() - 20), lines.size());
        }

        List<String> orThrow() {
            if (exit != 0) {
                throw new IllegalStateException(command + " failed (exit " + exit + "); last output:\n" + String.join("\n", tail()));
            }
            return lines;
        }
    }

    private static Result execute(long timeoutMinutes, String... command) {
        ProcessBuilder builder = new ProcessBuilder(command)
                .directory(repositoryRoot().toFile())
                .redirectErrorStream(true)
                .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
        Map<String, String> env = builder.environment();
        env.put("VIGIL_CLUSTER_DIR", clusterDir().toString());
        env.put("VIGIL_CLUSTER_FRESH", "1");
        // The older, shorter upstream default (the platform runs 1.32's 50 s): tests show that the
        // kwok nodes' heartbeats hold even with it (ReadinessOverTimeClusterTest in the operator).
        env.put("VIGIL_NODE_MONITOR_GRACE_PERIOD", "40s");
        // Ports exported for the `make run` cluster must not steer the tests' cluster onto them.
        env.keySet().removeIf(name -> name.startsWith("VIGIL_") && name.endsWith("_PORT"));
        List<String> lines = new ArrayList<>();
        Process process;
        try {
            process = builder.start();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot run " + command[0], e);
        }
        // Read on a separate thread so the timeout below holds even if the script stops printing.
        Thread reader = Thread.ofVirtual().start(() -> {
            try (BufferedReader in = new BufferedReader(
                    new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line; (line = in.readLine()) != null; ) {
                    synchronized (lines) {
                        lines.add(line);
                    }
                    System.out.println("[local-kubernetes] " + line);
                }
            } catch (IOException ignored) {
                // the process was destroyed; its exit status reports the failure
            }
        });
        try {
            if (!process.waitFor(timeoutMinutes, TimeUnit.MINUTES)) {
                process.destroyForcibly();
                throw new IllegalStateException(String.join(" ", command) + " did not finish in " + timeoutMinutes + " minutes");
            }
            reader.join(TimeUnit.SECONDS.toMillis(10));
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while running " + command[0], e);
        }
        synchronized (lines) {
            return new Result(String.join(" ", command), process.exitValue(), List.copyOf(lines));
        }
    }
}
