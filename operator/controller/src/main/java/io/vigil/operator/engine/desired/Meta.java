package io.vigil.operator.engine.desired;

import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.vigil.operator.api.v1alpha1.FraudEngine;
import io.vigil.operator.engine.Names;

/** Metadata shared by every owned object: namespace, labels, and the controller owner reference. */
final class Meta {
    private Meta() {
    }

    static ObjectMeta of(FraudEngine fe, String name, String component) {
        return new ObjectMetaBuilder()
                .withName(name)
                .withNamespace(fe.getMetadata().getNamespace())
                .withLabels(Names.labels(fe, component))
                .withOwnerReferences(owner(fe))
                .build();
    }

    static OwnerReference owner(FraudEngine fe) {
        return new OwnerReferenceBuilder()
                .withApiVersion(fe.getApiVersion())
                .withKind(fe.getKind())
                .withName(fe.getMetadata().getName())
                .withUid(fe.getMetadata().getUid())
                .withController(true)
                .withBlockOwnerDeletion(true)
                .build();
    }
}
