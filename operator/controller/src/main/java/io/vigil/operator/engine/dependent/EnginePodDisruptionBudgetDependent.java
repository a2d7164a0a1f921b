package io.vigil.operator.engine.dependent;

import io.javaoperatorsdk.operator.api.config.informer.Informer;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.CRUDKubernetesDependentResource;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.KubernetesDependent;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.vigil.operator.api.v1alpha1.FraudEngine;
import io.vigil.operator.engine.Names;
import io.vigil.operator.engine.desired.*;

/** At most one engine pod voluntarily disrupted at a time. */
@KubernetesDependent(informer = @Informer(labelSelector = Names.MANAGED_SELECTOR + ",app.kubernetes.io/component=engine"))
public class EnginePodDisruptionBudgetDependent extends CRUDKubernetesDependentResource<PodDisruptionBudget, FraudEngine> {
    public EnginePodDisruptionBudgetDependent() {
        super(PodDisruptionBudget.class);
    }

    @Override
    protected PodDisruptionBudget desired(FraudEngine fe, Context<FraudEngine> context) {
        return EngineWorkload.podDisruptionBudget(fe);
    }
}
