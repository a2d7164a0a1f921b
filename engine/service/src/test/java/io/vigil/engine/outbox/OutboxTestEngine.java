package io.vigil.engine.outbox;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

/** What every outbox test profile runs the engine with: test rulesets, a long deadline, no velocity, outbox on. */
final class OutboxTestEngine {
    private OutboxTestEngine() {
    }

    /** A new, mutable map: the profile adds its own outbox settings. */
    static Map<String, String> config() {
        Map<String, String> c = new HashMap<>();
        c.put("vigil.rulesets.dir", Path.of("src/test/resources/rulesets").toAbsolutePath().toString());
        c.put("vigil.rulesets.poll-interval", "100ms");
        c.put("vigil.engine.deadline", "2s");
        c.put("vigil.velocity.enabled", "false");
        c.put("vigil.outbox.enabled", "true");
        return c;
    }
}
