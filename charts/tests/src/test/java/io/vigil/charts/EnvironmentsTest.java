package io.vigil.charts;

import static org.assertj.core.api.Assertions.assertThat;

import io.vigil.testing.kube.LocalKubernetes;
import io.vigil.testing.kube.TestNamespace;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Every environment's values, rendered by both charts, accepted by the API server (server-side dry-run:
 * the CRDs' schemas and CEL rules, RBAC object validation, every third-party CRD installed). The local
 * environment is also installed for real by ChartsOnClusterTest.
 */
@LocalKubernetes(crds = "all")
class EnvironmentsTest {
    final String ns;

    EnvironmentsTest(TestNamespace namespace) {
        this.ns = namespace.name();
    }

    @BeforeAll
    static void crds() {
        Kube.applyVigilCrds();
    }

    @ParameterizedTest
    @ValueSource(strings = {"local", "staging", "production"})
    void theEnvironmentPassesAServerSideDryRun(String env, @TempDir Path dir) {
        Path envDir = Repo.ROOT.resolve("environments/" + env);
        // The operator's watched namespaces are the environment's real ones; here the test's namespace
        // (Roles in a namespace that does not exist would be refused for that reason only).
        String operator = Helm.template("vigil-operator", ns, Repo.OPERATOR_CHART, "-f", envDir.resolve("operator-values.yaml").toString(),
                "--set", "watchNamespaces={" + ns + "}");
        // Production brings its own rulesets (never the samples): give it one as its release process would.
        String[] rulesets = env.equals("production")
                ? new String[]{"--set", "rulesets[0].key=CARD_AUTH", "--set", "rulesets[0].version=2",
                        "--set-file", "rulesets[0].documentText=" + Repo.ROOT.resolve("engine/rulesets/CARD_AUTH/v2/ruleset.yaml")}
                : new String[0];
        String[] args = new String[2 + rulesets.length];
        args[0] = "-f";
        args[1] = envDir.resolve("values.yaml").toString();
        System.arraycopy(rulesets, 0, args, 2, rulesets.length);
        String engine = Helm.template("fraud-" + env, ns, Repo.ENGINE_CHART, args);

        for (var manifest : new String[][]{{"operator", operator}, {"engine", engine}}) {
            Path file = Repo.write(dir.resolve(manifest[0] + ".yaml"), manifest[1]);
            Repo.Result r = Kube.kubectl(file.toString(), "apply", "--dry-run=server", "--server-side", "--field-manager", "vigil-env-test",
                    "--namespace", ns);
            assertThat(r.exit()).as("%s %s: %s", env, manifest[0], r.output()).isZero();
            assertThat(r.stdout()).contains("(server dry run)");
        }
        assertThat(engine).contains("kind: FraudEngine");
    }

    @ParameterizedTest
    @ValueSource(strings = {"staging", "production"})
    void anInvalidChangeToAnEnvironmentIsRefusedByTheApiServer(String env, @TempDir Path dir) {
        // The dry-run is not a rubber stamp: a standalone Redis of size 3 violates the CRD's CEL rule.
        String engine = Helm.template("fraud-" + env, ns, Repo.ENGINE_CHART, "-f", Repo.ROOT.resolve("environments/" + env + "/values.yaml").toString(),
                "--set", "velocity.redis.managed.mode=standalone");
        Path file = Repo.write(dir.resolve("engine.yaml"), engine);
        Repo.Result r = Kube.kubectl(file.toString(), "apply", "--dry-run=server", "--server-side", "--namespace", ns);
        assertThat(r.exit()).isNotZero();
        assertThat(r.output()).contains("standalone Redis has size 1");
    }
}
