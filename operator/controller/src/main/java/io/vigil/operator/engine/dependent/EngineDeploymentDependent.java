package io.vigil.operator.engine.dependent;

import io.javaoperatorsdk.operator.api.config.informer.Informer;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.dependent.ReconcileResult;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.CRUDKubernetesDependentResource;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.KubernetesDependent;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.vigil.operator.api.v1alpha1.FraudEngine;
import io.vigil.operator.engine.Names;
import io.vigil.operator.engine.desired.*;

/**
 * The engine Deployment; its pod template carries the hash of config and rulesets. Held as it is while a
 * Secret it mounts is unusable ({@link HeldForSecrets}).
 */
@KubernetesDependent(informer = @Informer(labelSelector = Names.MANAGED_SELECTOR + ",app.kubernetes.io/component=engine"))
public class EngineDeploymentDependent extends CRUDKubernetesDependentResource<Deployment, FraudEngine> {
    public EngineDeploymentDependent() {
        super(Deployment.class);
    }

    @Override
    public ReconcileResult<Deployment> reconcile(FraudEngine fe, Context<FraudEngine> context) {
        return HeldForSecrets.held(fe, context) ? ReconcileResult.noOperation(getSecondaryResource(fe, context).orElse(null))
                : super.reconcile(fe, context);
    }

    @Override
    protected Deployment desired(FraudEngine fe, Context<FraudEngine> context) {
        return EngineWorkload.deployment(io.vigil.operator.engine.Plans.of(fe, context));
    }
}
