package io.vigil.engine.http;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import org.eclipse.microprofile.config.ConfigProvider;

/**
 * Hand-written HTTP/1.1 on a plain socket, for requests no well-behaved client sends: broken chunk
 * framing, bodies cut short, unsupported transfer codings, a Content-Length far above the limit.
 */
final class RawHttp {
    private RawHttp() {
    }

    /** What came back: the status (0 when the connection closed without an answer) and the body. */
    record Reply(int status, String head, String body) {
    }

    static int port() {
        return ConfigProvider.getConfig().getValue("quarkus.http.test-port", Integer.class);
    }

    /** Sends {@code request} as is; with {@code closeAfter} the client closes its side right after. */
    static Reply send(byte[] request, boolean halfClose) throws IOException {
        try (Socket s = new Socket("127.0.0.1", port())) {
            s.setSoTimeout(30_000); // a guard against a hang, not a measurement
            OutputStream out = s.getOutputStream();
            try {
                out.write(request);
                out.flush();
                if (halfClose) {
                    s.shutdownOutput();
                }
            } catch (SocketException e) {
                // the server may answer and close before it read everything we meant to send
            }
            return read(s.getInputStream());
        }
    }

    static Reply send(String request, boolean halfClose) throws IOException {
        return send(request.getBytes(StandardCharsets.ISO_8859_1), halfClose);
    }

    /** Reads until the server closes the connection or one complete response has arrived. */
    private static Reply read(InputStream in) throws IOException {
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        byte[] b = new byte[8192];
        int n;
        try {
            while ((n = in.read(b)) >= 0) {
                buf.write(b, 0, n);
                Reply r = parse(buf.toString(StandardCharsets.UTF_8), false);
                if (r != null) {
                    return r;
                }
            }
        } catch (SocketException e) {
            // reset by the server after it answered: what arrived is the answer
        }
        Reply r = parse(buf.toString(StandardCharsets.UTF_8), true);
        return r == null ? new Reply(0, "", "") : r;
    }

    private static Reply parse(String text, boolean closed) {
        int end = text.indexOf("\r\n\r\n");
        if (end < 0) {
            return null;
        }
        String head = text.substring(0, end);
        String body = text.substring(end + 4);
        int status = Integer.parseInt(head.substring(9, 12));
        String lower = head.toLowerCase();
        int cl = lower.indexOf("content-length:");
        if (cl >= 0) {
            int len = Integer.parseInt(lower.substring(cl + 15, lower.indexOf("\r\n", cl) < 0 ? lower.length()
                    : lower.indexOf("\r\n", cl)).trim());
            if (body.getBytes(StandardCharsets.UTF_8).length < len) {
                return null;
            }
            return new Reply(status, head, body);
        }
        return closed ? new Reply(status, head, body) : null;
    }

    static String post(String path, String headers, String body) {
        return "POST " + path + " HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n" + headers + "\r\n" + body;
    }
}
