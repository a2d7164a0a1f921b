package io.vigil.operator.engine;

import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.strimzi.api.kafka.model.kafka.Kafka;
import io.vigil.operator.support.OptionalCrds;
import java.util.List;
import java.util.Set;

/**
 * What the cluster looked like after the dependents were reconciled: the inputs of the status besides
 * the spec and the plan.
 *
 * @param missingCrds    optional CRDs this FraudEngine needs and the cluster lacks
 * @param redisPresent   the managed Redis objects exist
 * @param errors         dependents that failed, as "name: message"
 */
public record Observed(Deployment engine, Deployment relay, Kafka kafka, boolean redisPresent,
                       Set<OptionalCrds.Crd> missingCrds, List<String> errors) {
}
