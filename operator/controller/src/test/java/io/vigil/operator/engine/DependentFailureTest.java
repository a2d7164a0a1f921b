package io.vigil.operator.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.javaoperatorsdk.operator.AggregatedOperatorException;
import java.util.Map;
import org.junit.jupiter.api.Test;

class DependentFailureTest {

    static KubernetesClientException refused(int code, String reason, String message) {
        return new KubernetesClientException(new StatusBuilder().withCode(code).withReason(reason).withMessage(message).build());
    }

    @Test
    void theApiServersAnswerIsFoundUnderTheSdksWrapping() {
        var wrapped = new IllegalStateException("reconcile failed", new RuntimeException("apply", refused(422, "Invalid",
                "ScaledObject.keda.sh \"x\" is invalid: spec.maxReplicaCount: Invalid value: 0")));
        assertThat(DependentFailure.message(wrapped))
                .isEqualTo("422 Invalid: ScaledObject.keda.sh \"x\" is invalid: spec.maxReplicaCount: Invalid value: 0");
    }

    @Test
    void aClientExceptionWithoutStatusKeepsItsCodeAndFirstLine() {
        var e = new KubernetesClientException("Failure executing: PATCH at: https://127.0.0.1/apis/x\nMessage: long dump", 404, null);
        assertThat(DependentFailure.message(e)).isEqualTo("404: Failure executing: PATCH at: https://127.0.0.1/apis/x");
    }

    @Test
    void otherErrorsGiveTheirInnermostCauseAndLongMessagesAreCut() {
        assertThat(DependentFailure.message(new RuntimeException("outer", new IllegalArgumentException("bad plan"))))
                .isEqualTo("IllegalArgumentException: bad plan");
        assertThat(DependentFailure.message(new RuntimeException("x".repeat(1000)))).hasSize(DependentFailure.MAX_MESSAGE + 3).endsWith("...");
    }

    @Test
    void theAggregatedWorkflowErrorGivesOneFailurePerDependentSortedByName() {
        var aggregated = new AggregatedOperatorException("Exception(s) during workflow execution.", Map.of(
                "servicemonitor", refused(404, "NotFound", "the server could not find the requested resource"),
                "engine-pdb", refused(403, "Forbidden", "poddisruptionbudgets.policy is forbidden: User \"op\" cannot patch")));
        assertThat(DependentFailure.of(aggregated)).extracting(DependentFailure::describe).containsExactly(
                "engine-pdb: 403 Forbidden: poddisruptionbudgets.policy is forbidden: User \"op\" cannot patch",
                "servicemonitor: 404 NotFound: the server could not find the requested resource");
    }
}
