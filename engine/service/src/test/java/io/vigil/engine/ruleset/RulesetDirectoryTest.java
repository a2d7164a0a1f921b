package io.vigil.engine.ruleset;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Directory layout rules, including a Kubernetes ConfigMap mount (symlinks swapped through ..data). */
class RulesetDirectoryTest {
    @TempDir
    Path root;

    static String ruleset(String key, int version, String country) {
        return """
                {"ruleset_key":"%s","ruleset_version":%d,"execution_mode":"FIRST_MATCH",%s
                 "rules":[{"rule_id":"r","condition":{"field":"amount","op":"gt","value":1},"action":"DECLINE"}]}
                """.formatted(key, version, country == null ? "" : "\"country\":\"" + country + "\",");
    }

    @Test
    void loadsEveryPartitionOfAVersion() throws IOException {
        write("CARD_AUTH/v1/global.json", ruleset("CARD_AUTH", 1, null));
        write("CARD_AUTH/v1/gb.json", ruleset("CARD_AUTH", 1, "GB"));
        RulesetDirectory dir = new RulesetDirectory(root);
        assertThat(dir.keys()).containsExactly("CARD_AUTH");
        RulesetDirectory.VersionLoad load = dir.load("CARD_AUTH", 1);
        assertThat(load.problems()).isEmpty();
        assertThat(load.rulesets().global()).isNotNull();
        assertThat(load.rulesets().pick("GB").country()).isEqualTo("GB");
        assertThat(load.rulesets().pick("US").country()).isNull();
    }

    @Test
    void aVersionIsAllOrNothing() throws IOException {
        write("CARD_AUTH/v2/global.json", ruleset("CARD_AUTH", 2, null));
        write("CARD_AUTH/v2/other.json", ruleset("CARD_AUTH", 2, null));
        write("CARD_AUTH/v2/wrong-key.json", ruleset("CARD_MONITORING", 2, "FR"));
        write("CARD_AUTH/v2/wrong-version.json", ruleset("CARD_AUTH", 3, "DE"));
        RulesetDirectory.VersionLoad load = new RulesetDirectory(root).load("CARD_AUTH", 2);
        assertThat(load.valid()).isFalse();
        assertThat(load.problems()).extracting(RulesetProblem::toString).containsExactlyInAnyOrder(
                "CARD_AUTH/v2/other.json: country: a global partition is already defined by CARD_AUTH/v2/global.json",
                "CARD_AUTH/v2/wrong-key.json: ruleset_key: \"CARD_MONITORING\" does not match its directory CARD_AUTH",
                "CARD_AUTH/v2/wrong-version.json: ruleset_version: 3 does not match its directory v2");
    }

    @Test
    void aDistinctThresholdAboveThisEnginesCapDoesNotLoad() throws IOException {
        // the sample CARD_AUTH v2: distinct thresholds 6 (card merchants), 4 (device cards), 5 (email cards)
        Path sample = Path.of("../rulesets/CARD_AUTH/v2/ruleset.yaml");
        Files.createDirectories(root.resolve("CARD_AUTH/v2"));
        Files.copy(sample, root.resolve("CARD_AUTH/v2/ruleset.yaml"));
        assertThat(new RulesetDirectory(root, 6).load("CARD_AUTH", 2).problems()).as("a threshold equal to the cap").isEmpty();

        RulesetDirectory.VersionLoad load = new RulesetDirectory(root, 5).load("CARD_AUTH", 2);
        assertThat(load.valid()).isFalse();
        assertThat(load.problems()).singleElement().satisfies(p -> {
            assertThat(p.file()).isEqualTo("CARD_AUTH/v2/ruleset.yaml");
            assertThat(p.path()).endsWith(".velocity.threshold");
            assertThat(p.message()).contains("distinct cap (5, vigil.velocity.distinct-cap)", "threshold of 6");
        });
        RulesetDirectory.Parsed inline = new RulesetDirectory(root, 5).parse(Files.readAllBytes(sample),
                io.vigil.rules.parse.RulesetFormat.YAML);
        assertThat(inline.errors()).as("validate and simulate's inline rulesets use the same cap").hasSize(1);
    }

    @Test
    void aLegacyArtifactWithoutKeyOrVersionTakesItsDirectorys() throws IOException {
        // The old engine took both from the artifact's storage path (its manifest).
        write("CARD_AUTH/v3/ruleset.json", """
                {"schema_version":1,"rules":[{"ruleId":"r","when":{"field":"amount","operator":"gt","value":1},"action":"BLOCK"}]}
                """);
        RulesetDirectory.VersionLoad load = new RulesetDirectory(root).load("CARD_AUTH", 3);
        assertThat(load.problems()).isEmpty();
        assertThat(load.rulesets().global().key()).isEqualTo("CARD_AUTH");
        assertThat(load.rulesets().global().version()).isEqualTo(3);
    }

    @Test
    void emptyOrMissingVersionsAreProblemsNotExceptions() throws IOException {
        Files.createDirectories(root.resolve("CARD_AUTH/v4"));
        RulesetDirectory dir = new RulesetDirectory(root);
        assertThat(dir.load("CARD_AUTH", 4).problems()).singleElement()
                .satisfies(p -> assertThat(p.message()).contains("no ruleset files"));
        assertThat(dir.load("CARD_AUTH", 5).problems()).singleElement()
                .satisfies(p -> assertThat(p.message()).isEqualTo("no such version"));
        assertThat(RulesetDirectory.parseMarker(" v7 ")).isEqualTo(7);
        assertThat(RulesetDirectory.parseMarker("latest")).isNull();
    }

    @Test
    void configMapSymlinkSwapChangesTheFingerprintAndIsReadOnce() throws IOException {
        // What the kubelet does: files live in a timestamped dir, ..data points at it, entries point through ..data.
        Path first = root.resolve("..2026_11_21_10_00_00.1");
        write(first.resolve("CARD_AUTH/v1/ruleset.json"), ruleset("CARD_AUTH", 1, null));
        write(first.resolve("CARD_AUTH/active"), "1");
        Files.createSymbolicLink(root.resolve("..data"), first.getFileName());
        Files.createSymbolicLink(root.resolve("CARD_AUTH"), Path.of("..data/CARD_AUTH"));

        RulesetDirectory dir = new RulesetDirectory(root);
        assertThat(dir.keys()).containsExactly("CARD_AUTH");
        String before = dir.fingerprint("CARD_AUTH");
        assertThat(dir.load("CARD_AUTH", 1).valid()).isTrue();

        Path second = root.resolve("..2026_11_21_10_05_00.2");
        write(second.resolve("CARD_AUTH/v1/ruleset.json"), ruleset("CARD_AUTH", 1, null));
        write(second.resolve("CARD_AUTH/v2/ruleset.json"), ruleset("CARD_AUTH", 2, null));
        write(second.resolve("CARD_AUTH/active"), "2");
        Path tmpLink = root.resolve("..data_tmp");
        Files.createSymbolicLink(tmpLink, second.getFileName());
        Files.move(tmpLink, root.resolve("..data"), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);

        assertThat(dir.fingerprint("CARD_AUTH")).isNotEqualTo(before);
        assertThat(dir.activeMarker("CARD_AUTH")).isEqualTo("2");
        assertThat(dir.versions("CARD_AUTH")).containsExactly(1, 2);
        assertThat(dir.load("CARD_AUTH", 2).valid()).isTrue();
    }

    @Test
    void fingerprintIsStableWhenNothingChanged() throws IOException {
        write("K/v1/a.yaml", "ruleset_key: K\nruleset_version: 1\nexecution_mode: FIRST_MATCH\nrules:\n"
                + "  - {rule_id: r, condition: {field: amount, op: gt, value: 1}, action: DECLINE}\n");
        RulesetDirectory dir = new RulesetDirectory(root);
        assertThat(dir.fingerprint("K")).isEqualTo(dir.fingerprint("K"));
        assertThat(dir.load("K", 1).valid()).isTrue();
    }

    void write(String relative, String content) throws IOException {
        write(root.resolve(relative), content);
    }

    static void write(Path target, String content) throws IOException {
        Files.createDirectories(target.getParent());
        Files.writeString(target, content);
    }
}
