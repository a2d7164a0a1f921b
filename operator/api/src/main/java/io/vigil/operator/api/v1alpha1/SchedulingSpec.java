package io.vigil.operator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.kubernetes.api.model.Toleration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Placement of the engine and relay pods (both pod templates get the same): e.g. dedicated nodes for the
 * decision path, or the local cluster's real node (label vigil.io/node=real, taint vigil.io/real-node).
 */
@JsonInclude(JsonInclude.Include.NON_EMPTY)
public class SchedulingSpec {

    @JsonPropertyDescription("Node labels the pods require (pod spec nodeSelector).")
    public Map<String, String> nodeSelector = new LinkedHashMap<>();

    @JsonPropertyDescription("Taints the pods tolerate (pod spec tolerations).")
    public List<Toleration> tolerations = new ArrayList<>();
}
