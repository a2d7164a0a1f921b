package io.vigil.engine.outbox;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.vigil.rules.txn.Field;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Personal data kept out of the decision event's {@code transaction} (ADR 0013): named fields of the
 * request body are dropped, or replaced by a keyed hash ({@code "hmac-sha256:<hex>"}, HMAC-SHA256 with a
 * key from a mounted Secret) so events of the same e-mail still join without revealing it. Runs on the
 * outbox writer thread, never on the request: velocity has read the transaction long before, and keeps
 * working on these fields (it stores its own hashes).
 *
 * <p>A name is a field of the transaction ({@code email}, {@code ip_address}, {@code billing_address.city};
 * its aliases such as {@code ip} are covered too) or {@code custom_fields.<name>}. Not thread-safe: one
 * per {@link DecisionEvents}, like its buffer.
 */
public final class PersonalData {
    private static final ObjectMapper MAPPER = new ObjectMapper();

    private final List<String[]> hashed;
    private final List<String[]> dropped;
    private final Mac mac;

    private PersonalData(List<String[]> hashed, List<String[]> dropped, Mac mac) {
        this.hashed = hashed;
        this.dropped = dropped;
        this.mac = mac;
    }

    /** Null when nothing is to be hashed or dropped (the body is then embedded as sent). */
    public static PersonalData of(List<String> hash, List<String> drop, Path keyFile) {
        if (hash.isEmpty() && drop.isEmpty()) {
            return null;
        }
        Mac mac = null;
        if (!hash.isEmpty()) {
            if (keyFile == null) {
                throw new IllegalStateException("vigil.outbox.personal-data.hash-key-file: required to hash " + hash);
            }
            try {
                byte[] key = Files.readAllBytes(keyFile);
                if (key.length < 16) {
                    throw new IllegalStateException("vigil.outbox.personal-data.hash-key-file: " + keyFile
                            + " holds " + key.length + " bytes; a hashing key needs at least 16");
                }
                mac = Mac.getInstance("HmacSHA256");
                mac.init(new SecretKeySpec(key, "HmacSHA256"));
            } catch (IOException e) {
                throw new UncheckedIOException("vigil.outbox.personal-data.hash-key-file: cannot read " + keyFile, e);
            } catch (GeneralSecurityException e) {
                throw new IllegalStateException(e);
            }
        }
        return new PersonalData(paths(hash), paths(drop), mac);
    }

    /** Every key path a name may take in a body: the field's canonical name and its aliases. */
    private static List<String[]> paths(List<String> names) {
        List<String[]> out = new ArrayList<>();
        for (String raw : names) {
            String name = raw.trim();
            if (name.isEmpty()) {
                continue;
            }
            Field f = Field.byName(name);
            if (f == null) {
                out.add(name.split("\\."));
                continue;
            }
            for (String n : Field.names()) {
                if (Field.byName(n) == f) {
                    out.add(n.split("\\."));
                }
            }
        }
        return out;
    }

    /** The body with the named fields hashed or dropped; the reader accepted it as one JSON object. */
    byte[] redact(byte[] body) {
        try {
            JsonNode tree = MAPPER.readTree(body);
            if (!(tree instanceof ObjectNode root)) {
                return body;
            }
            for (String[] p : dropped) {
                ObjectNode parent = parent(root, p);
                if (parent != null) {
                    parent.remove(p[p.length - 1]);
                }
            }
            for (String[] p : hashed) {
                ObjectNode parent = parent(root, p);
                JsonNode v = parent == null ? null : parent.get(p[p.length - 1]);
                if (v != null && !v.isNull() && !v.isContainerNode()) {
                    parent.put(p[p.length - 1], hash(v.asText()));
                }
            }
            return MAPPER.writeValueAsBytes(root);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static ObjectNode parent(ObjectNode root, String[] path) {
        ObjectNode node = root;
        for (int i = 0; i < path.length - 1; i++) {
            if (!(node.get(path[i]) instanceof ObjectNode child)) {
                return null;
            }
            node = child;
        }
        return node;
    }

    private String hash(String value) {
        return "hmac-sha256:" + HexFormat.of().formatHex(mac.doFinal(value.getBytes(StandardCharsets.UTF_8)));
    }
}
