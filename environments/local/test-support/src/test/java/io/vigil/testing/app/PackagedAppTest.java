package io.vigil.testing.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * make run (engine-lib.sh, relay-lib.sh, operator-lib.sh) and the tests (PackagedApp) launch the
 * engine, the relay and the operator with the same command line for the same instance: each script's
 * command is built in bash and compared, word for word, with PackagedApp's.
 */
class PackagedAppTest {
    private static final Path ROOT = PackagedApp.repositoryRoot();
    private static final String JAVA_HOME = System.getProperty("java.home");

    @Test
    void makeRunAndTheTestsLaunchTheEngineAlike() throws Exception {
        List<String> script = scriptCommand("engine-lib.sh", "engine_command", "ENGINE_COMMAND", Map.of(
                "VIGIL_ENGINE_PORT", "18081", "VIGIL_ENGINE_MANAGEMENT_PORT", "19081",
                "VIGIL_RULESETS_DIR", "/tmp/rulesets", "VIGIL_ENGINE_JAVA_OPTS", "-Xms192m -Xmx192m"));
        PackagedApp.Builder engine = PackagedApp.engine()
                .property("vigil.rulesets.dir", "/tmp/rulesets")
                .jvmOptions("-Xms192m", "-Xmx192m");

        assertThat(PackagedApp.command(engine, 18081, 19081, engine.packagedJar())).isEqualTo(script);
        assertThat(script).as("the shared options come first").containsSequence(PackagedApp.sharedJvmOptions("engine"));
        assertThat(script.get(1)).isEqualTo(PackagedApp.sharedJvmOptions("engine").get(0));
    }

    @Test
    void makeRunAndTheTestsLaunchTheRelayAlike() throws Exception {
        List<String> script = scriptCommand("relay-lib.sh", "relay_command", "RELAY_COMMAND", Map.of(
                "VIGIL_RELAY_MANAGEMENT_PORT", "19091", "REDIS_PORT", "16380", "KAFKA_BOOTSTRAP", "127.0.0.1:19093",
                "DECISIONS_TOPIC", "decisions.test", "VIGIL_RELAY_JAVA_OPTS", ""));
        PackagedApp.Builder relay = PackagedApp.relay()
                .property("quarkus.redis.hosts", "redis://127.0.0.1:16380")
                .property("vigil.relay.bootstrap-servers", "127.0.0.1:19093")
                .property("vigil.relay.topic", "decisions.test")
                .property("vigil.relay.consumer-name", "relay-local");

        assertThat(PackagedApp.command(relay, 0, 19091, relay.packagedJar())).isEqualTo(script);
        assertThat(script.get(1)).isEqualTo(PackagedApp.sharedJvmOptions("relay").get(0));
    }

    @Test
    void makeRunAndTheTestsLaunchTheOperatorAlike() throws Exception {
        List<String> script = scriptCommand("operator-lib.sh", "operator_command", "OPERATOR_COMMAND",
                Map.of("VIGIL_OPERATOR_HTTP_PORT", "19191"));
        PackagedApp.Builder operator = PackagedApp.operator();

        assertThat(PackagedApp.command(operator, 19191, 0, operator.packagedJar())).isEqualTo(script);
        assertThat(script.get(1)).isEqualTo(PackagedApp.sharedJvmOptions("operator").get(0));
        // The fast-jar, as in the operator's image (ADR 0017), not a jar of make run's own.
        assertThat(script.getLast()).endsWith("operator/controller/target/quarkus-app/quarkus-run.jar");
    }

    @Test
    void theSharedSettingsAreComplete() {
        for (String app : List.of("engine", "relay", "operator")) {
            var settings = PackagedApp.settings(app);
            assertThat(settings.stringPropertyNames()).as(app)
                    .containsExactlyInAnyOrder("jar", "jvm.options", "ready.path", "start.timeout.seconds", "stop.grace.seconds");
            assertThat(Long.parseLong(settings.getProperty("start.timeout.seconds"))).as(app).isPositive();
            assertThat(Long.parseLong(settings.getProperty("stop.grace.seconds"))).as(app).isPositive();
            assertThat(PackagedApp.sharedJvmOptions(app)).as(app).allMatch(o -> o.startsWith("-"));
        }
    }

    @Test
    void aMissingJarIsACleanError() {
        Path missing = ROOT.resolve("target/no-such-relay.jar");
        assertThatThrownBy(() -> PackagedApp.relay().jar(missing).start())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining(missing.toString())
                .hasMessageContaining("package the relay first");
    }

    /** The command line the script builds with {@code env}, one word per element. */
    private static List<String> scriptCommand(String lib, String function, String array, Map<String, String> env)
            throws IOException, InterruptedException {
        ProcessBuilder pb = new ProcessBuilder("bash", "-c",
                ". environments/local/bin/" + lib + " && " + function + " && printf '%s\\0' \"${" + array + "[@]}\"")
                .directory(ROOT.toFile())
                .redirectError(ProcessBuilder.Redirect.INHERIT);
        pb.environment().put("JAVA_HOME", JAVA_HOME);
        pb.environment().put("VIGIL_ROOT", ROOT.toString());
        pb.environment().putAll(env);
        Process p = pb.start();
        byte[] out = p.getInputStream().readAllBytes();
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).as(lib + " answers").isTrue();
        assertThat(p.exitValue()).as(lib + " " + function).isZero();
        String words = new String(out, StandardCharsets.UTF_8);
        assertThat(words).as(function + " printed a command").endsWith("\0");
        return Arrays.asList(words.substring(0, words.length() - 1).split("\0", -1));
    }
}
