package io.vigil.operator.api;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The committed crds/ folder must be exactly what the crd-generator made from the model in this build.
 * Run with -Dvigil.crds.update=true (what `make crds` does) to rewrite crds/ instead of failing.
 */
class CrdsUpToDateTest {

    private static final String HOW_TO_FIX =
            "crds/ is stale: regenerate with `make crds` (./mvnw -pl operator/api -am verify -Dvigil.crds.update=true) and commit crds/";

    @Test
    void committedCrdsMatchTheModel() throws IOException {
        Path generated = Path.of(System.getProperty("vigil.crds.generated", "target/classes/META-INF/fabric8"));
        Path committed = Path.of(System.getProperty("vigil.crds.dir", "../../crds")).normalize();
        boolean update = Boolean.getBoolean("vigil.crds.update");

        TreeSet<String> generatedNames = vigilCrds(generated);
        assertThat(generatedNames).as("CRDs generated from the model")
                .containsExactly("fraudengines.vigil.io-v1.yml", "fraudloadtests.vigil.io-v1.yml", "fraudrulesets.vigil.io-v1.yml");

        if (update) {
            Files.createDirectories(committed);
            for (String stale : vigilCrds(committed)) {
                if (!generatedNames.contains(stale)) {
                    Files.delete(committed.resolve(stale));
                }
            }
            for (String name : generatedNames) {
                Files.copy(generated.resolve(name), committed.resolve(name), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
            }
            return;
        }

        List<String> problems = new ArrayList<>();
        TreeSet<String> committedNames = vigilCrds(committed);
        for (String name : generatedNames) {
            Path c = committed.resolve(name);
            if (!Files.exists(c)) {
                problems.add(name + " is missing from " + committed);
            } else if (!Files.readString(c, StandardCharsets.UTF_8).equals(Files.readString(generated.resolve(name), StandardCharsets.UTF_8))) {
                problems.add(name + " differs from the model");
            }
        }
        for (String name : committedNames) {
            if (!generatedNames.contains(name)) {
                problems.add(name + " is in crds/ but no longer generated");
            }
        }
        assertThat(problems).as(HOW_TO_FIX).isEmpty();
    }

    private static TreeSet<String> vigilCrds(Path dir) throws IOException {
        TreeSet<String> names = new TreeSet<>();
        if (!Files.isDirectory(dir)) {
            return names;
        }
        try (Stream<Path> files = Files.list(dir)) {
            files.map(p -> p.getFileName().toString()).filter(n -> n.contains(".vigil.io-")).forEach(names::add);
        }
        return names;
    }
}
