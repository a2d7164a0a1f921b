package io.vigil.images;

import static org.assertj.core.api.Assertions.assertThat;

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
import java.util.concurrent.TimeUnit;

/**
 * The images of {@code make images} (environments/local/bin/images.sh), built once per test JVM, and the
 * podman commands the tests run them with (the repo's containers.conf: runc, ulimits under the host's).
 */
final class Images {
    static final Path ROOT = Path.of(System.getProperty("vigil.repo.root", "../..")).toAbsolutePath().normalize();
    static final Path SCRIPT = ROOT.resolve("environments/local/bin/images.sh");
    static final Map<String, String> PODMAN_ENV = Map.of("CONTAINERS_CONF", ROOT.resolve("images/containers.conf").toString());
    private static boolean built;

    private Images() {
    }

    /**
     * Builds every image from the apps this Maven build packaged (installs podman, runc, debootstrap and
     * skopeo from Debian packages on a fresh machine; the first build takes minutes, shown line by line).
     */
    static synchronized void ensureBuilt() {
        if (built) {
            return;
        }
        Cmd r = Cmd.run(1800, true, SCRIPT.toString(), "build", "--no-package");
        assertThat(r.exit()).as("images.sh build --no-package failed:\n" + r.output()).isZero();
        built = true;
    }

    /** localhost/vigil/NAME:VERSION, as images.sh names it. */
    static String ref(String name) {
        return Cmd.run(60, false, SCRIPT.toString(), "ref", name).ok().stdout().strip();
    }

    static Path ociArchive(String name) {
        ensureBuilt();
        return Path.of(Cmd.run(600, false, SCRIPT.toString(), "oci-archive", name).ok().stdout().strip());
    }

    static String imageId(String ref) {
        return podman("image", "inspect", "--format", "{{.Id}}", ref).ok().stdout().strip();
    }

    static Cmd podman(String... args) {
        List<String> cmd = new ArrayList<>(List.of("podman"));
        cmd.addAll(List.of(args));
        return Cmd.run(300, false, cmd.toArray(String[]::new));
    }

    /** One finished command: exit status and output. */
    record Cmd(List<String> command, int exit, String stdout, String stderr, double seconds) {
        Cmd ok() {
            assertThat(exit).as(String.join(" ", command) + " exited " + exit + "\n" + output()).isZero();
            return this;
        }

        String output() {
            return stdout + (stderr.isEmpty() ? "" : "\n--- stderr\n" + stderr);
        }

        /** Runs a command with the podman environment; {@code echo} copies its output lines to this JVM's stdout (progress). */
        static Cmd run(long timeoutSeconds, boolean echo, String... command) {
            try {
                Path err = Files.createTempFile("vigil-images", ".err");
                ProcessBuilder pb = new ProcessBuilder(command).redirectError(err.toFile());
                pb.environment().putAll(PODMAN_ENV);
                if (echo) {
                    pb.redirectErrorStream(true);
                }
                long start = System.nanoTime();
                Process p = pb.start();
                StringBuilder out = new StringBuilder();
                Thread reader = Thread.ofPlatform().daemon().start(() -> {
                    try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
                        String line;
                        while ((line = r.readLine()) != null) {
                            out.append(line).append('\n');
                            if (echo) {
                                System.out.println(line);
                            }
                        }
                    } catch (IOException e) {
                        out.append("(output lost: ").append(e).append(")\n");
                    }
                });
                if (!p.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
                    p.descendants().forEach(ProcessHandle::destroyForcibly);
                    p.destroyForcibly();
                    throw new AssertionError(String.join(" ", command) + " did not finish within " + timeoutSeconds + " s:\n" + out);
                }
                reader.join(5000);
                double seconds = (System.nanoTime() - start) / 1e9;
                String stderr = Files.readString(err, StandardCharsets.UTF_8);
                Files.deleteIfExists(err);
                return new Cmd(List.of(command), p.exitValue(), out.toString(), stderr, seconds);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }
    }
}
