package io.vigil.engine.ruleset;

import jakarta.enterprise.context.ApplicationScoped;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

/**
 * Holds the active {@link RulesetSnapshot}. Readers (every request) do one volatile read; writers
 * (the directory watcher, the activate endpoint) replace the snapshot under a lock, so two
 * activations never lose each other's keys.
 */
@ApplicationScoped
public class RulesetRegistry {

    /** The last rejection of a key, shown by the management API until a version of that key activates. */
    public record Failure(String key, Integer version, Instant at, List<RulesetProblem> problems) {
    }

    private volatile RulesetSnapshot current = RulesetSnapshot.EMPTY;
    private final Map<String, Failure> failures = new ConcurrentHashMap<>();
    private final List<Consumer<RulesetSnapshot>> listeners = new CopyOnWriteArrayList<>();

    public RulesetSnapshot current() {
        return current;
    }

    /** Makes {@code rulesets} the active version of its key; returns the version it replaced (or null). */
    public synchronized KeyRulesets activate(KeyRulesets rulesets) {
        KeyRulesets previous = current.key(rulesets.key());
        current = current.with(rulesets);
        for (Consumer<RulesetSnapshot> l : listeners) {
            l.accept(current);
        }
        return previous;
    }

    public void recordFailure(Failure failure) {
        failures.put(failure.key(), failure);
    }

    public void clearFailure(String key) {
        failures.remove(key);
    }

    public Map<String, Failure> failures() {
        return Map.copyOf(failures);
    }

    /** Called with the new snapshot after every activation (metrics). */
    public void onActivation(Consumer<RulesetSnapshot> listener) {
        listeners.add(listener);
        listener.accept(current);
    }
}
