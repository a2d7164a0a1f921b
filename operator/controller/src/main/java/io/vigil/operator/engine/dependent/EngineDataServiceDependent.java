package io.vigil.operator.engine.dependent;

import io.javaoperatorsdk.operator.api.config.informer.Informer;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.CRUDKubernetesDependentResource;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.KubernetesDependent;
import io.fabric8.kubernetes.api.model.Service;
import io.vigil.operator.api.v1alpha1.FraudEngine;
import io.vigil.operator.engine.Names;
import io.vigil.operator.engine.desired.*;

/** Service on the data port (8081) for callers. */
@KubernetesDependent(informer = @Informer(labelSelector = Names.MANAGED_SELECTOR + ",app.kubernetes.io/component=engine"))
public class EngineDataServiceDependent extends CRUDKubernetesDependentResource<Service, FraudEngine> {
    public EngineDataServiceDependent() {
        super(Service.class);
    }

    @Override
    protected Service desired(FraudEngine fe, Context<FraudEngine> context) {
        return EngineWorkload.dataService(fe);
    }
}
