package io.vigil.operator.engine.dependent;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.processing.GroupVersionKind;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.GenericKubernetesDependentResource;
import io.vigil.operator.api.v1alpha1.FraudEngine;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * A generic (no Java model) dependent that only ever treats objects of its own kind as "its" object.
 *
 * <p>The java-operator-sdk looks a dependent's current object up among every secondary resource of
 * the same Java type and matches on name and namespace only. All generic dependents share the type
 * GenericKubernetesResource, and some share a name (RedisReplication and RedisSentinel are both
 * {@code <fe>-redis}, so is the standalone Redis): the standalone Redis dependent, told to delete its
 * object in replication mode, deleted the RedisReplication instead, every reconciliation, and the
 * sentinel dependent compared itself with the RedisReplication. Filtering on apiVersion and kind first
 * keeps each dependent to its own object.
 */
public abstract class OwnKindGenericDependent extends GenericKubernetesDependentResource<FraudEngine> {

    protected OwnKindGenericDependent(GroupVersionKind gvk) {
        super(gvk);
    }

    @Override
    protected Optional<GenericKubernetesResource> selectTargetSecondaryResource(Set<GenericKubernetesResource> secondaries,
                                                                                FraudEngine fe, Context<FraudEngine> context) {
        GroupVersionKind gvk = getGroupVersionKind();
        Set<GenericKubernetesResource> own = secondaries.stream()
                .filter(r -> gvk.getKind().equals(r.getKind()) && gvk.apiVersion().equals(r.getApiVersion()))
                .collect(Collectors.toSet());
        return super.selectTargetSecondaryResource(own, fe, context);
    }
}
