package io.vigil.images;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * A container run the way the restricted Pod Security profile and the operator's pod specs run it:
 * runc, read-only root filesystem with only /tmp writable (a 64 MiB tmpfs, the pods' emptyDir), a non-root
 * user, every capability dropped, no privilege escalation, podman's default seccomp profile (the
 * RuntimeDefault of the pods). Host network: the real Redis, Kafka and API server of the tests listen on
 * loopback. Removed on close.
 */
final class RestrictedContainer implements AutoCloseable {
    final String name;

    private RestrictedContainer(String name) {
        this.name = name;
    }

    /**
     * Starts IMAGE as UID:UID with ENV; {@code extra} are more podman run options (volumes), {@code args}
     * the container's arguments after the image.
     */
    static RestrictedContainer start(String image, long uid, Map<String, String> env, List<String> extra, String... args) {
        String name = "vigil-images-test-" + UUID.randomUUID().toString().substring(0, 8);
        List<String> cmd = new ArrayList<>(List.of("run", "-d", "--name", name, "--network", "host",
                "--read-only", "--read-only-tmpfs=false", "--tmpfs", "/tmp:rw,size=64m,mode=1777",
                "--cap-drop", "ALL", "--security-opt", "no-new-privileges", "--user", uid + ":" + uid));
        env.forEach((k, v) -> cmd.addAll(List.of("--env", k + "=" + v)));
        cmd.addAll(extra);
        cmd.add(image);
        cmd.addAll(List.of(args));
        Images.podman(cmd.toArray(String[]::new)).ok();
        return new RestrictedContainer(name);
    }

    boolean running() {
        return "true".equals(Images.podman("inspect", "--format", "{{.State.Running}}", name).stdout().strip());
    }

    String logs() {
        return Images.podman("logs", name).output();
    }

    /** SIGTERM, then SIGKILL after {@code graceSeconds} (what the kubelet does with terminationGracePeriodSeconds). */
    Stopped stop(int graceSeconds) {
        Images.Cmd stop = Images.podman("stop", "--time", Integer.toString(graceSeconds), name).ok();
        int exit = Integer.parseInt(Images.podman("inspect", "--format", "{{.State.ExitCode}}", name).ok().stdout().strip());
        return new Stopped(exit, stop.seconds(), logs());
    }

    record Stopped(int exitCode, double seconds, String logs) {
        /** Ended by its own shutdown on SIGTERM (the JVM exits 128+15), not SIGKILLed at the end of the grace period (137). */
        void assertCleanWithin(int graceSeconds) {
            assertThat(exitCode).as("exit code after SIGTERM (137 = killed at the end of the grace period); logs:\n" + logs)
                    .isIn(0, 143);
            assertThat(seconds).as("seconds to stop").isLessThan(graceSeconds);
        }
    }

    @Override
    public void close() {
        Images.podman("rm", "--force", "--time", "0", name);
    }
}
