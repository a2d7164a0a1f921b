package io.vigil.engine.velocity;

import io.quarkus.test.junit.QuarkusTestProfile;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The engine with the real Redis velocity store on a redis-server of its own ({@link RedisResource})
 * and the velocity fixture ruleset. Deadline and breaker are short so outages show quickly; the
 * store's own timeout is longer than the deadline so a frozen Redis is answered by the deadline.
 */
public class VelocityRedisProfile implements QuarkusTestProfile {

    static final Path RULESETS = Path.of("src/test/resources/velocity-rulesets").toAbsolutePath();

    Map<String, String> config() {
        Map<String, String> c = new HashMap<>();
        c.put("vigil.rulesets.dir", RULESETS.toString());
        c.put("vigil.velocity.enabled", "true");
        c.put("vigil.engine.deadline", "500ms");
        c.put("vigil.engine.velocity-failure-policy", "skip");
        c.put("vigil.velocity.timeout", "1s");
        c.put("vigil.velocity.circuit-breaker.request-volume", "4");
        c.put("vigil.velocity.circuit-breaker.failure-ratio", "0.5");
        c.put("vigil.velocity.circuit-breaker.delay", "200ms");
        return c;
    }

    @Override
    public Map<String, String> getConfigOverrides() {
        return config();
    }

    @Override
    public List<TestResourceEntry> testResources() {
        return List.of(new TestResourceEntry(RedisResource.class));
    }

    /** The same engine on a local 3-master Redis Cluster. */
    public static class Cluster extends VelocityRedisProfile {
        @Override
        public List<TestResourceEntry> testResources() {
            return List.of(new TestResourceEntry(RedisClusterResource.class));
        }
    }

    /** Same, with the fail-closed policy: velocity rules whose condition holds match when Redis is down. */
    public static class FailClosed extends VelocityRedisProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            Map<String, String> c = config();
            c.put("vigil.engine.velocity-failure-policy", "exceeded");
            return c;
        }
    }
}
