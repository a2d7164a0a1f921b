package io.vigil.charts;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** The repository's files and tools, and running a command with a bounded wait. */
final class Repo {
    static final Path ROOT = Path.of(System.getProperty("vigil.repo.root", "../..")).toAbsolutePath().normalize();
    static final Path ENGINE_CHART = ROOT.resolve("charts/vigil-engine");
    static final Path OPERATOR_CHART = ROOT.resolve("charts/vigil-operator");
    static final Path RULE_SOURCE = ENGINE_CHART.resolve("files/rules/vigil-slo.rules.yaml");
    static final Path DASHBOARDS = ENGINE_CHART.resolve("files/dashboards");

    private Repo() {
    }

    /** Path of a Go-built tool of the local environment; tools.sh builds it on a fresh machine (minutes). */
    static Path tool(String name) {
        Result r = run(Duration.TOOL_BUILD, null, Map.of(), ROOT.resolve("environments/local/bin/tools.sh").toString(), "path", name);
        r.assertOk();
        String[] lines = r.stdout().strip().split("\n");
        return Path.of(lines[lines.length - 1].strip());
    }

    /** The SLO rule source rendered by the one local renderer (render-slo-rules.sh). */
    static String renderRules(String... assignments) {
        List<String> cmd = new ArrayList<>(List.of(ROOT.resolve("environments/local/bin/render-slo-rules.sh").toString()));
        cmd.addAll(List.of(assignments));
        Result r = run(Duration.SHORT, null, Map.of(), cmd.toArray(String[]::new));
        r.assertOk();
        return r.stdout();
    }

    static String read(Path p) {
        try {
            return Files.readString(p);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static Path write(Path p, String text) {
        try {
            Files.createDirectories(p.getParent());
            return Files.writeString(p, text);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    enum Duration {
        SHORT(120), LONG(600), TOOL_BUILD(1800);
        final long seconds;

        Duration(long seconds) {
            this.seconds = seconds;
        }
    }

    record Result(List<String> command, int exit, String stdout, String stderr) {
        Result assertOk() {
            if (exit != 0) {
                throw new AssertionError(String.join(" ", command) + " exited " + exit + "\n--- stdout\n" + stdout + "\n--- stderr\n" + stderr);
            }
            return this;
        }

        String output() {
            return stdout + stderr;
        }
    }

    static Result run(Duration timeout, Path dir, Map<String, String> env, String... command) {
        try {
            Path out = Files.createTempFile("vigil-cmd", ".out");
            Path err = Files.createTempFile("vigil-cmd", ".err");
            ProcessBuilder pb = new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile());
            if (dir != null) {
                pb.directory(dir.toFile());
            }
            pb.environment().putAll(env);
            Process p = pb.start();
            if (!p.waitFor(timeout.seconds, TimeUnit.SECONDS)) {
                p.descendants().forEach(ProcessHandle::destroyForcibly);
                p.destroyForcibly();
                throw new AssertionError(String.join(" ", command) + " did not finish within " + timeout.seconds + " s");
            }
            Result r = new Result(List.of(command), p.exitValue(), Files.readString(out, StandardCharsets.UTF_8),
                    Files.readString(err, StandardCharsets.UTF_8));
            Files.deleteIfExists(out);
            Files.deleteIfExists(err);
            return r;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
