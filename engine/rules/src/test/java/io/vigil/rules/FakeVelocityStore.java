package io.vigil.rules;

import io.vigil.rules.velocity.VelocityCheck;
import io.vigil.rules.velocity.VelocityRequest;
import io.vigil.rules.velocity.VelocityResults;
import io.vigil.rules.velocity.VelocityStore;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * Test double of the Redis store: exact aggregates per (ruleset, rule, dimension value), no windows
 * (tests run within one window), idempotent per transaction id.
 */
final class FakeVelocityStore implements VelocityStore {
    private final Map<String, Double> sums = new HashMap<>();
    private final Map<String, Set<String>> distinct = new HashMap<>();
    private final Set<String> seen = new HashSet<>();

    @Override
    public CompletionStage<VelocityResults> check(VelocityRequest request) {
        return CompletableFuture.completedFuture(answer(request));
    }

    VelocityResults answer(VelocityRequest request) {
        boolean count = !request.readOnly() && seen.add(request.transactionId());
        double[] values = new double[request.checks().size()];
        for (int i = 0; i < values.length; i++) {
            VelocityCheck c = request.checks().get(i);
            String key = c.rulesetKey() + "|" + c.ruleId() + "|" + c.dimension() + "|" + c.dimensionValue();
            switch (c.aggregate()) {
                case COUNT -> values[i] = count ? sums.merge(key, 1.0, Double::sum) : sums.getOrDefault(key, 0.0) + 1;
                case SUM -> values[i] = count ? sums.merge(key, c.sumValue(), Double::sum)
                        : sums.getOrDefault(key, 0.0) + c.sumValue();
                case DISTINCT -> {
                    Set<String> s = distinct.computeIfAbsent(key, k -> new HashSet<>());
                    if (count && c.distinctValue() != null) {
                        s.add(c.distinctValue());
                    }
                    values[i] = s.size();
                }
            }
        }
        return VelocityResults.of(values);
    }
}
