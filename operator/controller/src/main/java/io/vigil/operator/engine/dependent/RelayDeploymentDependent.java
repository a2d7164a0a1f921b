package io.vigil.operator.engine.dependent;

import io.javaoperatorsdk.operator.api.config.informer.Informer;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.CRUDKubernetesDependentResource;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.KubernetesDependent;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.vigil.operator.api.v1alpha1.FraudEngine;
import io.vigil.operator.engine.Names;
import io.vigil.operator.engine.desired.*;

/** The relay Deployment; spec.replicas is left to KEDA's HPA. */
@KubernetesDependent(informer = @Informer(labelSelector = Names.MANAGED_SELECTOR + ",app.kubernetes.io/component=relay"))
public class RelayDeploymentDependent extends CRUDKubernetesDependentResource<Deployment, FraudEngine> {
    public RelayDeploymentDependent() {
        super(Deployment.class);
    }

    @Override
    protected Deployment desired(FraudEngine fe, Context<FraudEngine> context) {
        return RelayWorkload.deployment(fe);
    }
}
