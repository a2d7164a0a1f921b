package io.vigil.operator.engine.dependent;

import io.javaoperatorsdk.operator.api.config.informer.Informer;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.CRUDKubernetesDependentResource;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.KubernetesDependent;
import io.fabric8.kubernetes.api.model.ServiceAccount;
import io.vigil.operator.api.v1alpha1.FraudEngine;
import io.vigil.operator.engine.Names;
import io.vigil.operator.engine.desired.*;

/** ServiceAccount of engine and relay pods (no API token mounted). */
@KubernetesDependent(informer = @Informer(labelSelector = Names.MANAGED_SELECTOR + ",app.kubernetes.io/component=engine"))
public class EngineServiceAccountDependent extends CRUDKubernetesDependentResource<ServiceAccount, FraudEngine> {
    public EngineServiceAccountDependent() {
        super(ServiceAccount.class);
    }

    @Override
    protected ServiceAccount desired(FraudEngine fe, Context<FraudEngine> context) {
        return EngineWorkload.serviceAccount(fe);
    }
}
