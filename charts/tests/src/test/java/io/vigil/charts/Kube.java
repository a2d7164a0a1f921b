package io.vigil.charts;

import io.vigil.testing.kube.LocalCluster;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** kubectl against the local control plane, and the Vigil CRDs from crds/. */
final class Kube {
    private Kube() {
    }

    static Repo.Result kubectl(String stdinFile, String... args) {
        List<String> cmd = new ArrayList<>(List.of(LocalCluster.kubectl().toString(), "--kubeconfig", LocalCluster.kubeconfig().toString()));
        cmd.addAll(List.of(args));
        if (stdinFile != null) {
            cmd.add("-f");
            cmd.add(stdinFile);
        }
        return Repo.run(Repo.Duration.SHORT, Repo.ROOT, Map.of(), cmd.toArray(String[]::new));
    }

    /** The Vigil CRDs exactly as committed in crds/ (server-side apply: other test classes may have them already). */
    static void applyVigilCrds() {
        kubectl(Repo.ROOT.resolve("crds").toString(), "apply", "--server-side", "--force-conflicts", "--field-manager", "vigil-charts-tests").assertOk();
        kubectl(null, "wait", "--for", "condition=Established", "--timeout", "60s",
                "crd/fraudengines.vigil.io", "crd/fraudrulesets.vigil.io", "crd/fraudloadtests.vigil.io").assertOk();
    }
}
