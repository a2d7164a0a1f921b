package io.vigil.images;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The load-test runner image runs the repo's k6 as the operator's TestRun runner pods do (user 12345,
 * read-only root filesystem, no capabilities), and its shell runs the k6-operator initializer's
 * `sh -c` command (archive and inspect a bundled scenario) with the scripts mounted at /test, as the
 * k6-operator mounts the script ConfigMap.
 */
class LoadTestRunnerImageTest {

    @Test
    void k6OfTheRepoVersionRunsAndArchivesAScenario() throws IOException {
        Images.ensureBuilt();
        String versions = Files.readString(Images.ROOT.resolve("environments/local/bin/versions.sh"));
        String k6Version = versions.lines().filter(l -> l.startsWith("K6_VERSION=")).findFirst().orElseThrow().substring("K6_VERSION=".length());

        Images.Cmd version = run("k6", "version");
        assertThat(version.stdout()).as("k6 version").contains(k6Version);

        String archive = "/tmp/vigil/smoke.js.archived.tar";
        Images.Cmd init = run("sh", "-c", "mkdir -p $(dirname " + archive + ") && k6 archive /test/smoke.js -O " + archive
                + " && k6 inspect --execution-requirements " + archive);
        assertThat(init.stdout()).as("k6 inspect of the archived smoke scenario").contains("\"scenarios\"");
    }

    private static Images.Cmd run(String entrypoint, String... args) {
        List<String> cmd = new java.util.ArrayList<>(List.of("run", "--rm", "--network", "none", "--read-only", "--read-only-tmpfs=false",
                "--tmpfs", "/tmp:rw,size=64m,mode=1777", "--cap-drop", "ALL", "--security-opt", "no-new-privileges",
                "--user", "12345:12345", "--volume", Images.ROOT.resolve("loadtests/k6") + ":/test:ro",
                "--entrypoint", entrypoint, Images.ref("loadtest-runner")));
        cmd.addAll(List.of(args));
        return Images.podman(cmd.toArray(String[]::new)).ok();
    }

}
