import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.jose4j.jwk.JsonWebKey;
import org.jose4j.jwk.JsonWebKeySet;
import org.jose4j.jwk.RsaJsonWebKey;
import org.jose4j.jwk.RsaJwkGenerator;
import org.jose4j.jws.AlgorithmIdentifiers;
import org.jose4j.jws.JsonWebSignature;
import org.jose4j.jwt.JwtClaims;

/**
 * The caller-authentication cost benchmark's issuer (auth-cost.sh): an RSA-2048 key as a JWKS file,
 * and N tokens signed with it (one per simulated caller, valid two hours, scope vigil.evaluate).
 *
 *   java -cp jose4j.jar:slf4j-api.jar AuthTokens.java <out-dir> <callers> <issuer> <audience>
 */
public class AuthTokens {
    public static void main(String[] args) throws Exception {
        Path out = Path.of(args[0]);
        int callers = Integer.parseInt(args[1]);
        RsaJsonWebKey key = RsaJwkGenerator.generateJwk(2048);
        key.setKeyId("bench-" + UUID.randomUUID());
        key.setAlgorithm(AlgorithmIdentifiers.RSA_USING_SHA256);
        Files.writeString(out.resolve("jwks.json"), new JsonWebKeySet(List.<JsonWebKey>of(key)).toJson(JsonWebKey.OutputControlLevel.PUBLIC_ONLY));
        List<String> tokens = new ArrayList<>();
        for (int i = 0; i < callers; i++) {
            JwtClaims c = new JwtClaims();
            c.setIssuer(args[2]);
            c.setAudience(args[3]);
            c.setSubject("caller-" + i);
            c.setIssuedAtToNow();
            c.setExpirationTimeMinutesInTheFuture(120);
            c.setJwtId(UUID.randomUUID().toString());
            c.setStringClaim("scope", "vigil.evaluate");
            JsonWebSignature jws = new JsonWebSignature();
            jws.setPayload(c.toJson());
            jws.setKey(key.getPrivateKey());
            jws.setKeyIdHeaderValue(key.getKeyId());
            jws.setAlgorithmHeaderValue(AlgorithmIdentifiers.RSA_USING_SHA256);
            tokens.add(jws.getCompactSerialization());
        }
        Files.write(out.resolve("tokens.txt"), tokens);
        System.out.println("wrote jwks.json and " + callers + " tokens to " + out);
    }
}
