package io.vigil.operator.api.v1alpha1;

import io.fabric8.crd.generator.annotation.AdditionalPrinterColumn;
import io.fabric8.kubernetes.api.model.Namespaced;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.ShortNames;
import io.fabric8.kubernetes.model.annotation.Version;

/**
 * An in-cluster k6 run against a FraudEngine, reconciled by io.vigil.operator.loadtest
 * (script ConfigMap + k6-operator TestRun, verdict from the runner Jobs).
 */
@Group(Groups.GROUP)
@Version(Groups.VERSION)
@ShortNames("flt")
@AdditionalPrinterColumn(name = "Target", type = AdditionalPrinterColumn.Type.STRING, jsonPath = ".spec.target.fraudEngine")
@AdditionalPrinterColumn(name = "Stage", type = AdditionalPrinterColumn.Type.STRING, jsonPath = ".status.stage")
@AdditionalPrinterColumn(name = "Verdict", type = AdditionalPrinterColumn.Type.STRING, jsonPath = ".status.verdict")
@AdditionalPrinterColumn(name = "Age", type = AdditionalPrinterColumn.Type.DATE, jsonPath = ".metadata.creationTimestamp")
public class FraudLoadTest extends CustomResource<FraudLoadTestSpec, FraudLoadTestStatus> implements Namespaced {
}
