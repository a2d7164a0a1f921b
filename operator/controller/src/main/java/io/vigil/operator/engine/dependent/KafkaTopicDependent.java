package io.vigil.operator.engine.dependent;

import io.javaoperatorsdk.operator.api.config.informer.Informer;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.CRUDKubernetesDependentResource;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.KubernetesDependent;
import io.strimzi.api.kafka.model.topic.KafkaTopic;
import io.vigil.operator.api.v1alpha1.FraudEngine;
import io.vigil.operator.engine.Names;
import io.vigil.operator.engine.desired.*;

/** The decision topic as a Strimzi KafkaTopic. */
@KubernetesDependent(informer = @Informer(labelSelector = Names.MANAGED_SELECTOR + ",app.kubernetes.io/component=kafka"))
public class KafkaTopicDependent extends CRUDKubernetesDependentResource<KafkaTopic, FraudEngine> {
    public KafkaTopicDependent() {
        super(KafkaTopic.class);
    }

    @Override
    protected KafkaTopic desired(FraudEngine fe, Context<FraudEngine> context) {
        return KafkaCluster.topic(fe);
    }
}
