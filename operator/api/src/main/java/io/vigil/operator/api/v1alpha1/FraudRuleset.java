package io.vigil.operator.api.v1alpha1;

import io.fabric8.crd.generator.annotation.AdditionalPrinterColumn;
import io.fabric8.kubernetes.api.model.Namespaced;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.ShortNames;
import io.fabric8.kubernetes.model.annotation.Version;

/**
 * One version of a ruleset as a Kubernetes object. The operator validates it with the rules library
 * (the same code the engine runs) and reports the outcome in its status; an invalid ruleset never
 * reaches an engine.
 */
@Group(Groups.GROUP)
@Version(Groups.VERSION)
@ShortNames("frs")
@AdditionalPrinterColumn(name = "Key", type = AdditionalPrinterColumn.Type.STRING, jsonPath = ".spec.key")
@AdditionalPrinterColumn(name = "Version", type = AdditionalPrinterColumn.Type.INTEGER, jsonPath = ".spec.version")
@AdditionalPrinterColumn(name = "Valid", type = AdditionalPrinterColumn.Type.BOOLEAN, jsonPath = ".status.valid")
@AdditionalPrinterColumn(name = "Rules", type = AdditionalPrinterColumn.Type.INTEGER, jsonPath = ".status.ruleCount")
@AdditionalPrinterColumn(name = "Checksum", type = AdditionalPrinterColumn.Type.STRING, jsonPath = ".status.checksum", priority = 1)
@AdditionalPrinterColumn(name = "Age", type = AdditionalPrinterColumn.Type.DATE, jsonPath = ".metadata.creationTimestamp")
public class FraudRuleset extends CustomResource<FraudRulesetSpec, FraudRulesetStatus> implements Namespaced {

    @Override
    protected FraudRulesetStatus initStatus() {
        return new FraudRulesetStatus();
    }
}
