package io.vigil.operator.rulesets;

import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.ControllerConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import io.vigil.operator.api.v1alpha1.FraudRuleset;
import io.vigil.operator.api.v1alpha1.FraudRulesetStatus;
import org.jboss.logging.Logger;

/**
 * Validates each FraudRuleset with the rules library and writes the verdict to its status. Nothing
 * else is owned: engines resolve rulesets themselves (and re-validate, so a stale status can never let
 * an invalid ruleset through).
 */
@ControllerConfiguration(name = "fraudruleset")
public class FraudRulesetReconciler implements Reconciler<FraudRuleset> {

    private static final Logger LOG = Logger.getLogger(FraudRulesetReconciler.class);

    @Override
    public UpdateControl<FraudRuleset> reconcile(FraudRuleset ruleset, Context<FraudRuleset> context) {
        FraudRulesetStatus status = statusOf(ruleset);
        FraudRulesetStatus current = ruleset.getStatus();
        if (current != null && sameVerdict(current, status)) {
            return UpdateControl.noUpdate();
        }
        if (!Boolean.TRUE.equals(status.valid)) {
            LOG.infof("FraudRuleset %s/%s is invalid: %d error(s), first: %s: %s", ruleset.getMetadata().getNamespace(),
                    ruleset.getMetadata().getName(), status.errors.size(), status.errors.get(0).path, status.errors.get(0).message);
        }
        FraudRuleset patch = new FraudRuleset();
        patch.setMetadata(new io.fabric8.kubernetes.api.model.ObjectMetaBuilder()
                .withName(ruleset.getMetadata().getName())
                .withNamespace(ruleset.getMetadata().getNamespace())
                .build());
        patch.setStatus(status);
        return UpdateControl.patchStatus(patch);
    }

    /** The whole status, as a pure function of the object. */
    public static FraudRulesetStatus statusOf(FraudRuleset ruleset) {
        RulesetValidation v = RulesetValidator.validate(ruleset);
        FraudRulesetStatus s = new FraudRulesetStatus();
        s.observedGeneration = ruleset.getMetadata().getGeneration();
        s.valid = v.valid();
        s.ruleCount = v.valid() ? v.ruleCount() : null;
        s.checksum = v.checksum();
        s.errors = v.errors();
        return s;
    }

    private static boolean sameVerdict(FraudRulesetStatus a, FraudRulesetStatus b) {
        return java.util.Objects.equals(a.observedGeneration, b.observedGeneration)
                && java.util.Objects.equals(a.valid, b.valid)
                && java.util.Objects.equals(a.checksum, b.checksum)
                && java.util.Objects.equals(a.ruleCount, b.ruleCount)
                && a.errors != null && a.errors.size() == b.errors.size();
    }
}
