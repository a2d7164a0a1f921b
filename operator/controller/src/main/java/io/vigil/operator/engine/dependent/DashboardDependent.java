package io.vigil.operator.engine.dependent;

import io.javaoperatorsdk.operator.api.config.informer.Informer;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.CRUDKubernetesDependentResource;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.KubernetesDependent;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.vigil.operator.api.v1alpha1.FraudEngine;
import io.vigil.operator.engine.Names;
import io.vigil.operator.engine.desired.*;

/** Grafana dashboard ConfigMap (grafana_dashboard: "1"). */
@KubernetesDependent(informer = @Informer(labelSelector = Names.MANAGED_SELECTOR + ",app.kubernetes.io/component=monitoring"))
public class DashboardDependent extends CRUDKubernetesDependentResource<ConfigMap, FraudEngine> {
    public DashboardDependent() {
        super(ConfigMap.class);
    }

    @Override
    protected ConfigMap desired(FraudEngine fe, Context<FraudEngine> context) {
        return Monitoring.dashboard(fe);
    }
}
