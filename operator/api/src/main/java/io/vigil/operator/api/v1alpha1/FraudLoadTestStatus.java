package io.vigil.operator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.fabric8.kubernetes.api.model.Condition;
import java.util.ArrayList;
import java.util.List;

@JsonInclude(JsonInclude.Include.NON_NULL)
public class FraudLoadTestStatus {
    public Long observedGeneration;
    /** k6-operator TestRun stage: initialization, initialized, created, started, stopped, finished, error. */
    public String stage;
    /** Passed or Failed, read from the runner Jobs once the run finished. */
    public String verdict;
    /** The k6-operator TestRun of this generation (a new generation gets a new TestRun). */
    public String testRun;
    /** When the runners started and when the last one finished (RFC 3339). */
    public String startedAt;
    public String finishedAt;
    /** Runner Jobs: how many the run has, and how many succeeded or failed. */
    public Integer runners;
    public Integer runnersSucceeded;
    public Integer runnersFailed;
    /** Thresholds k6 reported as failed (from the runners' termination messages), when available. */
    public List<String> failedThresholds;
    /** Human-readable state of the run. */
    public String message;
    public List<Condition> conditions = new ArrayList<>();
}
