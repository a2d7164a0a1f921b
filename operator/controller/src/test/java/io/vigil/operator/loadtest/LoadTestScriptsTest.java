package io.vigil.operator.loadtest;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** One source of truth: what the operator ships is exactly loadtests/k6, and every import resolves in a flat ConfigMap. */
class LoadTestScriptsTest {

    private static final Path K6 = LoadTests.repoRoot().resolve("loadtests/k6");

    @Test
    void bundledSourcesAreTheRepositoryFilesUnchanged() throws IOException {
        List<String> onDisk;
        try (Stream<Path> files = Files.list(K6)) {
            onDisk = files.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(".js")).sorted().toList();
        }
        assertThat(LoadTestScripts.FILES).as("every loadtests/k6/*.js is bundled").containsExactlyInAnyOrderElementsOf(onDisk);
        for (String f : LoadTestScripts.FILES) {
            assertThat(LoadTestScripts.all().get(f)).as(f).isEqualTo(Files.readString(K6.resolve(f)));
        }
    }

    @Test
    void everyScenarioHasAnEntryScriptAndImportsStayInsideTheFolder() {
        for (Scenario s : Scenario.values()) {
            assertThat(LoadTestScripts.all()).as("entry script of " + s.specName).containsKey(s.script);
        }
        Pattern imports = Pattern.compile("from '([^']+)'");
        LoadTestScripts.all().forEach((file, source) -> {
            Matcher m = imports.matcher(source);
            while (m.find()) {
                String target = m.group(1);
                if (target.startsWith("k6")) {
                    continue; // k6 built-in modules
                }
                assertThat(target).as(file + " imports " + target).startsWith("./");
                assertThat(target.substring(2)).as(file + " imports " + target + " (flat folder)").doesNotContain("/");
                assertThat(LoadTestScripts.all()).as(file + " imports " + target).containsKey(target.substring(2));
            }
        });
    }

    @Test
    void theRunnerImageIsTheK6ReleaseOfTheLocalTools() throws IOException {
        String versions = Files.readString(LoadTests.repoRoot().resolve("environments/local/bin/versions.sh"));
        Matcher m = Pattern.compile("(?m)^K6_VERSION=v?(\\S+)").matcher(versions);
        assertThat(m.find()).as("K6_VERSION in versions.sh").isTrue();
        assertThat(LoadTestPlanner.K6_RELEASE).isEqualTo(m.group(1));
    }
}
