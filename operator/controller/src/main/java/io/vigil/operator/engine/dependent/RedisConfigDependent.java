package io.vigil.operator.engine.dependent;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.javaoperatorsdk.operator.api.config.informer.Informer;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.CRUDKubernetesDependentResource;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.KubernetesDependent;
import io.vigil.operator.api.v1alpha1.FraudEngine;
import io.vigil.operator.engine.Names;
import io.vigil.operator.engine.desired.VelocityStore;

/** The managed Redis's durability and memory settings (AOF, maxmemory, noeviction; ADR 0011). */
@KubernetesDependent(informer = @Informer(labelSelector = Names.MANAGED_SELECTOR + ",app.kubernetes.io/component=redis"))
public class RedisConfigDependent extends CRUDKubernetesDependentResource<ConfigMap, FraudEngine> {
    public RedisConfigDependent() {
        super(ConfigMap.class);
    }

    @Override
    protected ConfigMap desired(FraudEngine fe, Context<FraudEngine> context) {
        return VelocityStore.config(fe);
    }
}
