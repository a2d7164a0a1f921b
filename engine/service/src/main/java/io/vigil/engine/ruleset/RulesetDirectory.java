package io.vigil.engine.ruleset;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import io.vigil.rules.eval.CompiledRuleset;
import io.vigil.rules.parse.ParseResult;
import io.vigil.rules.parse.RulesetFormat;
import io.vigil.rules.parse.Rulesets;
import io.vigil.rules.parse.ValidationError;
import io.vigil.rules.velocity.DistinctCap;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Reads rulesets laid out as {@code <root>/<KEY>/v<N>/*.json|*.yaml|*.yml}, one file per partition
 * (by the document's {@code country}; none = global), and an optional {@code <root>/<KEY>/active}
 * holding the active version number.
 *
 * <p>Works on a mounted ConfigMap: every path is resolved through symlinks (the kubelet swaps a
 * {@code ..data} link atomically) and entries starting with a dot ({@code ..data},
 * {@code ..2026_11_21...}) are skipped so nothing is read twice.
 */
public final class RulesetDirectory {
    public static final String ACTIVE_FILE = "active";
    private static final Pattern VERSION_DIR = Pattern.compile("v(\\d{1,9})");
    private static final Pattern VERSION_MARKER = Pattern.compile("v?(\\d{1,9})");
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final ObjectMapper YAML = new YAMLMapper();

    /** A version that loaded (every partition valid) or every reason it did not. */
    public record VersionLoad(KeyRulesets rulesets, List<RulesetProblem> problems) {
        public boolean valid() {
            return rulesets != null;
        }
    }

    private final Path root;
    private final int distinctCap;

    /** Rulesets for an engine with the default distinct cap. */
    public RulesetDirectory(Path root) {
        this(root, DistinctCap.DEFAULT);
    }

    /**
     * @param distinctCap the engine's {@code vigil.velocity.distinct-cap}: a distinct threshold above it
     *                    does not validate (it could never be reached)
     */
    public RulesetDirectory(Path root, int distinctCap) {
        this.root = root;
        this.distinctCap = DistinctCap.requireValid(distinctCap);
    }

    public Path root() {
        return root;
    }

    public boolean exists() {
        return Files.isDirectory(root);
    }

    /** Ruleset keys: the sub-directories of the root. */
    public List<String> keys() {
        return list(root).stream().filter(Files::isDirectory).map(p -> p.getFileName().toString()).sorted().toList();
    }

    /** Versions present for a key (directories {@code v<N>}), ascending. */
    public TreeSet<Integer> versions(String key) {
        TreeSet<Integer> versions = new TreeSet<>();
        for (Path p : list(root.resolve(key))) {
            Matcher m = VERSION_DIR.matcher(p.getFileName().toString());
            if (m.matches() && Files.isDirectory(p)) {
                versions.add(Integer.parseInt(m.group(1)));
            }
        }
        return versions;
    }

    /** The trimmed content of {@code <KEY>/active}, or null when there is none. */
    public String activeMarker(String key) {
        Path p = root.resolve(key).resolve(ACTIVE_FILE);
        if (!Files.isRegularFile(p)) {
            return null;
        }
        try {
            return Files.readString(p, StandardCharsets.UTF_8).trim();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The version an active marker names ("7" or "v7"), or null when it names none. */
    public static Integer parseMarker(String marker) {
        Matcher m = VERSION_MARKER.matcher(marker == null ? "" : marker.trim());
        return m.matches() ? Integer.parseInt(m.group(1)) : null;
    }

    /**
     * A checksum of everything that decides what {@code key} serves (the active marker and every
     * ruleset file, by relative path and content): changes exactly when a reload could change something,
     * whether files were edited in place or a ConfigMap's symlinks were swapped.
     */
    public String fingerprint(String key) {
        MessageDigest sha = sha256();
        Path keyDir = root.resolve(key);
        Path active = keyDir.resolve(ACTIVE_FILE);
        if (Files.isRegularFile(active)) {
            digest(sha, ACTIVE_FILE, active);
        }
        for (int v : versions(key)) {
            for (Path f : rulesetFiles(keyDir.resolve("v" + v))) {
                digest(sha, "v" + v + "/" + f.getFileName(), f);
            }
        }
        return HexFormat.of().formatHex(sha.digest());
    }

    /** Loads and compiles every partition of one version; all valid or nothing. */
    public VersionLoad load(String key, int version) {
        Path versionDir = root.resolve(key).resolve("v" + version);
        String dirName = key + "/v" + version;
        if (!Files.isDirectory(versionDir)) {
            return failed(new RulesetProblem(dirName, null, "no such version"));
        }
        List<Path> files = rulesetFiles(versionDir);
        if (files.isEmpty()) {
            return failed(new RulesetProblem(dirName, null, "no ruleset files (*.json, *.yaml, *.yml)"));
        }
        List<RulesetProblem> problems = new ArrayList<>();
        LoadedRuleset global = null;
        String globalFile = null;
        Map<String, LoadedRuleset> byCountry = new TreeMap<>();
        Instant now = Instant.now();
        for (Path file : files) {
            String name = dirName + "/" + file.getFileName();
            byte[] bytes;
            try {
                bytes = Files.readAllBytes(file);
            } catch (IOException e) {
                problems.add(new RulesetProblem(name, null, "cannot be read: " + e.getMessage()));
                continue;
            }
            // A legacy artifact without its own key/version takes its directory's, as the old engine took its manifest's.
            Parsed parsed = parse(bytes, RulesetFormat.ofFileName(file.getFileName().toString()), key, version);
            if (!parsed.errors().isEmpty()) {
                for (ValidationError e : parsed.errors()) {
                    problems.add(new RulesetProblem(name, e.path(), e.message()));
                }
                continue;
            }
            CompiledRuleset compiled = parsed.ruleset();
            if (!key.equals(compiled.key())) {
                problems.add(new RulesetProblem(name, "ruleset_key",
                        "\"" + compiled.key() + "\" does not match its directory " + key));
                continue;
            }
            if (compiled.version() != version) {
                problems.add(new RulesetProblem(name, "ruleset_version",
                        compiled.version() + " does not match its directory v" + version));
                continue;
            }
            LoadedRuleset loaded = new LoadedRuleset(key, parsed.country(), compiled, now, root.resolve(name).toString());
            if (parsed.country() == null) {
                if (global != null) {
                    problems.add(new RulesetProblem(name, "country", "a global partition is already defined by " + globalFile));
                    continue;
                }
                global = loaded;
                globalFile = name;
            } else if (byCountry.putIfAbsent(parsed.country(), loaded) != null) {
                problems.add(new RulesetProblem(name, "country",
                        "partition " + parsed.country() + " is already defined by another file of this version"));
            }
        }
        if (!problems.isEmpty()) {
            return new VersionLoad(null, List.copyOf(problems));
        }
        return new VersionLoad(new KeyRulesets(key, version, global, byCountry), List.of());
    }

    /** A parsed document: the compiled ruleset and its country partition, or the validation errors. */
    public record Parsed(CompiledRuleset ruleset, String country, List<ValidationError> errors) {
    }

    /** Parses one document (also used for inline rulesets of the management API). Never throws. */
    public Parsed parse(byte[] bytes, RulesetFormat format) {
        return parse(bytes, format, null, null);
    }

    /** As {@link #parse(byte[], RulesetFormat)}, with the storage key and version for legacy documents without their own. */
    public Parsed parse(byte[] bytes, RulesetFormat format, String legacyKey, Integer legacyVersion) {
        ParseResult result;
        try {
            result = Rulesets.load(bytes, format, legacyKey, legacyVersion, distinctCap);
        } catch (RuntimeException e) {
            return new Parsed(null, null, List.of(new ValidationError("", "cannot be loaded: " + e)));
        }
        if (!result.valid()) {
            return new Parsed(null, null, result.errors());
        }
        return new Parsed(result.ruleset(), countryOf(bytes, format), List.of());
    }

    /** The document's {@code country} partition, upper-cased; null for none, empty or "global". */
    static String countryOf(byte[] bytes, RulesetFormat format) {
        try {
            JsonNode doc = (format == RulesetFormat.YAML ? YAML : JSON).readTree(bytes);
            JsonNode c = doc == null ? null : doc.get("country");
            if (c == null || !c.isTextual() || c.asText().isBlank() || c.asText().equalsIgnoreCase("global")) {
                return null;
            }
            return c.asText().trim().toUpperCase(Locale.ROOT);
        } catch (IOException e) {
            return null; // the rules library already accepted the document; an unreadable country means none
        }
    }

    private static VersionLoad failed(RulesetProblem problem) {
        return new VersionLoad(null, List.of(problem));
    }

    private static List<Path> rulesetFiles(Path dir) {
        return list(dir).stream().filter(p -> {
            String n = p.getFileName().toString().toLowerCase(Locale.ROOT);
            return (n.endsWith(".json") || n.endsWith(".yaml") || n.endsWith(".yml")) && Files.isRegularFile(p);
        }).sorted().toList();
    }

    /** Entries of a directory, without dot-entries (ConfigMap internals, editor files); empty when missing. */
    private static List<Path> list(Path dir) {
        if (!Files.isDirectory(dir)) {
            return List.of();
        }
        try (Stream<Path> s = Files.list(dir)) {
            return s.filter(p -> !p.getFileName().toString().startsWith(".")).toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void digest(MessageDigest sha, String name, Path file) {
        sha.update(name.getBytes(StandardCharsets.UTF_8));
        sha.update((byte) 0);
        try {
            sha.update(Files.readAllBytes(file));
        } catch (IOException e) {
            sha.update(("unreadable:" + e.getMessage()).getBytes(StandardCharsets.UTF_8));
        }
        sha.update((byte) 0);
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
