package io.vigil.operator.engine.desired;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.vigil.operator.engine.EnginePlan;
import java.util.ArrayList;
import java.util.List;

/**
 * Everything a FraudEngine owns, in one list: what the workflow's dependents apply when every optional
 * CRD is installed ({@link OwnedObject}, in its order). Used by the golden tests and by docs; the
 * dependents call the same functions one by one.
 */
public final class DesiredState {
    private DesiredState() {
    }

    public static List<HasMetadata> all(EnginePlan plan) {
        List<HasMetadata> out = new ArrayList<>();
        for (OwnedObject o : OwnedObject.values()) {
            if (o.wanted(plan.engine())) {
                out.addAll(o.build(plan));
            }
        }
        return out;
    }
}
