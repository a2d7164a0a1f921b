package io.vigil.operator.api.v1alpha1;

import io.fabric8.crd.generator.annotation.AdditionalPrinterColumn;
import io.fabric8.generator.annotation.Required;
import io.fabric8.kubernetes.api.model.Namespaced;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.ShortNames;
import io.fabric8.kubernetes.model.annotation.Version;

/** One deployment of the decision engine with its velocity store, durability pipeline and SLO monitoring. */
@Group(Groups.GROUP)
@Version(Groups.VERSION)
@ShortNames("fe")
@AdditionalPrinterColumn(name = "Ready", type = AdditionalPrinterColumn.Type.STRING,
        jsonPath = ".status.conditions[?(@.type==\"Ready\")].status")
@AdditionalPrinterColumn(name = "Rulesets", type = AdditionalPrinterColumn.Type.STRING, jsonPath = ".status.rulesets")
@AdditionalPrinterColumn(name = "Replicas", type = AdditionalPrinterColumn.Type.INTEGER, jsonPath = ".status.readyReplicas")
@AdditionalPrinterColumn(name = "Relay", type = AdditionalPrinterColumn.Type.INTEGER, jsonPath = ".status.relayReplicas", priority = 1)
@AdditionalPrinterColumn(name = "Reason", type = AdditionalPrinterColumn.Type.STRING,
        jsonPath = ".status.conditions[?(@.type==\"Ready\")].reason", priority = 1)
@AdditionalPrinterColumn(name = "Age", type = AdditionalPrinterColumn.Type.DATE, jsonPath = ".metadata.creationTimestamp")
public class FraudEngine extends CustomResource<FraudEngineSpec, FraudEngineStatus> implements Namespaced {

    /** Required by the schema: a FraudEngine without a spec names no ruleset, so there is nothing to run. */
    @Override
    @Required
    public FraudEngineSpec getSpec() {
        return super.getSpec();
    }

    @Override
    protected FraudEngineSpec initSpec() {
        return new FraudEngineSpec();
    }

    @Override
    protected FraudEngineStatus initStatus() {
        return new FraudEngineStatus();
    }
}
