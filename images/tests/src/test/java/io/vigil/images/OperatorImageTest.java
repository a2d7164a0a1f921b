package io.vigil.images;

import static io.vigil.testing.LocalProcesses.freePort;
import static org.assertj.core.api.Assertions.assertThat;

import io.vigil.testing.kube.LocalCluster;
import io.vigil.testing.kube.LocalKubernetes;
import io.vigil.testing.kube.TestNamespace;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The operator image, run as the vigil-operator chart's Deployment runs it (its env, JAVA_TOOL_OPTIONS,
 * the restricted security settings), against the tests' real kube-apiserver: it starts, its controllers
 * come up (readiness counts them), it answers liveness, and it stops on SIGTERM within the pod's default
 * grace period (30 s). In a pod it finds the API server through its service account; here through a
 * kubeconfig mounted read-only.
 */
@LocalKubernetes
class OperatorImageTest {

    @Test
    void operatorServesAgainstTheApiServerAndStopsOnSigterm(TestNamespace namespace) throws IOException {
        Images.ensureBuilt();
        applyVigilCrds();
        // A copy readable by the container's user (the cluster's own is root-only).
        Path dir = Files.createTempDirectory("vigil-operator-image");
        Path kubeconfig = dir.resolve("kubeconfig");
        Files.copy(LocalCluster.kubeconfig(), kubeconfig);
        Files.setPosixFilePermissions(kubeconfig, PosixFilePermissions.fromString("rw-r--r--"));
        int http = freePort("127.0.0.1");
        Map<String, String> env = new LinkedHashMap<>();
        env.put("KUBECONFIG", "/etc/vigil/kubeconfig");
        env.put("QUARKUS_OPERATOR_SDK_NAMESPACES", namespace.name());
        env.put("VIGIL_OPERATOR_LEADER_ELECTION_ENABLED", "false");
        env.put("JAVA_TOOL_OPTIONS", "-XX:MaxRAMPercentage=70 -XX:+UseSerialGC");
        env.put("QUARKUS_HTTP_PORT", Integer.toString(http));
        try (RestrictedContainer operator = RestrictedContainer.start(Images.ref("operator"), 10001, env,
                List.of("--volume", kubeconfig + ":/etc/vigil/kubeconfig:ro"))) {
            Http.await200(http, "/q/health/started", 180, operator);
            Http.await200(http, "/q/health/live", 30, operator);
            Http.Answer ready = Http.await200(http, "/q/health/ready", 120, operator);
            assertThat(ready.body()).as("operator readiness").contains("\"status\": \"UP\"");
            RestrictedContainer.Stopped stopped = operator.stop(30);
            stopped.assertCleanWithin(30);
            System.out.printf("operator stopped in %.1f s after SIGTERM%n", stopped.seconds());
        } finally {
            Files.deleteIfExists(kubeconfig);
            Files.deleteIfExists(dir);
        }
    }

    static void applyVigilCrds() {
        String kubectl = LocalCluster.kubectl().toString();
        String kc = LocalCluster.kubeconfig().toString();
        Images.Cmd.run(120, false, kubectl, "--kubeconfig", kc, "apply", "--server-side", "--force-conflicts",
                "--field-manager", "vigil-images-tests", "-f", Images.ROOT.resolve("crds").toString()).ok();
        Images.Cmd.run(120, false, kubectl, "--kubeconfig", kc, "wait", "--for", "condition=Established", "--timeout", "60s",
                "crd/fraudengines.vigil.io", "crd/fraudrulesets.vigil.io", "crd/fraudloadtests.vigil.io").ok();
    }
}
