package io.vigil.operator.engine;

import io.vigil.operator.api.v1alpha1.FraudEngine;
import io.vigil.operator.api.v1alpha1.FraudEngineStatus;
import io.vigil.operator.api.v1alpha1.FraudRuleset;
import io.vigil.operator.api.v1alpha1.RulesetRef;
import io.vigil.operator.rulesets.RulesetValidation;
import io.vigil.operator.rulesets.RulesetValidator;
import io.vigil.operator.support.Hashing;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Resolves spec.rulesets against the FraudRulesets of the namespace. Pure: the same engine, rulesets
 * and previous status give the same plan. Every ruleset is validated here again with the rules library
 * (not trusted from its status, which may lag), so an invalid ruleset never reaches an engine; when the
 * requested version cannot be served, the version in status.activeRulesets keeps serving.
 */
public final class EnginePlanner {

    private EnginePlanner() {
    }

    public static EnginePlan plan(FraudEngine fe, Collection<FraudRuleset> available) {
        return plan(fe, available, List.of());
    }

    /** @param secretProblems what {@link SecretChecks} found wrong with the Secrets the engine pods mount */
    public static EnginePlan plan(FraudEngine fe, Collection<FraudRuleset> available, List<SecretChecks.SecretProblem> secretProblems) {
        List<EnginePlan.PlannedRuleset> planned = new ArrayList<>();
        List<EnginePlan.RulesetProblem> problems = new ArrayList<>();
        for (RulesetRef ref : fe.getSpec().rulesets) {
            Optional<FraudRuleset> found = find(available, ref.key, ref.version);
            RulesetValidation v = found.map(RulesetValidator::validate).orElse(null);
            if (v != null && v.valid()) {
                planned.add(toPlanned(fe, v, true));
                continue;
            }
            if (v == null) {
                problems.add(new EnginePlan.RulesetProblem(ref.key, ref.version, "RulesetNotFound",
                        "no FraudRuleset with key " + ref.key + " and version " + ref.version + " in namespace "
                                + fe.getMetadata().getNamespace()));
            } else {
                var first = v.errors().get(0);
                problems.add(new EnginePlan.RulesetProblem(ref.key, ref.version, "RulesetInvalid",
                        "FraudRuleset " + found.get().getMetadata().getName() + " (" + ref.key + " v" + ref.version + ") is invalid: "
                                + v.errors().size() + " error(s), first " + first.path + ": " + first.message));
            }
            lastGood(fe, ref.key, available).ifPresent(p -> planned.add(p));
        }
        return new EnginePlan(fe, List.copyOf(planned), List.copyOf(problems), List.copyOf(secretProblems));
    }

    /** The version this engine served before, if it is still there and still valid. */
    private static Optional<EnginePlan.PlannedRuleset> lastGood(FraudEngine fe, String key, Collection<FraudRuleset> available) {
        FraudEngineStatus status = fe.getStatus();
        if (status == null || status.activeRulesets == null) {
            return Optional.empty();
        }
        return status.activeRulesets.stream()
                .filter(a -> key.equals(a.key) && a.version != null)
                .findFirst()
                .flatMap(a -> find(available, key, a.version)
                        .map(RulesetValidator::validate)
                        .filter(RulesetValidation::valid)
                        .map(v -> toPlanned(fe, v, false)));
    }

    private static Optional<FraudRuleset> find(Collection<FraudRuleset> available, String key, int version) {
        // Two objects claiming the same key/version: the oldest name wins, deterministically.
        return available.stream()
                .filter(r -> r.getSpec() != null && key.equals(r.getSpec().key) && Objects.equals(r.getSpec().version, version))
                .filter(r -> r.getMetadata().getDeletionTimestamp() == null)
                .min(Comparator.comparing(r -> r.getMetadata().getName()));
    }

    private static EnginePlan.PlannedRuleset toPlanned(FraudEngine fe, RulesetValidation v, boolean requested) {
        String contentHash = Hashing.sha256(v.content());
        return new EnginePlan.PlannedRuleset(v.key(), v.version(), v.checksum(), v.ruleCount(), v.content(), contentHash,
                Names.rulesetConfigMap(fe, v.key(), v.version(), contentHash), requested);
    }
}
