package io.vigil.operator.engine;

import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Stream;

/**
 * Why the pods of a Deployment do not become available, read from their status as the kubelet and the
 * scheduler report it: an image that cannot be pulled, a container that keeps exiting (with its last
 * termination message), a container the runtime cannot create, or a pod no node accepts. The status
 * names the image, pod and container, so an SRE sees the cause without looking at the pods.
 *
 * @param reason  condition reason (ImagePullFailed, CrashLooping, ContainerNotCreated, Unschedulable)
 * @param message one line naming the pod, container and cause
 */
public record PodTrouble(String reason, String message) {

    public static final String IMAGE_PULL_FAILED = "ImagePullFailed";
    public static final String CRASH_LOOPING = "CrashLooping";
    public static final String CONTAINER_NOT_CREATED = "ContainerNotCreated";
    public static final String UNSCHEDULABLE = "Unschedulable";

    private static final Set<String> PULL_FAILURES = Set.of("ErrImagePull", "ImagePullBackOff", "InvalidImageName",
            "ErrImageNeverPull", "RegistryUnavailable", "SignatureValidationFailed");
    private static final Set<String> CREATE_FAILURES = Set.of("CreateContainerConfigError", "CreateContainerError",
            "RunContainerError", "PreCreateHookError", "PostStartHookError");
    /** Termination messages can be long (FallbackToLogsOnError: up to 80 log lines); the status keeps the end. */
    static final int MAX_TERMINATION_MESSAGE = 600;

    /** The first trouble among the pods (most severe kind first, then by pod name), if any. */
    public static Optional<PodTrouble> of(List<Pod> pods) {
        return pods.stream()
                .filter(p -> p.getMetadata().getDeletionTimestamp() == null)
                .sorted(Comparator.comparing(p -> p.getMetadata().getName()))
                .flatMap(PodTrouble::troubles)
                .min(Comparator.comparingInt(PodTrouble::rank));
    }

    private static Stream<PodTrouble> troubles(Pod pod) {
        String name = pod.getMetadata().getName();
        var status = pod.getStatus();
        if (status == null) {
            return Stream.empty();
        }
        Stream<PodTrouble> unschedulable = status.getConditions() == null ? Stream.empty() : status.getConditions().stream()
                .filter(c -> "PodScheduled".equals(c.getType()) && "False".equals(c.getStatus()) && "Unschedulable".equals(c.getReason()))
                .map(c -> new PodTrouble(UNSCHEDULABLE, "pod " + name + " cannot be scheduled: " + c.getMessage()));
        Stream<ContainerStatus> containers = Stream.concat(
                status.getInitContainerStatuses() == null ? Stream.empty() : status.getInitContainerStatuses().stream(),
                status.getContainerStatuses() == null ? Stream.empty() : status.getContainerStatuses().stream());
        return Stream.concat(containers.map(c -> container(name, c)).flatMap(Optional::stream), unschedulable);
    }

    private static Optional<PodTrouble> container(String pod, ContainerStatus c) {
        var waiting = c.getState() == null ? null : c.getState().getWaiting();
        String where = "pod " + pod + ", container " + c.getName();
        if (waiting != null && PULL_FAILURES.contains(waiting.getReason())) {
            return Optional.of(new PodTrouble(IMAGE_PULL_FAILED, where + ": image " + c.getImage() + " cannot be pulled ("
                    + waiting.getReason() + (blank(waiting.getMessage()) ? "" : ": " + waiting.getMessage()) + ")"));
        }
        var last = c.getLastState() == null ? null : c.getLastState().getTerminated();
        boolean looping = waiting != null && "CrashLoopBackOff".equals(waiting.getReason());
        if (looping || last != null && c.getRestartCount() != null && c.getRestartCount() > 0 && !Boolean.TRUE.equals(c.getReady())) {
            StringBuilder m = new StringBuilder(where).append(": restarted ").append(c.getRestartCount()).append(" times");
            if (last != null) {
                m.append(", last exit code ").append(last.getExitCode());
                if (!blank(last.getReason())) {
                    m.append(" (").append(last.getReason()).append(')');
                }
                if (!blank(last.getMessage())) {
                    m.append(": ").append(tail(last.getMessage().strip()));
                }
            }
            return Optional.of(new PodTrouble(CRASH_LOOPING, m.toString()));
        }
        if (waiting != null && CREATE_FAILURES.contains(waiting.getReason())) {
            return Optional.of(new PodTrouble(CONTAINER_NOT_CREATED, where + ": " + waiting.getReason()
                    + (blank(waiting.getMessage()) ? "" : ": " + waiting.getMessage())));
        }
        return Optional.empty();
    }

    private int rank() {
        return switch (reason) {
            case IMAGE_PULL_FAILED -> 0;
            case CONTAINER_NOT_CREATED -> 1;
            case CRASH_LOOPING -> 2;
            default -> 3;
        };
    }

    private static String tail(String message) {
        String oneLine = message.replaceAll("\\s*\\n\\s*", " | ");
        return oneLine.length() <= MAX_TERMINATION_MESSAGE ? oneLine : "..." + oneLine.substring(oneLine.length() - MAX_TERMINATION_MESSAGE);
    }

    private static boolean blank(String s) {
        return s == null || s.isBlank();
    }
}
