package io.vigil.engine.management;

import io.vigil.engine.decision.DecisionPath;
import io.vigil.engine.ruleset.KeyRulesets;
import io.vigil.engine.ruleset.RulesetRegistry;
import io.vigil.engine.ruleset.RulesetSnapshot;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.HealthCheckResponseBuilder;
import org.eclipse.microprofile.health.Readiness;

/** Ready only once the AUTH ruleset is loaded: before that every AUTH answer would be FAIL_OPEN. */
@Readiness
@ApplicationScoped
public class RulesetReadiness implements HealthCheck {

    @Inject
    RulesetRegistry registry;

    @Override
    public HealthCheckResponse call() {
        RulesetSnapshot snapshot = registry.current();
        HealthCheckResponseBuilder b = HealthCheckResponse.named("rulesets").status(snapshot.has(DecisionPath.AUTH_KEY));
        for (KeyRulesets k : snapshot.keys()) {
            b.withData(k.key(), "v" + k.version());
        }
        if (!snapshot.has(DecisionPath.AUTH_KEY)) {
            b.withData("reason", DecisionPath.AUTH_KEY + " is not loaded");
        }
        return b.build();
    }
}
