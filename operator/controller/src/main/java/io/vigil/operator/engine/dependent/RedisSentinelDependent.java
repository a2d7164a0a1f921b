package io.vigil.operator.engine.dependent;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.javaoperatorsdk.operator.api.config.informer.Informer;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.processing.GroupVersionKind;
import io.javaoperatorsdk.operator.processing.dependent.Creator;
import io.javaoperatorsdk.operator.processing.dependent.Updater;
import io.javaoperatorsdk.operator.api.reconciler.dependent.GarbageCollected;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.KubernetesDependent;
import io.vigil.operator.api.v1alpha1.FraudEngine;
import io.vigil.operator.engine.Names;
import io.vigil.operator.engine.desired.*;

/** redis-operator RedisSentinel watching the RedisReplication. No Java model exists for this CRD, hence a generic resource. */
@KubernetesDependent(informer = @Informer(labelSelector = Names.MANAGED_SELECTOR + ",app.kubernetes.io/component=redis"))
public class RedisSentinelDependent extends OwnKindGenericDependent
        implements Creator<GenericKubernetesResource, FraudEngine>, Updater<GenericKubernetesResource, FraudEngine>,
        GarbageCollected<FraudEngine> {

    public static final GroupVersionKind GVK = new GroupVersionKind("redis.redis.opstreelabs.in", "v1beta2", "RedisSentinel");

    public RedisSentinelDependent() {
        super(GVK);
    }

    @Override
    protected GenericKubernetesResource desired(FraudEngine fe, Context<FraudEngine> context) {
        return VelocityStore.sentinel(fe);
    }
}
