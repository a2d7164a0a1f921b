package io.vigil.operator.engine.dependent;

import io.javaoperatorsdk.operator.api.config.informer.Informer;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.CRUDKubernetesDependentResource;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.KubernetesDependent;
import io.strimzi.api.kafka.model.kafka.Kafka;
import io.vigil.operator.api.v1alpha1.FraudEngine;
import io.vigil.operator.engine.Names;
import io.vigil.operator.engine.desired.*;

/** Strimzi Kafka (KRaft, node pools), only when spec.durability.kafka is managed. */
@KubernetesDependent(informer = @Informer(labelSelector = Names.MANAGED_SELECTOR + ",app.kubernetes.io/component=kafka"))
public class KafkaDependent extends CRUDKubernetesDependentResource<Kafka, FraudEngine> {
    public KafkaDependent() {
        super(Kafka.class);
    }

    @Override
    protected Kafka desired(FraudEngine fe, Context<FraudEngine> context) {
        return KafkaCluster.kafka(fe);
    }
}
