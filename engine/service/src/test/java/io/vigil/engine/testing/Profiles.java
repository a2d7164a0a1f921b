package io.vigil.engine.testing;

import io.quarkus.test.junit.QuarkusTestProfile;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;

/** The engine configurations the service tests run under; each profile is one engine start. */
public final class Profiles {
    public static final Path FIXTURES = Path.of("src/test/resources/rulesets").toAbsolutePath();

    private Profiles() {
    }

    static Map<String, String> base(Path rulesets) {
        Map<String, String> c = new HashMap<>();
        c.put("vigil.rulesets.dir", rulesets.toString());
        c.put("vigil.rulesets.poll-interval", "100ms");
        // A generous deadline: these tests are about answers, not latency, on a busy machine.
        c.put("vigil.engine.deadline", "2s");
        // The real velocity store and outbox are tested by their own suites.
        c.put("vigil.velocity.enabled", "false");
        c.put("vigil.outbox.enabled", "false");
        return c;
    }

    /** The test fixtures (read-only), a scripted velocity store and a capturing sink. */
    public static class Fixtures implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return base(FIXTURES);
        }

        @Override
        public Set<Class<?>> getEnabledAlternatives() {
            return Set.of(ScriptedVelocityStore.class, CapturingDecisionSink.class);
        }
    }

    /** A writable copy of the fixtures that the test changes while the engine runs. */
    public static class Writable implements QuarkusTestProfile {
        public static final Path DIR = copyOfFixtures();

        @Override
        public Map<String, String> getConfigOverrides() {
            return base(DIR);
        }

        @Override
        public Set<Class<?>> getEnabledAlternatives() {
            return Set.of(ScriptedVelocityStore.class, CapturingDecisionSink.class);
        }
    }

    /** No rulesets at all: every answer fails open. */
    public static class NoRulesets implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return base(FIXTURES.resolveSibling("empty-rulesets"));
        }

        @Override
        public Set<Class<?>> getEnabledAlternatives() {
            return Set.of(ScriptedVelocityStore.class, CapturingDecisionSink.class);
        }
    }

    /** Room for two requests in flight, and a deadline long enough to observe them waiting. */
    public static class Shedding implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            Map<String, String> c = base(FIXTURES);
            c.put("vigil.engine.max-in-flight", "2");
            c.put("vigil.engine.deadline", "10s");
            c.put("vigil.engine.shed-decision", "REVIEW");
            return c;
        }

        @Override
        public Set<Class<?>> getEnabledAlternatives() {
            return Set.of(ScriptedVelocityStore.class, CapturingDecisionSink.class);
        }
    }

    static Path copyOfFixtures() {
        try {
            Path dir = Files.createTempDirectory("vigil-rulesets");
            try (Stream<Path> files = Files.walk(FIXTURES)) {
                for (Path src : files.toList()) {
                    Path dst = dir.resolve(FIXTURES.relativize(src).toString());
                    if (Files.isDirectory(src)) {
                        Files.createDirectories(dst);
                    } else {
                        Files.copy(src, dst);
                    }
                }
            }
            return dir;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
