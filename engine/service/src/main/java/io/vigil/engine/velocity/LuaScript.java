package io.vigil.engine.velocity;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * A Lua script as Redis knows it: its text (sent with EVAL) and SHA-1 (sent with EVALSHA).
 *
 * @param text the script
 * @param sha  the SHA-1 of its UTF-8 bytes, lower-case hex
 */
record LuaScript(String text, String sha) {

    static LuaScript of(String text) {
        try {
            return new LuaScript(text, HexFormat.of().formatHex(
                    MessageDigest.getInstance("SHA-1").digest(text.getBytes(StandardCharsets.UTF_8))));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
