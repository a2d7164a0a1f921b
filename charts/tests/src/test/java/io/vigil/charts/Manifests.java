package io.vigil.charts;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MappingIterator;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;

/** Multi-document YAML (helm template output) as JSON trees. */
final class Manifests {
    private Manifests() {
    }

    static List<JsonNode> parse(String yaml) {
        List<JsonNode> out = new ArrayList<>();
        try (MappingIterator<JsonNode> it = SloRules.YAML.readerFor(JsonNode.class).readValues(yaml)) {
            while (it.hasNext()) {
                JsonNode n = it.next();
                if (n != null && !n.isNull() && !n.isMissingNode() && n.size() > 0) {
                    out.add(n);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out;
    }

    static List<JsonNode> ofKind(List<JsonNode> docs, String kind) {
        return docs.stream().filter(d -> kind.equals(d.path("kind").asText())).toList();
    }
}
