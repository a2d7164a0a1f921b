package io.vigil.images;

import static io.vigil.testing.LocalProcesses.freePort;
import static org.assertj.core.api.Assertions.assertThat;

import io.vigil.testing.LocalProcesses;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The path of docs/installation.md: the engine's OCI archive pushed with skopeo to a registry (Debian's
 * docker-registry, on a free loopback port), its digest read back, then pulled by that digest with
 * podman: the pulled image is the built one (same image ID) and runs.
 */
class RegistryPushPullTest {

    @Test
    void engineImagePushedToARegistryIsPulledBackByDigest() throws Exception {
        Path archive = Images.ociArchive("engine");
        String registryBin = Images.Cmd.run(600, true, Images.SCRIPT.toString(), "registry-bin").ok().stdout().strip()
                .lines().reduce((a, b) -> b).orElseThrow();
        Path dir = Files.createTempDirectory("vigil-registry");
        int port = freePort("127.0.0.1");
        String registry = "127.0.0.1:" + port;
        Files.writeString(dir.resolve("config.yml"), """
                version: 0.1
                log:
                  level: warn
                storage:
                  filesystem:
                    rootdirectory: %s
                http:
                  addr: %s
                """.formatted(dir.resolve("data"), registry));
        Process server = new ProcessBuilder(registryBin, "serve", dir.resolve("config.yml").toString())
                .redirectErrorStream(true).redirectOutput(dir.resolve("registry.log").toFile()).start();
        String pulled = registry + "/vigil/engine";
        String digest = null;
        try {
            awaitRegistry(registry, server, dir.resolve("registry.log"));
            Images.Cmd.run(300, false, "skopeo", "copy", "--dest-tls-verify=false",
                    "oci-archive:" + archive, "docker://" + pulled + ":0.1.0").ok();
            digest = Images.Cmd.run(60, false, "skopeo", "inspect", "--tls-verify=false", "--format", "{{.Digest}}",
                    "docker://" + pulled + ":0.1.0").ok().stdout().strip();
            assertThat(digest).matches("sha256:[0-9a-f]{64}");

            Images.podman("pull", "--quiet", "--tls-verify=false", pulled + "@" + digest).ok();
            assertThat(Images.imageId(pulled + "@" + digest)).as("image pulled by digest = the image built here")
                    .isEqualTo(Images.imageId(Images.ref("engine")));
            Images.Cmd java = Images.podman("run", "--rm", "--network", "none", "--read-only", "--cap-drop", "ALL",
                    "--entrypoint", "java", pulled + "@" + digest, "-version").ok();
            assertThat(java.output()).contains("version");
        } finally {
            if (digest != null) {
                // Only the pulled names go; the image keeps its localhost/vigil name.
                Images.podman("untag", Images.imageId(Images.ref("engine")), pulled + ":0.1.0");
                Images.podman("rmi", pulled + "@" + digest);
            }
            server.destroy();
            if (!server.waitFor(10, TimeUnit.SECONDS)) {
                server.destroyForcibly().waitFor();
            }
            LocalProcesses.deleteRecursively(dir);
        }
    }

    private static void awaitRegistry(String registry, Process server, Path log) throws IOException {
        for (int i = 0; i < 60; i++) {
            Images.Cmd v2 = Images.Cmd.run(10, false, "curl", "-s", "-o", "/dev/null", "-w", "%{http_code}", "http://" + registry + "/v2/");
            if ("200".equals(v2.stdout().strip())) {
                return;
            }
            assertThat(server.isAlive()).as("docker-registry exited:\n" + Files.readString(log)).isTrue();
            Http.sleep(250);
        }
        throw new AssertionError("docker-registry did not answer /v2/ on " + registry + ":\n" + Files.readString(log));
    }
}
