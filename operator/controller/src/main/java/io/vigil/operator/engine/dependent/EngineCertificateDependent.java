package io.vigil.operator.engine.dependent;

import io.fabric8.certmanager.api.model.v1.Certificate;
import io.javaoperatorsdk.operator.api.config.informer.Informer;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.CRUDKubernetesDependentResource;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.KubernetesDependent;
import io.vigil.operator.api.v1alpha1.FraudEngine;
import io.vigil.operator.engine.Names;
import io.vigil.operator.engine.desired.EngineCallerAuth;

/**
 * cert-manager Certificate of the engine's serving certificate (spec.auth.tls.issuerRef): cert-manager
 * writes the Secret the engine pods mount. Typed (fabric8's cert-manager model), so the kind needs no
 * API discovery while cert-manager's CRD is missing.
 */
@KubernetesDependent(informer = @Informer(labelSelector = Names.MANAGED_SELECTOR + ",app.kubernetes.io/component=" + Names.ENGINE))
public class EngineCertificateDependent extends CRUDKubernetesDependentResource<Certificate, FraudEngine> {
    public EngineCertificateDependent() {
        super(Certificate.class);
    }

    @Override
    protected Certificate desired(FraudEngine fe, Context<FraudEngine> context) {
        return EngineCallerAuth.certificate(fe);
    }
}
