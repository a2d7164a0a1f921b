package io.vigil.charts;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * What a reader follows in the docs exists: every relative link (and its #anchor, when it points into
 * a Markdown file) resolves, and every {@code make <target>} named in code exists in the Makefile.
 * Covers README.md, docs/ (the dated benchmark reports under docs/performance/ are records, not read
 * as instructions) and environments/README.md.
 */
class DocsTest {
    static final Pattern LINK = Pattern.compile("\\]\\(([^)\\s]+)\\)");
    static final Pattern CODE_SPAN = Pattern.compile("`([^`\\n]+)`");
    static final Pattern MAKE = Pattern.compile("(?:^|[\\s;&|(])make ([a-z][a-z0-9_-]*)");
    static final Pattern HEADING = Pattern.compile("(?m)^#{1,6} (.+)$");

    @Test
    void everyRelativeLinkResolves() throws IOException {
        List<String> broken = new ArrayList<>();
        for (Path doc : docs()) {
            Matcher m = LINK.matcher(withoutCodeBlocks(Repo.read(doc)));
            while (m.find()) {
                String target = m.group(1);
                if (target.matches("^[a-z]+:.*")) {
                    continue; // http:, https:, mailto:
                }
                int hash = target.indexOf('#');
                String file = hash >= 0 ? target.substring(0, hash) : target;
                String anchor = hash >= 0 ? target.substring(hash + 1) : null;
                Path resolved = file.isEmpty() ? doc : doc.getParent().resolve(file).normalize();
                if (!Files.exists(resolved)) {
                    broken.add(Repo.ROOT.relativize(doc) + ": " + target + " (no such file)");
                } else if (anchor != null && resolved.toString().endsWith(".md") && !anchors(resolved).contains(anchor)) {
                    broken.add(Repo.ROOT.relativize(doc) + ": " + target + " (no such heading in " + Repo.ROOT.relativize(resolved) + ")");
                }
            }
        }
        assertThat(broken).as("broken relative links").isEmpty();
    }

    @Test
    void everyMakeTargetNamedInTheDocsExists() throws IOException {
        Set<String> targets = new HashSet<>();
        Matcher t = Pattern.compile("(?m)^([a-zA-Z0-9_.-]+)\\s*:(?!=)").matcher(Repo.read(Repo.ROOT.resolve("Makefile")));
        while (t.find()) {
            targets.add(t.group(1));
        }
        assertThat(targets).as("Makefile targets").contains("run", "test", "help");
        List<String> missing = new ArrayList<>();
        for (Path doc : docs()) {
            for (String code : code(Repo.read(doc))) {
                Matcher m = MAKE.matcher(code);
                while (m.find()) {
                    if (!targets.contains(m.group(1))) {
                        missing.add(Repo.ROOT.relativize(doc) + ": make " + m.group(1));
                    }
                }
            }
        }
        assertThat(missing).as("make targets named in docs but not in the Makefile").isEmpty();
    }

    static List<Path> docs() throws IOException {
        List<Path> out = new ArrayList<>(List.of(Repo.ROOT.resolve("README.md"), Repo.ROOT.resolve("environments/README.md")));
        try (Stream<Path> s = Files.walk(Repo.ROOT.resolve("docs"))) {
            s.filter(p -> p.toString().endsWith(".md"))
                    .filter(p -> !p.startsWith(Repo.ROOT.resolve("docs/performance")))
                    .sorted().forEach(out::add);
        }
        return out;
    }

    /** Inline code spans and fenced code block lines: where docs name commands. */
    static List<String> code(String md) {
        List<String> out = new ArrayList<>();
        boolean fenced = false;
        for (String line : md.split("\n")) {
            if (line.strip().startsWith("```")) {
                fenced = !fenced;
                continue;
            }
            if (fenced) {
                out.add(line);
            } else {
                Matcher m = CODE_SPAN.matcher(line);
                while (m.find()) {
                    out.add(m.group(1));
                }
            }
        }
        return out;
    }

    static String withoutCodeBlocks(String md) {
        return md.replaceAll("(?s)```.*?```", "");
    }

    /** GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens. */
    static Set<String> anchors(Path md) {
        Set<String> out = new HashSet<>();
        Matcher m = HEADING.matcher(withoutCodeBlocks(Repo.read(md)));
        while (m.find()) {
            out.add(m.group(1).strip().toLowerCase(Locale.ROOT)
                    .replaceAll("[^\\p{L}\\p{N} _-]", "")
                    .replace(' ', '-'));
        }
        return out;
    }
}
