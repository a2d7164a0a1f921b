package io.vigil.testing.redis;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * A minimal RESP2 client for the harness itself (PING, CLUSTER INFO, inspecting keys from tests).
 * Hand-written on purpose: test-support must not drag a Redis client library into every module's
 * test classpath, and the harness has to talk to Redis before any application client exists.
 */
public final class Resp {

    private Resp() {
    }

    /** An error reply ("-ERR ..."), returned as a value instead of thrown so callers can inspect it. */
    public record Error(String message) {
        @Override
        public String toString() {
            return "-" + message;
        }
    }

    /**
     * Sends one command on a fresh connection and returns the reply: String (simple/bulk), Long,
     * List&lt;Object&gt;, {@link Error}, or null (nil).
     */
    public static Object command(String host, int port, int timeoutMillis, String... args) throws IOException {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(host, port), timeoutMillis);
            socket.setSoTimeout(timeoutMillis);
            OutputStream out = socket.getOutputStream();
            out.write(encode(args));
            out.flush();
            return read(new BufferedInputStream(socket.getInputStream()));
        }
    }

    static byte[] encode(String... args) {
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        write(buf, "*" + args.length + "\r\n");
        for (String arg : args) {
            byte[] bytes = arg.getBytes(StandardCharsets.UTF_8);
            write(buf, "$" + bytes.length + "\r\n");
            buf.writeBytes(bytes);
            write(buf, "\r\n");
        }
        return buf.toByteArray();
    }

    private static void write(ByteArrayOutputStream buf, String s) {
        buf.writeBytes(s.getBytes(StandardCharsets.US_ASCII));
    }

    static Object read(InputStream in) throws IOException {
        int type = in.read();
        if (type < 0) {
            throw new IOException("connection closed by redis");
        }
        String line = readLine(in);
        switch (type) {
            case '+':
                return line;
            case '-':
                return new Error(line);
            case ':':
                return Long.parseLong(line);
            case '$': {
                int len = Integer.parseInt(line);
                if (len < 0) {
                    return null;
                }
                byte[] data = in.readNBytes(len);
                if (data.length != len) {
                    throw new IOException("short bulk reply");
                }
                readLine(in);
                return new String(data, StandardCharsets.UTF_8);
            }
            case '*': {
                int n = Integer.parseInt(line);
                if (n < 0) {
                    return null;
                }
                List<Object> items = new ArrayList<>(n);
                for (int i = 0; i < n; i++) {
                    items.add(read(in));
                }
                return items;
            }
            default:
                throw new IOException("unexpected RESP type byte " + (char) type);
        }
    }

    private static String readLine(InputStream in) throws IOException {
        ByteArrayOutputStream line = new ByteArrayOutputStream(32);
        int prev = -1;
        while (true) {
            int b = in.read();
            if (b < 0) {
                throw new IOException("connection closed mid-reply");
            }
            if (prev == '\r' && b == '\n') {
                byte[] bytes = line.toByteArray();
                return new String(bytes, 0, bytes.length - 1, StandardCharsets.UTF_8);
            }
            line.write(b);
            prev = b;
        }
    }
}
