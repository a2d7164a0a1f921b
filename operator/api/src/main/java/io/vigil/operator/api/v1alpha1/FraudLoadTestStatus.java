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
    public List<Condition> conditions = new ArrayList<>();
}
