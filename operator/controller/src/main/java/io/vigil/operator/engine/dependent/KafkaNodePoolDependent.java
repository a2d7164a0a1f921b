package io.vigil.operator.engine.dependent;

import io.javaoperatorsdk.operator.api.config.informer.Informer;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.CRUDKubernetesDependentResource;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.KubernetesDependent;
import io.strimzi.api.kafka.model.nodepool.KafkaNodePool;
import io.vigil.operator.api.v1alpha1.FraudEngine;
import io.vigil.operator.engine.Names;
import io.vigil.operator.engine.desired.*;

/** Strimzi KafkaNodePool with broker and controller roles. */
@KubernetesDependent(informer = @Informer(labelSelector = Names.MANAGED_SELECTOR + ",app.kubernetes.io/component=kafka"))
public class KafkaNodePoolDependent extends CRUDKubernetesDependentResource<KafkaNodePool, FraudEngine> {
    public KafkaNodePoolDependent() {
        super(KafkaNodePool.class);
    }

    @Override
    protected KafkaNodePool desired(FraudEngine fe, Context<FraudEngine> context) {
        return KafkaCluster.nodePool(fe);
    }
}
