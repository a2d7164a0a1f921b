package io.vigil.operator.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.ContainerStatusBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.vigil.operator.Fixtures;
import io.vigil.operator.api.v1alpha1.FraudEngine;
import io.vigil.operator.api.v1alpha1.FraudEngineStatus;
import java.util.EnumSet;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Why engine and relay pods do not start, as the status names it (from the pods' container statuses). */
class PodTroubleTest {

    static Pod pod(String name, io.fabric8.kubernetes.api.model.ContainerStatus status) {
        return new PodBuilder().withNewMetadata().withName(name).endMetadata()
                .withNewStatus().withPhase("Pending").withContainerStatuses(status).endStatus().build();
    }

    static Pod imagePullBackOff(String name) {
        return pod(name, new ContainerStatusBuilder().withName("engine").withImage("localhost/vigil/engine:missing")
                .withReady(false).withRestartCount(0)
                .withNewState().withNewWaiting().withReason("ImagePullBackOff")
                .withMessage("Back-off pulling image \"localhost/vigil/engine:missing\"").endWaiting().endState().build());
    }

    static Pod crashLooping(String name, String message) {
        return pod(name, new ContainerStatusBuilder().withName("engine").withImage("localhost/vigil/engine:0.1.0")
                .withReady(false).withRestartCount(3)
                .withNewState().withNewWaiting().withReason("CrashLoopBackOff").withMessage("back-off 40s").endWaiting().endState()
                .withNewLastState().withNewTerminated().withExitCode(1).withReason("Error").withMessage(message).endTerminated().endLastState()
                .build());
    }

    @Test
    void anImageThatCannotBePulledIsNamed() {
        var trouble = PodTrouble.of(List.of(imagePullBackOff("vigil-engine-abc"))).orElseThrow();
        assertThat(trouble.reason()).isEqualTo(PodTrouble.IMAGE_PULL_FAILED);
        assertThat(trouble.message()).contains("pod vigil-engine-abc", "container engine", "localhost/vigil/engine:missing", "ImagePullBackOff");
    }

    @Test
    void aCrashLoopShowsTheLastTerminationMessageOnOneLine() {
        var trouble = PodTrouble.of(List.of(crashLooping("vigil-engine-abc",
                "Unrecognized VM option 'Bogus'\nError: Could not create the Java Virual Machine.\n"))).orElseThrow();
        assertThat(trouble.reason()).isEqualTo(PodTrouble.CRASH_LOOPING);
        assertThat(trouble.message()).contains("restarted 3 times", "last exit code 1 (Error)",
                "Unrecognized VM option 'Bogus' | Error: Could not create");
    }

    @Test
    void aLongTerminationMessageKeepsItsEnd() {
        String log = "x".repeat(5000) + "the cause";
        var trouble = PodTrouble.of(List.of(crashLooping("p", log))).orElseThrow();
        assertThat(trouble.message()).endsWith("the cause").hasSizeLessThan(PodTrouble.MAX_TERMINATION_MESSAGE + 200);
    }

    @Test
    void anImageProblemComesBeforeACrashLoopAndHealthyPodsHaveNone() {
        assertThat(PodTrouble.of(List.of(crashLooping("a", "boom"), imagePullBackOff("b"))).orElseThrow().reason())
                .isEqualTo(PodTrouble.IMAGE_PULL_FAILED);
        Pod running = pod("ok", new ContainerStatusBuilder().withName("engine").withReady(true).withRestartCount(0)
                .withNewState().withNewRunning().endRunning().endState().build());
        assertThat(PodTrouble.of(List.of(running))).isEmpty();
        assertThat(PodTrouble.of(List.of())).isEmpty();
    }

    @Test
    void anUnschedulablePodSaysWhy() {
        Pod pending = new PodBuilder().withNewMetadata().withName("p").endMetadata().withNewStatus().withPhase("Pending")
                .addNewCondition().withType("PodScheduled").withStatus("False").withReason("Unschedulable")
                .withMessage("0/4 nodes are available: 4 node(s) didn't match Pod's node affinity/selector.").endCondition()
                .endStatus().build();
        var trouble = PodTrouble.of(List.of(pending)).orElseThrow();
        assertThat(trouble.reason()).isEqualTo(PodTrouble.UNSCHEDULABLE);
        assertThat(trouble.message()).contains("pod p cannot be scheduled", "didn't match");
    }

    @Test
    void readyIsFalseWithThePodsReasonWhenNoEnginePodIsAvailable() {
        FraudEngine fe = Fixtures.sampleEngine();
        EnginePlan plan = EnginePlanner.plan(fe, Fixtures.sampleRulesets(fe.getMetadata().getNamespace()));
        var noneAvailable = StatusAggregatorTest.deployment(2, 0, 2, false);
        FraudEngineStatus status = StatusAggregator.aggregate(plan, new Observed(noneAvailable, StatusAggregatorTest.deployment(1, 1, 1, true),
                null, null, EnumSet.noneOf(io.vigil.operator.support.OptionalCrds.Crd.class), List.of(),
                List.of(imagePullBackOff("vigil-engine-abc")), List.of()), StatusAggregatorTest.T0);
        Condition ready = status.conditions.stream().filter(c -> c.getType().equals(StatusAggregator.READY)).findFirst().orElseThrow();
        assertThat(ready.getStatus()).isEqualTo("False");
        assertThat(ready.getReason()).isEqualTo(PodTrouble.IMAGE_PULL_FAILED);
        assertThat(ready.getMessage()).contains("0 pods available", "localhost/vigil/engine:missing");
    }

    @Test
    void durabilityNamesARelayThatCannotStart() {
        FraudEngine fe = Fixtures.sampleEngine();
        EnginePlan plan = EnginePlanner.plan(fe, Fixtures.sampleRulesets(fe.getMetadata().getNamespace()));
        var relayDown = StatusAggregatorTest.deployment(1, 0, 1, false);
        FraudEngineStatus status = StatusAggregator.aggregate(plan, new Observed(StatusAggregatorTest.deployment(2, 2, 2, true), relayDown,
                null, null, EnumSet.noneOf(io.vigil.operator.support.OptionalCrds.Crd.class), List.of(),
                List.of(), List.of(crashLooping("vigil-relay-x", "Kafka bootstrap failed"))), StatusAggregatorTest.T0);
        Condition durability = status.conditions.stream().filter(c -> c.getType().equals(StatusAggregator.DURABILITY_READY)).findFirst().orElseThrow();
        assertThat(durability.getReason()).isEqualTo("RelayCrashLooping");
        assertThat(durability.getMessage()).contains("vigil-relay-x", "Kafka bootstrap failed");
    }
}
