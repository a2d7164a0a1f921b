package io.vigil.operator.engine.dependent;

import io.javaoperatorsdk.operator.api.config.informer.Informer;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.CRUDKubernetesDependentResource;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.KubernetesDependent;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler;
import io.vigil.operator.api.v1alpha1.FraudEngine;
import io.vigil.operator.engine.Names;
import io.vigil.operator.engine.desired.*;

/** CPU autoscaling of the engine, only when spec.engine.autoscaling is set. */
@KubernetesDependent(informer = @Informer(labelSelector = Names.MANAGED_SELECTOR + ",app.kubernetes.io/component=engine"))
public class EngineAutoscalerDependent extends CRUDKubernetesDependentResource<HorizontalPodAutoscaler, FraudEngine> {
    public EngineAutoscalerDependent() {
        super(HorizontalPodAutoscaler.class);
    }

    @Override
    protected HorizontalPodAutoscaler desired(FraudEngine fe, Context<FraudEngine> context) {
        return EngineWorkload.horizontalPodAutoscaler(fe);
    }
}
