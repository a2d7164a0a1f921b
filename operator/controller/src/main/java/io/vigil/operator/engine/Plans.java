package io.vigil.operator.engine;

import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.processing.event.source.informer.InformerEventSource;
import io.vigil.operator.api.v1alpha1.FraudEngine;
import io.vigil.operator.api.v1alpha1.FraudRuleset;
import java.util.List;

/** The plan of one reconciliation, computed once and shared by the dependents and the status. */
public final class Plans {
    static final String KEY = "vigil.plan";
    public static final String RULESETS_EVENT_SOURCE = "fraudrulesets";

    private Plans() {
    }

    public static EnginePlan of(FraudEngine fe, Context<FraudEngine> context) {
        var shared = context.managedWorkflowAndDependentResourceContext();
        return shared.get(KEY, EnginePlan.class).orElseGet(() -> {
            EnginePlan plan = EnginePlanner.plan(fe, rulesets(fe, context));
            shared.put(KEY, plan);
            return plan;
        });
    }

    /** Every FraudRuleset of the engine's namespace, from the informer cache. */
    @SuppressWarnings("unchecked")
    static List<FraudRuleset> rulesets(FraudEngine fe, Context<FraudEngine> context) {
        var source = (InformerEventSource<FraudRuleset, FraudEngine>) context.eventSourceRetriever()
                .getEventSourceFor(FraudRuleset.class, RULESETS_EVENT_SOURCE);
        return source.list(fe.getMetadata().getNamespace()).toList();
    }
}
