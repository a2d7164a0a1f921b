package io.vigil.operator.engine.dependent;

import io.javaoperatorsdk.operator.api.config.informer.Informer;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.CRUDKubernetesDependentResource;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.KubernetesDependent;
import io.fabric8.openshift.api.model.monitoring.v1.ServiceMonitor;
import io.vigil.operator.api.v1alpha1.FraudEngine;
import io.vigil.operator.engine.Names;
import io.vigil.operator.engine.desired.*;

/** prometheus-operator ServiceMonitor for engine and relay metrics. */
@KubernetesDependent(informer = @Informer(labelSelector = Names.MANAGED_SELECTOR + ",app.kubernetes.io/component=monitoring"))
public class ServiceMonitorDependent extends CRUDKubernetesDependentResource<ServiceMonitor, FraudEngine> {
    public ServiceMonitorDependent() {
        super(ServiceMonitor.class);
    }

    @Override
    protected ServiceMonitor desired(FraudEngine fe, Context<FraudEngine> context) {
        return Monitoring.serviceMonitor(fe);
    }
}
