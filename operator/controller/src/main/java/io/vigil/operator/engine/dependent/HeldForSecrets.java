package io.vigil.operator.engine.dependent;

import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.vigil.operator.api.v1alpha1.FraudEngine;
import io.vigil.operator.engine.Plans;

/**
 * While a Secret the engine pods mount is missing or unusable (status {@code SecretsValid=False}), the
 * engine Deployment and its ruleset ConfigMaps are left as they are: no new pod would start with it
 * (it waits for the volume, or crash-loops on the content) and the pods already serving keep their
 * configuration and the ConfigMaps they mount. A Deployment not created yet is not created.
 */
final class HeldForSecrets {
    private HeldForSecrets() {
    }

    static boolean held(FraudEngine fe, Context<FraudEngine> context) {
        return !Plans.of(fe, context).secretsUsable();
    }
}
