package io.vigil.rules.parse;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonNode;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HexFormat;
import java.util.List;

/**
 * The canonical form of a ruleset document: its tree as compact JSON with object keys sorted.
 * Whitespace, key order and the serialisation (JSON or YAML) do not change it; any value does.
 */
final class Canonical {
    private static final JsonFactory FACTORY = new JsonFactory();

    private Canonical() {
    }

    static byte[] bytes(JsonNode root) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (JsonGenerator g = FACTORY.createGenerator(out)) {
            write(g, root);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toByteArray();
    }

    static String sha256(JsonNode root) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes(root)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is required by every JVM", e);
        }
    }

    private static void write(JsonGenerator g, JsonNode n) throws IOException {
        if (n.isObject()) {
            List<String> keys = new ArrayList<>();
            n.fieldNames().forEachRemaining(keys::add);
            Collections.sort(keys);
            g.writeStartObject();
            for (String k : keys) {
                g.writeFieldName(k);
                write(g, n.get(k));
            }
            g.writeEndObject();
        } else if (n.isArray()) {
            g.writeStartArray();
            for (JsonNode c : n) {
                write(g, c);
            }
            g.writeEndArray();
        } else if (n.isNumber()) {
            // One spelling per value: 100, 100.0 and 1E+2 are the same number (never expanded: 1e999999 stays short).
            g.writeNumber(n.decimalValue().stripTrailingZeros().toString());
        } else if (n.isTextual()) {
            g.writeString(n.textValue());
        } else if (n.isBoolean()) {
            g.writeBoolean(n.booleanValue());
        } else if (n.isNull()) {
            g.writeNull();
        } else {
            g.writeString(n.asText());
        }
    }
}
