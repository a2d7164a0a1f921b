package io.vigil.operator.loadtest;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.ContainerStateTerminated;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.JobCondition;
import io.fabric8.kubernetes.api.model.batch.v1.JobStatus;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;

/**
 * The verdict of a run, read from its runner Jobs (pure; the reconciler lists the Jobs and Pods).
 *
 * <p>k6-operator moves a TestRun to stage {@code finished} whether or not k6's thresholds held: k6 exits
 * 99 when a threshold fails, which only shows as a failed runner Job. So: any failed runner → Failed;
 * every expected runner succeeded and left k6's summary {@code {"passed":true}} as its termination
 * message → Passed (succeeded without it → Failed, {@code RunnerResultsMissing}: a kwok-simulated pod
 * "succeeds" without running k6); otherwise the run is still going (no verdict). The failed
 * thresholds come from the runners' termination messages, which loadtests/k6 writes in handleSummary.
 *
 * @param verdict {@link #PASSED}, {@link #FAILED} or null while undecided
 */
public record RunVerdict(String verdict, int runners, int succeeded, int failed, String startedAt, String finishedAt,
                         List<String> failedThresholds, String reason, String message) {

    public static final String PASSED = "Passed";
    public static final String FAILED = "Failed";
    /** k6's exit code when thresholds failed. */
    public static final int THRESHOLDS_FAILED_EXIT = 99;
    private static final ObjectMapper JSON = new ObjectMapper();

    public boolean decided() {
        return verdict != null;
    }

    /**
     * @param stage           the TestRun's status.stage (may be null)
     * @param expectedRunners spec.parallelism of the TestRun
     * @param runnerJobs      Jobs labelled {@code k6_cr=<testrun>, runner=true}
     * @param runnerPods      their Pods (for exit codes and termination messages; may be empty)
     */
    public static RunVerdict of(String stage, int expectedRunners, List<Job> runnerJobs, List<Pod> runnerPods) {
        int succeeded = 0;
        int failed = 0;
        String started = null;
        String finished = null;
        for (Job job : runnerJobs) {
            JobStatus s = job.getStatus();
            if (s == null) {
                continue;
            }
            started = earliest(started, s.getStartTime());
            if (isFailed(s)) {
                failed++;
                finished = latest(finished, conditionTime(s, "Failed"));
            } else if (isSucceeded(s)) {
                succeeded++;
                finished = latest(finished, s.getCompletionTime() != null ? s.getCompletionTime() : conditionTime(s, "Complete"));
            }
        }
        int runners = Math.max(expectedRunners, runnerJobs.size());
        List<String> thresholds = failedThresholds(runnerPods);
        boolean allDone = succeeded + failed >= runners && runners > 0;

        if (failed > 0 && (allDone || "finished".equals(stage) || "error".equals(stage))) {
            boolean thresholdFailure = !thresholds.isEmpty() || exitedWith(runnerPods, THRESHOLDS_FAILED_EXIT);
            String reason = thresholdFailure ? "ThresholdsFailed" : "RunnerFailed";
            String message = failed + " of " + runners + " runner(s) failed"
                    + (thresholdFailure ? (thresholds.isEmpty() ? ": k6 thresholds failed" : ": " + String.join("; ", thresholds))
                    : " (not a threshold failure: see the runner pod logs)");
            return new RunVerdict(FAILED, runners, succeeded, failed, started, finished, thresholds, reason, message);
        }
        if ("error".equals(stage)) {
            return new RunVerdict(FAILED, runners, succeeded, failed, started, finished, thresholds, "TestRunError",
                    "the k6-operator reported stage error (see the TestRun's conditions and the initializer Job)");
        }
        if (allDone) {
            int proven = passedSummaries(runnerPods);
            if (proven < runners) {
                // Exit 0 alone proves nothing: a simulated (kwok) pod "exits 0" without running k6.
                return new RunVerdict(FAILED, runners, succeeded, failed, started, finished, List.of(), "RunnerResultsMissing",
                        "only " + proven + " of " + runners + " runner(s) left k6's summary ({\"passed\":true} in the termination"
                                + " message): a pass that cannot be proven is not a pass (simulated pods, or a script without TERMINATION_LOG)");
            }
            return new RunVerdict(PASSED, runners, succeeded, failed, started, finished, List.of(), "ThresholdsHeld",
                    "all " + runners + " runner(s) succeeded: every threshold held");
        }
        if ("finished".equals(stage)) {
            // Finished, yet not every runner Job is there to read: something deleted them (cleanup).
            return new RunVerdict(FAILED, runners, succeeded, failed, started, finished, thresholds, "RunnerJobsMissing",
                    "the TestRun finished but only " + runnerJobs.size() + " of " + runners
                            + " runner Jobs could be read: the verdict cannot be proven");
        }
        return new RunVerdict(null, runners, succeeded, failed, started, null, thresholds, "Running",
                (succeeded + failed) + " of " + runners + " runner(s) finished" + (stage == null ? "" : " (stage " + stage + ")"));
    }

    static boolean isFailed(JobStatus s) {
        return (s.getFailed() != null && s.getFailed() > 0) || hasCondition(s, "Failed");
    }

    static boolean isSucceeded(JobStatus s) {
        return (s.getSucceeded() != null && s.getSucceeded() > 0) || hasCondition(s, "Complete");
    }

    private static boolean hasCondition(JobStatus s, String type) {
        if (s.getConditions() == null) {
            return false;
        }
        for (JobCondition c : s.getConditions()) {
            if (type.equals(c.getType()) && "True".equals(c.getStatus())) {
                return true;
            }
        }
        return false;
    }

    private static String conditionTime(JobStatus s, String type) {
        if (s.getConditions() != null) {
            for (JobCondition c : s.getConditions()) {
                if (type.equals(c.getType()) && "True".equals(c.getStatus())) {
                    return c.getLastTransitionTime();
                }
            }
        }
        return null;
    }

    private static boolean exitedWith(List<Pod> pods, int code) {
        for (ContainerStateTerminated t : terminated(pods)) {
            if (t.getExitCode() != null && t.getExitCode() == code) {
                return true;
            }
        }
        return false;
    }

    /** Runners whose termination message is k6's summary saying every threshold held. */
    static int passedSummaries(List<Pod> pods) {
        int n = 0;
        for (ContainerStateTerminated t : terminated(pods)) {
            if (t.getExitCode() != null && t.getExitCode() == 0 && t.getMessage() != null && !t.getMessage().isBlank()) {
                try {
                    if (JSON.readTree(t.getMessage()).path("passed").asBoolean(false)) {
                        n++;
                    }
                } catch (Exception e) {
                    // Not k6's summary: no proof.
                }
            }
        }
        return n;
    }

    /** Union of the thresholds each runner reported failed ({"passed":false,"failed":[...]} in its termination message). */
    static List<String> failedThresholds(List<Pod> pods) {
        TreeSet<String> all = new TreeSet<>();
        for (ContainerStateTerminated t : terminated(pods)) {
            String msg = t.getMessage();
            if (msg == null || msg.isBlank()) {
                continue;
            }
            try {
                JsonNode failed = JSON.readTree(msg).path("failed");
                failed.forEach(n -> all.add(n.asText()));
            } catch (Exception e) {
                // Not ours (e.g. a crash message): it is not a threshold list; the reason says so.
            }
        }
        return new ArrayList<>(all);
    }

    private static List<ContainerStateTerminated> terminated(List<Pod> pods) {
        List<ContainerStateTerminated> out = new ArrayList<>();
        for (Pod p : pods) {
            if (p.getStatus() == null || p.getStatus().getContainerStatuses() == null) {
                continue;
            }
            for (ContainerStatus cs : p.getStatus().getContainerStatuses()) {
                if (cs.getState() != null && cs.getState().getTerminated() != null) {
                    out.add(cs.getState().getTerminated());
                }
            }
        }
        return out;
    }

    // RFC 3339 timestamps in UTC from the API server compare as strings.
    private static String earliest(String a, String b) {
        return a == null ? b : b == null ? a : a.compareTo(b) <= 0 ? a : b;
    }

    private static String latest(String a, String b) {
        return a == null ? b : b == null ? a : a.compareTo(b) >= 0 ? a : b;
    }
}
