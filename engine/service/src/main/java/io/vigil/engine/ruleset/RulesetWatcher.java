package io.vigil.engine.ruleset;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tags;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import io.vigil.engine.VigilConfig;
import io.vigil.engine.velocity.VelocityConfig;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.jboss.logging.Logger;

/**
 * Loads the rulesets directory at start and polls it for changed content. Which version of a key
 * serves, in order: a version pinned through the management API (until the directory's
 * {@code active} file changes), else the version the {@code active} file names, else the highest
 * version that validates. A version that does not validate is never activated: the last good one
 * keeps serving, {@code vigil_ruleset_load_failures_total{key}} counts it and a WARN lists every error.
 *
 * <p>Polling (content checksums) rather than file-system events: inotify does not see a ConfigMap's
 * symlink swap reliably, and a checksum of a few KB every couple of seconds costs nothing.
 */
@ApplicationScoped
public class RulesetWatcher {
    private static final Logger LOG = Logger.getLogger(RulesetWatcher.class);

    public enum Status { ACTIVATED, NOT_FOUND, REJECTED }

    /** Outcome of an explicit activation through the management API. */
    public record Activation(Status status, KeyRulesets rulesets, List<RulesetProblem> problems, String message) {
    }

    private final RulesetRegistry registry;
    private final MeterRegistry meters;
    private final RulesetDirectory directory;
    private final long pollMillis;

    private final Map<String, String> fingerprints = new HashMap<>();
    private final Map<String, String> markers = new HashMap<>();
    private final Map<String, Integer> pins = new HashMap<>();
    private ScheduledExecutorService poller;
    private MultiGauge infoGauge;
    private MultiGauge versionGauge;
    private boolean warnedMissingDir;

    @Inject
    public RulesetWatcher(RulesetRegistry registry, MeterRegistry meters, VigilConfig config, VelocityConfig velocity) {
        this.registry = registry;
        this.meters = meters;
        // Validated against this engine's distinct cap: a distinct threshold above it could never match.
        this.directory = new RulesetDirectory(config.rulesets().dir().toAbsolutePath().normalize(), velocity.distinctCap());
        this.pollMillis = Math.max(50, config.rulesets().pollInterval().toMillis());
    }

    void start(@Observes StartupEvent event) {
        infoGauge = MultiGauge.builder("vigil.ruleset.info")
                .description("Active ruleset partitions (value 1), labelled with version and checksum")
                .register(meters);
        versionGauge = MultiGauge.builder("vigil.ruleset.active.version")
                .description("Active version per ruleset key and partition")
                .register(meters);
        registry.onActivation(this::publishGauges);
        LOG.infof("rulesets directory %s (polled every %d ms)", directory.root(), pollMillis);
        scan();
        poller = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "vigil-ruleset-watch");
            t.setDaemon(true);
            return t;
        });
        poller.scheduleWithFixedDelay(this::scanSafely, pollMillis, pollMillis, TimeUnit.MILLISECONDS);
    }

    void stop(@Observes ShutdownEvent event) {
        if (poller != null) {
            poller.shutdownNow();
        }
    }

    public RulesetDirectory directory() {
        return directory;
    }

    private void scanSafely() {
        try {
            scan();
        } catch (RuntimeException e) {
            LOG.warnf(e, "scanning rulesets directory %s failed; active rulesets unchanged", directory.root());
        }
    }

    /** One poll: reconcile every key whose content changed since the last poll. */
    public synchronized void scan() {
        if (!directory.exists()) {
            if (!warnedMissingDir) {
                LOG.warnf("rulesets directory %s does not exist: nothing to load (requests fail open until it appears)",
                        directory.root());
                warnedMissingDir = true;
            }
            return;
        }
        warnedMissingDir = false;
        for (String key : directory.keys()) {
            String fp = directory.fingerprint(key);
            if (fp.equals(fingerprints.get(key))) {
                continue;
            }
            fingerprints.put(key, fp);
            reconcile(key);
        }
    }

    private void reconcile(String key) {
        // New content: earlier rejections are history; whatever this pass rejects is recorded again.
        registry.clearFailure(key);
        String marker = directory.activeMarker(key);
        if (!Objects.equals(marker, markers.get(key))) {
            if (pins.remove(key) != null) {
                LOG.infof("ruleset %s: the directory's active version changed, dropping the version pinned through the API", key);
            }
            markers.put(key, marker);
        }
        Integer pinned = pins.get(key);
        if (pinned != null) {
            load(key, pinned);
            return;
        }
        if (marker != null) {
            Integer v = RulesetDirectory.parseMarker(marker);
            if (v == null) {
                reject(key, null, List.of(new RulesetProblem(key + "/" + RulesetDirectory.ACTIVE_FILE, null,
                        "expected a version number like 7, found \"" + marker + "\"")));
            } else {
                load(key, v);
            }
            return;
        }
        // No active file: the highest version that validates; every higher version that does not is reported.
        List<Integer> descending = new ArrayList<>(directory.versions(key).descendingSet());
        if (descending.isEmpty()) {
            reject(key, null, List.of(new RulesetProblem(key, null, "no version directories (v<N>)")));
            return;
        }
        for (int v : descending) {
            if (load(key, v)) {
                return;
            }
        }
    }

    /** Loads one version and activates it when valid; reports it when not. */
    private boolean load(String key, int version) {
        RulesetDirectory.VersionLoad load = directory.load(key, version);
        if (!load.valid()) {
            reject(key, version, load.problems());
            return false;
        }
        activate(load.rulesets());
        return true;
    }

    private void activate(KeyRulesets next) {
        KeyRulesets current = registry.current().key(next.key());
        if (next.sameContentAs(current)) {
            return;
        }
        registry.activate(next);
        LOG.infof("ruleset %s v%d activated%s: %s", next.key(), next.version(),
                current == null ? "" : " (was v" + current.version() + ")",
                next.partitions().stream()
                        .map(p -> p.partition() + " " + p.ruleCount() + " rules sha256:" + p.checksum())
                        .collect(Collectors.joining(", ")));
    }

    private void reject(String key, Integer version, List<RulesetProblem> problems) {
        meters.counter("vigil.ruleset.load.failures", "key", key).increment();
        registry.recordFailure(new RulesetRegistry.Failure(key, version, Instant.now(), problems));
        KeyRulesets current = registry.current().key(key);
        String serving = current == null ? "nothing is loaded for " + key + " (its requests fail open)"
                : "still serving v" + current.version();
        LOG.warnf("ruleset %s%s rejected with %d error(s); %s:%n  %s", key, version == null ? "" : " v" + version,
                problems.size(), serving,
                problems.stream().map(RulesetProblem::toString).collect(Collectors.joining(System.lineSeparator() + "  ")));
    }

    /**
     * Activates {@code version} of {@code key} from the directory and pins it (in this process, until the
     * directory's {@code active} file changes or the engine restarts: the directory stays the source of truth).
     */
    public synchronized Activation activate(String key, int version) {
        if (!directory.versions(key).contains(version)) {
            return new Activation(Status.NOT_FOUND, null, List.of(),
                    "no version " + version + " of ruleset " + key + " in " + directory.root());
        }
        RulesetDirectory.VersionLoad load = directory.load(key, version);
        if (!load.valid()) {
            reject(key, version, load.problems());
            return new Activation(Status.REJECTED, null, load.problems(),
                    "ruleset " + key + " v" + version + " does not validate");
        }
        markers.put(key, directory.activeMarker(key));
        pins.put(key, version);
        activate(load.rulesets());
        return new Activation(Status.ACTIVATED, load.rulesets(), List.of(), "activated");
    }

    private void publishGauges(RulesetSnapshot snapshot) {
        if (infoGauge == null) {
            return;
        }
        List<MultiGauge.Row<?>> info = new ArrayList<>();
        List<MultiGauge.Row<?>> versions = new ArrayList<>();
        for (KeyRulesets k : snapshot.keys()) {
            for (LoadedRuleset p : k.partitions()) {
                info.add(MultiGauge.Row.of(Tags.of("key", p.key(), "partition", p.partition(),
                        "version", Integer.toString(p.version()), "checksum", p.checksum()), 1));
                versions.add(MultiGauge.Row.of(Tags.of("key", p.key(), "partition", p.partition()), p.version()));
            }
        }
        infoGauge.register(info, true);
        versionGauge.register(versions, true);
    }
}
