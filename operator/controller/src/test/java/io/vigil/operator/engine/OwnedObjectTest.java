package io.vigil.operator.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.javaoperatorsdk.operator.api.reconciler.Workflow;
import io.javaoperatorsdk.operator.api.reconciler.dependent.Dependent;
import io.vigil.operator.engine.dependent.Conditions;
import io.vigil.operator.engine.desired.OwnedObject;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/**
 * The {@code @Workflow} annotation lists the dependent classes (the SDK needs them statically); the
 * {@link OwnedObject} table says everything else. They must name the same objects in the same order,
 * with the CRD condition exactly where the table has a CRD and the spec condition where it is optional.
 */
class OwnedObjectTest {

    @Test
    void theWorkflowAndTheTableAgree() {
        Dependent[] dependents = FraudEngineReconciler.class.getAnnotation(Workflow.class).dependents();
        assertThat(Arrays.stream(dependents).map(Dependent::name))
                .containsExactly(Arrays.stream(OwnedObject.values()).map(o -> o.dependentName).toArray(String[]::new));
        for (Dependent d : dependents) {
            OwnedObject o = OwnedObject.named(d.name());
            assertThat(d.activationCondition() == Conditions.CrdInstalled.class).as("%s: CRD condition", d.name())
                    .isEqualTo(o.crd != null);
            assertThat(d.reconcilePrecondition() == Conditions.WantedBySpec.class).as("%s: spec condition", d.name())
                    .isEqualTo(!o.always());
        }
    }
}
