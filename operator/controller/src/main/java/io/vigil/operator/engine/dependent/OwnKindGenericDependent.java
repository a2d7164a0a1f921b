package io.vigil.operator.engine.dependent;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.processing.GroupVersionKind;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.GenericKubernetesDependentResource;
import io.javaoperatorsdk.operator.processing.event.source.informer.InformerEventSource;
import io.vigil.operator.api.v1alpha1.FraudEngine;
import io.vigil.operator.engine.desired.OwnedObject;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * A generic (no Java model) dependent that only ever treats objects of its own kind as "its" object,
 * and whose event source can be built while its CRD is not installed.
 *
 * <p>The java-operator-sdk looks a dependent's current object up among every secondary resource of
 * the same Java type and matches on name and namespace only. All generic dependents share the type
 * GenericKubernetesResource, and some share a name (RedisReplication and RedisSentinel are both
 * {@code <fe>-redis}, so is the standalone Redis): the standalone Redis dependent, told to delete its
 * object in replication mode, deleted the RedisReplication instead, every reconciliation, and the
 * sentinel dependent compared itself with the RedisReplication. Filtering on apiVersion and kind first
 * keeps each dependent to its own object.
 *
 * <p>The java-operator-sdk (5.1) builds the event source of a dependent with an activation condition
 * on every reconciliation, also when the condition is false (only to deregister it by name). fabric8's
 * {@code genericKubernetesResources(apiVersion, kind)} asks API discovery for the kind's plural and
 * fails ("Could not find the metadata for the given apiVersion and kind") when the CRD is not
 * installed, and it remembers only successful answers: an operator started on a cluster without, say,
 * redis-operator failed every FraudEngine's reconciliation, even one with an external Redis. The kind's
 * definition is known here (its CRD's name holds the plural), so it is given to fabric8 instead of
 * being discovered; the informer itself starts only once the CRD is there (activation condition).
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

    @Override
    protected InformerEventSource<GenericKubernetesResource, FraudEngine> createEventSource(EventSourceContext<FraudEngine> context) {
        return super.createEventSource(new EventSourceContext<>(context.getPrimaryCache(), context.getControllerConfiguration(),
                withoutDiscovery(context.getClient(), definition()), context.getPrimaryResourceClass()));
    }

    /** The kind's definition without asking the API server: the plural is the first label of its CRD's name. */
    ResourceDefinitionContext definition() {
        GroupVersionKind gvk = getGroupVersionKind();
        String crdName = OwnedObject.named(name()).crd.crdName;
        return new ResourceDefinitionContext.Builder()
                .withGroup(gvk.getGroup()).withVersion(gvk.getVersion()).withKind(gvk.getKind())
                .withPlural(crdName.substring(0, crdName.indexOf('.'))).withNamespaced(true).build();
    }

    /**
     * The client with {@code genericKubernetesResources(apiVersion, kind)} answered from the known
     * definition. Only the event source's constructor sees it (it keeps the operation, not the client);
     * fabric8 offers no public way to register a generic kind's definition.
     */
    static KubernetesClient withoutDiscovery(KubernetesClient client, ResourceDefinitionContext definition) {
        return (KubernetesClient) Proxy.newProxyInstance(KubernetesClient.class.getClassLoader(), new Class<?>[]{KubernetesClient.class},
                (proxy, method, args) -> {
                    if (method.getName().equals("genericKubernetesResources") && args != null && args.length == 2
                            && definition.getKind().equals(args[1])) {
                        return client.genericKubernetesResources(definition);
                    }
                    try {
                        return method.invoke(client, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
    }
}
