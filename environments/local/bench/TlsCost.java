import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.time.Duration;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.TrustManagerFactory;

/**
 * The mutual-TLS cost benchmark's client (mtls-cost.sh): sends N AUTH requests one at a time, either
 * on one keep-alive connection or each on a new connection (a full handshake each), and prints how
 * many were answered 200. JDK only; the engine's CPU is read by the script from /proc.
 *
 *   java TlsCost.java <url> <keepalive|handshake> <count> [client.p12 ca.crt]
 */
public class TlsCost {
    static final String BODY = "{\"transaction_id\":\"t-%d\",\"card_hash\":\"c-%d\",\"amount\":12.50,\"currency\":\"EUR\",\"card_present\":true}";

    public static void main(String[] args) throws Exception {
        URI url = URI.create(args[0]);
        boolean fresh = args[1].equals("handshake");
        int count = Integer.parseInt(args[2]);
        SSLContext tls = args.length > 4 ? context(Path.of(args[3]), Path.of(args[4])) : null;
        HttpClient shared = client(tls);
        int ok = 0;
        for (int i = 0; i < count; i++) {
            HttpClient c = fresh ? client(tls) : shared;
            HttpResponse<Void> r = c.send(HttpRequest.newBuilder(url).timeout(Duration.ofSeconds(30))
                    .header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString(String.format(BODY, i, i % 100))).build(),
                    HttpResponse.BodyHandlers.discarding());
            ok += r.statusCode() == 200 ? 1 : 0;
            if (fresh) {
                c.close();
            }
        }
        System.out.println(ok);
    }

    static HttpClient client(SSLContext tls) {
        HttpClient.Builder b = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(10));
        if (tls != null) {
            SSLParameters p = new SSLParameters();
            p.setEndpointIdentificationAlgorithm("HTTPS");
            b.sslContext(tls).sslParameters(p);
        }
        return b.build();
    }

    static SSLContext context(Path p12, Path ca) throws Exception {
        KeyStore ks = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(p12)) {
            ks.load(in, "bench".toCharArray());
        }
        KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        kmf.init(ks, "bench".toCharArray());
        KeyStore ts = KeyStore.getInstance("PKCS12");
        ts.load(null, null);
        try (InputStream in = Files.newInputStream(ca)) {
            ts.setCertificateEntry("ca", CertificateFactory.getInstance("X.509").generateCertificate(in));
        }
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(ts);
        SSLContext ctx = SSLContext.getInstance("TLS");
        ctx.init(kmf.getKeyManagers(), tmf.getTrustManagers(), null);
        return ctx;
    }
}
