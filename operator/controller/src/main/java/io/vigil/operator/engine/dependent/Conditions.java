package io.vigil.operator.engine.dependent;

import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.dependent.DependentResource;
import io.javaoperatorsdk.operator.processing.dependent.workflow.Condition;
import io.vigil.operator.api.v1alpha1.FraudEngine;
import io.vigil.operator.engine.desired.OwnedObject;
import io.vigil.operator.support.OptionalCrds;

/**
 * Workflow conditions, read from the {@link OwnedObject} row of the dependent they guard (by its
 * workflow name). The activation condition ("is its CRD installed?") keeps the operator from watching
 * kinds the cluster does not have; the reconcile precondition ("does the spec want it?") deletes what
 * the spec no longer asks for.
 */
public final class Conditions {
    private Conditions() {
    }

    public static class CrdInstalled implements Condition<Object, FraudEngine> {
        @Override
        public boolean isMet(DependentResource<Object, FraudEngine> dependent, FraudEngine fe, Context<FraudEngine> context) {
            return OptionalCrds.present(context.getClient(), OwnedObject.named(dependent.name()).crd);
        }
    }

    public static class WantedBySpec implements Condition<Object, FraudEngine> {
        @Override
        public boolean isMet(DependentResource<Object, FraudEngine> dependent, FraudEngine fe, Context<FraudEngine> context) {
            return OwnedObject.named(dependent.name()).wanted(fe);
        }
    }
}
