package io.vigil.operator.engine.dependent;

import io.javaoperatorsdk.operator.api.config.informer.Informer;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.CRUDKubernetesDependentResource;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.KubernetesDependent;
import io.fabric8.openshift.api.model.monitoring.v1.PrometheusRule;
import io.vigil.operator.api.v1alpha1.FraudEngine;
import io.vigil.operator.engine.Names;
import io.vigil.operator.engine.desired.*;

/** SLO recording rules and burn-rate alerts. */
@KubernetesDependent(informer = @Informer(labelSelector = Names.MANAGED_SELECTOR + ",app.kubernetes.io/component=monitoring"))
public class PrometheusRuleDependent extends CRUDKubernetesDependentResource<PrometheusRule, FraudEngine> {
    public PrometheusRuleDependent() {
        super(PrometheusRule.class);
    }

    @Override
    protected PrometheusRule desired(FraudEngine fe, Context<FraudEngine> context) {
        return Monitoring.prometheusRule(fe);
    }
}
