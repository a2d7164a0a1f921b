package io.vigil.charts;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** Runs the Helm binary of the local environment (tools.sh builds it on a fresh machine). */
final class Helm {
    private static Path binary;

    private Helm() {
    }

    static synchronized Path binary() {
        if (binary == null) {
            binary = Repo.tool("helm");
        }
        return binary;
    }

    static Repo.Result run(String... args) {
        return run(null, args);
    }

    /** With a kubeconfig (null: none; template and lint do not need a cluster). */
    static Repo.Result run(Path kubeconfig, String... args) {
        List<String> cmd = new ArrayList<>();
        cmd.add(binary().toString());
        cmd.addAll(List.of(args));
        if (kubeconfig != null) {
            cmd.add("--kubeconfig");
            cmd.add(kubeconfig.toString());
        }
        // Helm's own caches/config in a throwaway place: no ~/.config/helm state from tests.
        Path home = Path.of(System.getProperty("java.io.tmpdir"), "vigil-helm-home");
        return Repo.run(Repo.Duration.LONG, Repo.ROOT, Map.of(
                "HELM_CACHE_HOME", home.resolve("cache").toString(),
                "HELM_CONFIG_HOME", home.resolve("config").toString(),
                "HELM_DATA_HOME", home.resolve("data").toString()), cmd.toArray(String[]::new));
    }

    /**
     * helm template as a cluster of the local control plane's version would render it (K8S_VERSION of
     * versions.sh): without --kube-version Helm assumes 1.20, and the chart leaves out what needs 1.30.
     * An explicit --kube-version in {@code extra} wins.
     */
    static String template(String release, String namespace, Path chart, String... extra) {
        List<String> args = new ArrayList<>(List.of("template", release, chart.toString(), "--namespace", namespace));
        if (!List.of(extra).contains("--kube-version")) {
            args.addAll(List.of("--kube-version", localKubeVersion()));
        }
        args.addAll(List.of(extra));
        return run(args.toArray(String[]::new)).assertOk().stdout();
    }

    static String localKubeVersion() {
        return Repo.read(Repo.ROOT.resolve("environments/local/bin/versions.sh")).lines()
                .filter(l -> l.startsWith("K8S_VERSION="))
                .map(l -> l.substring("K8S_VERSION=".length()).strip())
                .findFirst().orElseThrow(() -> new IllegalStateException("no K8S_VERSION in versions.sh"));
    }
}
