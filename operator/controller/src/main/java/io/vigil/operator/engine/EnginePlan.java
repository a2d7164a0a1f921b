package io.vigil.operator.engine;

import io.vigil.operator.api.v1alpha1.FraudEngine;
import java.util.List;

/**
 * Everything the renderers need beyond the spec: which ruleset versions the engine will run.
 *
 * @param rulesets what the engine pods get (the requested version, or the last good one when the
 *                 requested one is missing or invalid)
 * @param problems why a requested version is not the one being served; empty when all are
 * @param secretProblems why a Secret the engine pods would mount is not usable (while there is a
 *                 {@linkplain SecretChecks.SecretProblem#blocking() blocking} one, the engine's pods and ruleset
 *                 ConfigMaps are held as they are: no pod mounts it), and certificates expired or expiring soon
 */
public record EnginePlan(FraudEngine engine, List<PlannedRuleset> rulesets, List<RulesetProblem> problems,
                         List<SecretChecks.SecretProblem> secretProblems) {

    public EnginePlan(FraudEngine engine, List<PlannedRuleset> rulesets, List<RulesetProblem> problems) {
        this(engine, rulesets, problems, List.of());
    }

    /**
     * @param content       the ruleset file (JSON) as the engine reads it
     * @param contentHash   SHA-256 of {@code content}: names the ConfigMap
     * @param checksum      the rules library's checksum (canonical content), reported in status
     * @param requested     false when this is the last good version kept because the requested one cannot be served
     */
    public record PlannedRuleset(String key, int version, String checksum, int ruleCount, String content,
                                 String contentHash, String configMapName, boolean requested) {
    }

    /** @param reason CamelCase: RulesetNotFound, RulesetInvalid */
    public record RulesetProblem(String key, int version, String reason, String message) {
    }

    public boolean allRequestedServed() {
        return problems.isEmpty();
    }

    /** Every Secret the engine pods mount is there and usable: the engine's configuration may be applied. */
    public boolean secretsUsable() {
        return secretProblems.stream().noneMatch(SecretChecks.SecretProblem::blocking);
    }

    /** What makes a Secret unusable (the engine is held while there is one). */
    public List<SecretChecks.SecretProblem> blockingSecretProblems() {
        return secretProblems.stream().filter(SecretChecks.SecretProblem::blocking).toList();
    }
}
