package io.vigil.operator.loadtest;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.JobBuilder;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The verdict from runner Job statuses: succeeded, failed, mixed, still running, error, and Jobs gone. */
class RunVerdictTest {

    static Job succeeded(String name, String start, String end) {
        return new JobBuilder().withNewMetadata().withName(name).endMetadata()
                .withNewStatus().withStartTime(start).withCompletionTime(end).withSucceeded(1)
                .addNewCondition().withType("Complete").withStatus("True").withLastTransitionTime(end).endCondition()
                .endStatus().build();
    }

    static Job failed(String name, String start, String end) {
        return new JobBuilder().withNewMetadata().withName(name).endMetadata()
                .withNewStatus().withStartTime(start).withFailed(1)
                .addNewCondition().withType("Failed").withStatus("True").withReason("BackoffLimitExceeded")
                .withLastTransitionTime(end).endCondition()
                .endStatus().build();
    }

    static Job running(String name, String start) {
        return new JobBuilder().withNewMetadata().withName(name).endMetadata()
                .withNewStatus().withStartTime(start).withActive(1).endStatus().build();
    }

    static Pod terminated(String name, int exitCode, String message) {
        return new PodBuilder().withNewMetadata().withName(name).endMetadata()
                .withNewStatus().addNewContainerStatus().withName("k6").withNewState().withNewTerminated()
                .withExitCode(exitCode).withMessage(message).endTerminated().endState().endContainerStatus().endStatus()
                .build();
    }

    @Test
    void allRunnersSucceededIsPassedWithTheRunWindow() {
        RunVerdict v = RunVerdict.of("finished", 2,
                List.of(succeeded("r-1", "2026-01-01T10:00:02Z", "2026-01-01T10:05:03Z"),
                        succeeded("r-2", "2026-01-01T10:00:01Z", "2026-01-01T10:05:04Z")),
                List.of(terminated("r-1-x", 0, "{\"passed\":true,\"failed\":[]}"), terminated("r-2-x", 0, "{\"passed\":true,\"failed\":[]}")));
        assertThat(v.verdict()).isEqualTo(RunVerdict.PASSED);
        assertThat(v.succeeded()).isEqualTo(2);
        assertThat(v.failed()).isZero();
        assertThat(v.startedAt()).isEqualTo("2026-01-01T10:00:01Z");
        assertThat(v.finishedAt()).isEqualTo("2026-01-01T10:05:04Z");
        assertThat(v.failedThresholds()).isEmpty();
    }

    @Test
    void aFailedRunnerIsFailedWithTheThresholdsItReported() {
        RunVerdict v = RunVerdict.of("finished", 1,
                List.of(failed("r-1", "2026-01-01T10:00:00Z", "2026-01-01T10:05:00Z")),
                List.of(terminated("r-1-x", 99,
                        "{\"passed\":false,\"failed\":[\"http_req_duration: p(99)<=5\",\"vigil_normal: rate>=0.999\"]}")));
        assertThat(v.verdict()).isEqualTo(RunVerdict.FAILED);
        assertThat(v.reason()).isEqualTo("ThresholdsFailed");
        assertThat(v.failedThresholds()).containsExactly("http_req_duration: p(99)<=5", "vigil_normal: rate>=0.999");
        assertThat(v.finishedAt()).isEqualTo("2026-01-01T10:05:00Z");
        assertThat(v.message()).contains("1 of 1 runner(s) failed").contains("p(99)<=5");
    }

    @Test
    void mixedRunnersAreFailedOnceAllFinishedAndTheThresholdsAreMerged() {
        List<Job> jobs = List.of(succeeded("r-1", "2026-01-01T10:00:00Z", "2026-01-01T10:05:00Z"),
                failed("r-2", "2026-01-01T10:00:00Z", "2026-01-01T10:05:01Z"),
                failed("r-3", "2026-01-01T10:00:00Z", "2026-01-01T10:05:02Z"));
        List<Pod> pods = List.of(terminated("r-1-x", 0, "{\"passed\":true,\"failed\":[]}"),
                terminated("r-2-x", 99, "{\"passed\":false,\"failed\":[\"http_req_duration: p(99)<=5\"]}"),
                terminated("r-3-x", 99, "{\"passed\":false,\"failed\":[\"http_req_duration: p(99)<=5\",\"checks: rate>=0.999\"]}"));
        RunVerdict v = RunVerdict.of("finished", 3, jobs, pods);
        assertThat(v.verdict()).isEqualTo(RunVerdict.FAILED);
        assertThat(v.succeeded()).isEqualTo(1);
        assertThat(v.failed()).isEqualTo(2);
        assertThat(v.failedThresholds()).containsExactly("checks: rate>=0.999", "http_req_duration: p(99)<=5");
        assertThat(v.message()).startsWith("2 of 3 runner(s) failed");
    }

    @Test
    void aRunnerThatCrashedIsFailedButNotBlamedOnThresholds() {
        RunVerdict v = RunVerdict.of("finished", 1, List.of(failed("r-1", "2026-01-01T10:00:00Z", "2026-01-01T10:00:03Z")),
                List.of(terminated("r-1-x", 107, "GoError: engine not reachable")));
        assertThat(v.verdict()).isEqualTo(RunVerdict.FAILED);
        assertThat(v.reason()).isEqualTo("RunnerFailed");
        assertThat(v.failedThresholds()).isEmpty();
    }

    @Test
    void noVerdictWhileRunnersAreStillGoingEvenIfOneSucceeded() {
        RunVerdict v = RunVerdict.of("started", 2,
                List.of(succeeded("r-1", "2026-01-01T10:00:00Z", "2026-01-01T10:05:00Z"), running("r-2", "2026-01-01T10:00:00Z")),
                List.of());
        assertThat(v.decided()).isFalse();
        assertThat(v.finishedAt()).isNull();
        assertThat(v.message()).isEqualTo("1 of 2 runner(s) finished (stage started)");

        RunVerdict notYetCreated = RunVerdict.of("initialization", 2, List.of(), List.of());
        assertThat(notYetCreated.decided()).isFalse();
        assertThat(notYetCreated.runners()).isEqualTo(2);
    }

    @Test
    void finishedIsNotPassedWhenTheRunnerJobsAreGone() {
        RunVerdict v = RunVerdict.of("finished", 2, List.of(succeeded("r-1", "2026-01-01T10:00:00Z", "2026-01-01T10:05:00Z")),
                List.of());
        assertThat(v.verdict()).isEqualTo(RunVerdict.FAILED);
        assertThat(v.reason()).isEqualTo("RunnerJobsMissing");
    }

    @Test
    void succeededRunnersWithoutK6sSummaryAreNotAPass() {
        List<Job> jobs = List.of(succeeded("r-1", "2026-01-01T10:00:00Z", "2026-01-01T10:05:00Z"),
                succeeded("r-2", "2026-01-01T10:00:00Z", "2026-01-01T10:05:00Z"));
        // A kwok-simulated runner: the Job succeeds, no container ran, no termination message.
        RunVerdict simulated = RunVerdict.of("finished", 2, jobs, List.of());
        assertThat(simulated.verdict()).isEqualTo(RunVerdict.FAILED);
        assertThat(simulated.reason()).isEqualTo("RunnerResultsMissing");
        assertThat(simulated.message()).startsWith("only 0 of 2 runner(s) left k6's summary");

        RunVerdict oneProven = RunVerdict.of("finished", 2, jobs,
                List.of(terminated("r-1-x", 0, "{\"passed\":true,\"failed\":[]}"), terminated("r-2-x", 0, "not k6's summary")));
        assertThat(oneProven.verdict()).isEqualTo(RunVerdict.FAILED);
        assertThat(oneProven.message()).startsWith("only 1 of 2 runner(s)");
    }

    @Test
    void stageErrorIsFailed() {
        RunVerdict v = RunVerdict.of("error", 1, List.of(), List.of());
        assertThat(v.verdict()).isEqualTo(RunVerdict.FAILED);
        assertThat(v.reason()).isEqualTo("TestRunError");
    }
}
