package io.vigil.images;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * What the pods rely on, read from each built image: a non-root user matching the operator's and charts'
 * runAsUser, the ports the pod specs name, no shell in the Java images (nothing to exec into an
 * attacker's hands), and the image name tagged from the project version.
 */
class ImageConfigTest {

    @ParameterizedTest
    @CsvSource({
            "engine,          10001:10001, 8081/tcp 9081/tcp, false",
            "relay,           10001:10001, 9091/tcp,          false",
            "operator,        10001:10001, 9191/tcp,          false",
            "loadtest-runner, 12345:12345, '',                true",
    })
    void userPortsAndShell(String name, String user, String ports, boolean shell) {
        Images.ensureBuilt();
        String ref = Images.ref(name);
        assertThat(ref).isEqualTo("localhost/vigil/" + name + ":" + projectVersion());
        assertThat(Images.podman("image", "inspect", "--format", "{{.Config.User}}", ref).ok().stdout().strip()).isEqualTo(user);
        String exposed = Images.podman("image", "inspect", "--format", "{{range $p, $v := .Config.ExposedPorts}}{{$p}} {{end}}", ref)
                .ok().stdout().strip();
        assertThat(exposed).isEqualTo(ports);
        Images.Cmd sh = Images.podman("run", "--rm", "--network", "none", "--entrypoint", "/bin/sh", ref, "-c", "true");
        assertThat(sh.exit() == 0).as("/bin/sh runs in " + ref + ": " + sh.output()).isEqualTo(shell);
    }

    @Test
    void aMistypedImageNameIsRefusedInOneLineNamingTheKnownOnes() {
        Images.Cmd r = Images.Cmd.run(60, false, Images.SCRIPT.toString(), "archive", "enigne");
        assertThat(r.exit()).isNotZero();
        assertThat(r.stdout()).isEmpty();
        assertThat(r.stderr()).isEqualTo("images.sh: unknown image 'enigne' (known: engine relay operator loadtest-runner)\n");
    }

    static String projectVersion() {
        String pom = Images.Cmd.run(10, false, "sed", "-n", "s:^  <version>\\(.*\\)</version>.*:\\1:p",
                Images.ROOT.resolve("pom.xml").toString()).ok().stdout().lines().findFirst().orElseThrow();
        return pom.replace("-SNAPSHOT", "");
    }
}
