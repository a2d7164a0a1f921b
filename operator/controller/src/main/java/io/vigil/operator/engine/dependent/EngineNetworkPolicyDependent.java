package io.vigil.operator.engine.dependent;

import io.javaoperatorsdk.operator.api.config.informer.Informer;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.CRUDKubernetesDependentResource;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.KubernetesDependent;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.vigil.operator.api.v1alpha1.FraudEngine;
import io.vigil.operator.engine.Names;
import io.vigil.operator.engine.desired.*;

/** Who may reach the engine pods, and what they may reach (NetworkPolicies.engine). */
@KubernetesDependent(informer = @Informer(labelSelector = Names.MANAGED_SELECTOR + ",app.kubernetes.io/component=engine"))
public class EngineNetworkPolicyDependent extends CRUDKubernetesDependentResource<NetworkPolicy, FraudEngine> {
    public EngineNetworkPolicyDependent() {
        super(NetworkPolicy.class);
    }

    @Override
    protected NetworkPolicy desired(FraudEngine fe, Context<FraudEngine> context) {
        return NetworkPolicies.engine(fe);
    }
}
