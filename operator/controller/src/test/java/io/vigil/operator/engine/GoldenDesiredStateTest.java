package io.vigil.operator.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.vigil.operator.Fixtures;
import io.vigil.operator.api.v1alpha1.FraudEngine;
import io.vigil.operator.engine.desired.DesiredState;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The whole desired state of representative FraudEngines, compared with reviewed YAML under
 * src/test/resources/golden. After an intended change, regenerate with
 * {@code ./mvnw -pl operator/controller test -Dtest=GoldenDesiredStateTest -Dvigil.golden.update=true}
 * and review the diff.
 */
class GoldenDesiredStateTest {

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"defaults", "external", "replication", "sample"})
    void desiredStateMatchesGolden(String name) throws IOException {
        FraudEngine fe = name.equals("sample") ? Fixtures.sampleEngine() : Fixtures.engine(name);
        EnginePlan plan = EnginePlanner.plan(fe, Fixtures.sampleRulesets(fe.getMetadata().getNamespace()));
        assertThat(plan.problems()).as("every requested ruleset resolves and validates").isEmpty();

        // The rules library's checksum is masked: its canonical form is that library's business (and
        // checked against the engine's in RulesetValidatorTest); everything else is pinned here.
        String actual = Fixtures.yaml(DesiredState.all(plan))
                .replaceAll("(vigil\\.io/ruleset-checksum: )[0-9a-f]{64}", "$1<rules library checksum>");
        Path golden = Path.of("src/test/resources/golden", name + ".yaml");
        if (Boolean.parseBoolean(System.getProperty("vigil.golden.update"))) {
            Files.createDirectories(golden.getParent());
            Files.writeString(golden, actual);
        }
        assertThat(golden).as("golden file (regenerate with -Dvigil.golden.update=true)").exists();
        assertThat(actual).as("desired state of " + name + " vs " + golden).isEqualTo(Files.readString(golden));
    }
}
