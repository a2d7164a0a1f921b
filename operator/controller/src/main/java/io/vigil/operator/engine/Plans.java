package io.vigil.operator.engine;

import io.fabric8.kubernetes.api.model.Secret;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.source.informer.InformerEventSource;
import io.vigil.operator.api.v1alpha1.FraudEngine;
import io.vigil.operator.api.v1alpha1.FraudRuleset;
import io.vigil.operator.engine.desired.EngineCallerAuth;
import java.util.List;
import java.util.function.Function;

/** The plan of one reconciliation, computed once and shared by the dependents and the status. */
public final class Plans {
    static final String KEY = "vigil.plan";
    public static final String RULESETS_EVENT_SOURCE = "fraudrulesets";
    public static final String SECRETS_EVENT_SOURCE = "referenced-secrets";

    private Plans() {
    }

    public static EnginePlan of(FraudEngine fe, Context<FraudEngine> context) {
        var shared = context.managedWorkflowAndDependentResourceContext();
        return shared.get(KEY, EnginePlan.class).orElseGet(() -> {
            EnginePlan plan = EnginePlanner.plan(fe, rulesets(fe, context),
                    SecretChecks.check(EngineCallerAuth.secrets(fe), secrets(fe, context)));
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

    /** The Secrets of the engine's namespace by name, from the informer cache. */
    @SuppressWarnings("unchecked")
    static Function<String, Secret> secrets(FraudEngine fe, Context<FraudEngine> context) {
        var source = (InformerEventSource<Secret, FraudEngine>) context.eventSourceRetriever()
                .getEventSourceFor(Secret.class, SECRETS_EVENT_SOURCE);
        return name -> source.get(new ResourceID(name, fe.getMetadata().getNamespace())).orElse(null);
    }
}
