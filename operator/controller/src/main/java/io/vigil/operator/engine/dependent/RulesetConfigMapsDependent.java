package io.vigil.operator.engine.dependent;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.javaoperatorsdk.operator.api.config.informer.Informer;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.dependent.ReconcileResult;
import io.javaoperatorsdk.operator.processing.dependent.CRUDBulkDependentResource;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.CRUDKubernetesDependentResource;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.KubernetesDependent;
import io.vigil.operator.api.v1alpha1.FraudEngine;
import io.vigil.operator.engine.Names;
import io.vigil.operator.engine.Plans;
import io.vigil.operator.engine.desired.EngineWorkload;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * The immutable, content-named ruleset ConfigMaps: one per served ruleset version. A bulk dependent, so
 * ConfigMaps of versions no longer served are deleted once the new ones exist. Held as they are, like the
 * engine Deployment that mounts them, while a Secret the engine mounts is unusable ({@link HeldForSecrets}).
 */
@KubernetesDependent(informer = @Informer(labelSelector = Names.MANAGED_SELECTOR + ",app.kubernetes.io/component=" + Names.RULESET))
public class RulesetConfigMapsDependent extends CRUDKubernetesDependentResource<ConfigMap, FraudEngine>
        implements CRUDBulkDependentResource<ConfigMap, FraudEngine> {

    public RulesetConfigMapsDependent() {
        super(ConfigMap.class);
    }

    @Override
    public ReconcileResult<ConfigMap> reconcile(FraudEngine fe, Context<FraudEngine> context) {
        return HeldForSecrets.held(fe, context) ? ReconcileResult.noOperation(null) : super.reconcile(fe, context);
    }

    @Override
    public Map<String, ConfigMap> desiredResources(FraudEngine fe, Context<FraudEngine> context) {
        return EngineWorkload.rulesetConfigMaps(Plans.of(fe, context));
    }

    @Override
    public Map<String, ConfigMap> getSecondaryResources(FraudEngine fe, Context<FraudEngine> context) {
        return context.getSecondaryResourcesAsStream(ConfigMap.class)
                .filter(cm -> Names.RULESET.equals(cm.getMetadata().getLabels().get(Names.LABEL_COMPONENT)))
                .filter(cm -> fe.getMetadata().getName().equals(cm.getMetadata().getLabels().get(Names.LABEL_INSTANCE)))
                .collect(Collectors.toMap(cm -> cm.getMetadata().getName(), cm -> cm, (a, b) -> a));
    }
}
