package io.vigil.charts;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/** The committed Grafana dashboards and the PromQL in them. */
final class Dashboards {
    private static final Pattern LABEL_VALUES = Pattern.compile("label_values\\((.*),\\s*[a-zA-Z_][a-zA-Z0-9_]*\\)");

    private Dashboards() {
    }

    record Expr(String dashboard, String where, String promql) {
        /** The expression with Grafana's variables replaced by values PromQL accepts. */
        String substituted() {
            return promql.replace("$__rate_interval", "5m").replace("$__range", "1h").replace("$__interval", "1m")
                    .replaceAll("\\$\\{?[a-zA-Z_]+}?", "x");
        }
    }

    static List<Path> files() {
        try (Stream<Path> s = Files.list(Repo.DASHBOARDS)) {
            return s.filter(p -> p.toString().endsWith(".json")).sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static JsonNode read(Path p) {
        try {
            return SloRules.JSON.readTree(p.toFile());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Every PromQL expression: panel targets, and the series selectors of label_values() variables. */
    static List<Expr> expressions() {
        List<Expr> out = new ArrayList<>();
        for (Path f : files()) {
            JsonNode d = read(f);
            String name = f.getFileName().toString();
            for (JsonNode panel : panels(d)) {
                for (JsonNode t : panel.path("targets")) {
                    out.add(new Expr(name, "panel \"" + panel.path("title").asText() + "\" " + t.path("refId").asText(), t.path("expr").asText()));
                }
            }
            for (JsonNode v : d.path("templating").path("list")) {
                if (!"query".equals(v.path("type").asText())) {
                    continue;
                }
                String q = v.path("query").isObject() ? v.path("query").path("query").asText() : v.path("query").asText();
                Matcher m = LABEL_VALUES.matcher(q);
                out.add(new Expr(name, "variable " + v.path("name").asText(), m.matches() ? m.group(1) : q));
            }
        }
        return out;
    }

    static List<JsonNode> panels(JsonNode dashboard) {
        List<JsonNode> out = new ArrayList<>();
        for (JsonNode p : dashboard.path("panels")) {
            out.add(p);
            p.path("panels").forEach(out::add);
        }
        return out;
    }
}
