package io.vigil.operator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.Size;
import io.fabric8.generator.annotation.ValidationRule;
import java.util.ArrayList;
import java.util.List;

/**
 * Who may call the engine (ADR 0013): bearer JWT and/or mutual TLS on the data port, JWT with read and
 * write scopes on the management port. Everything off by default. Secrets are referenced and mounted
 * into the engine pod, never copied; the engine re-reads mounted files, so a rotation needs no restart.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@ValidationRule(value = "!(has(self.data) && self.data.jwt) || has(self.jwt)",
        message = "spec.auth.jwt (issuer, audience, keys) is required when spec.auth.data.jwt is true")
@ValidationRule(value = "!(has(self.management) && self.management.jwt) || has(self.jwt)",
        message = "spec.auth.jwt (issuer, audience, keys) is required when spec.auth.management.jwt is true")
@ValidationRule(value = "!(has(self.data) && self.data.mutualTls) || (has(self.tls) && has(self.tls.clientCaSecretRef))",
        message = "spec.auth.tls (server certificate and clientCaSecretRef) is required when spec.auth.data.mutualTls is true")
@ValidationRule(value = "!(has(self.management) && self.management.tls) || has(self.tls)",
        message = "spec.auth.tls (the server certificate) is required when spec.auth.management.tls is true")
public class AuthSpec {

    @JsonPropertyDescription("The data port (decision API).")
    @Default("{}")
    public Data data = new Data();

    @JsonPropertyDescription("The management port (ruleset API, metrics, health detail).")
    @Default("{}")
    public Management management = new Management();

    @JsonPropertyDescription("The token issuer both ports trust: issuer, audience and its keys (a JWKS URL or a JWKS in a Secret).")
    public Jwt jwt;

    @JsonPropertyDescription("The engine's TLS: its certificate (data port with mutualTls, management port with management.tls)"
            + " and the CA its callers' certificates must come from.")
    public Tls tls;

    @JsonInclude(JsonInclude.Include.NON_NULL)
    public static class Data {
        @JsonPropertyDescription("Require a bearer JWT of spec.auth.jwt's issuer on /v1/*.")
        @Default("false")
        public boolean jwt;

        @JsonPropertyDescription("A scope or role the token must carry (scope, scp, roles or groups claim).")
        public String requiredScope;

        @JsonPropertyDescription("Serve the data port over TLS only and require a client certificate from spec.auth.tls's CA.")
        @Default("false")
        public boolean mutualTls;

        @JsonPropertyDescription("Client certificate subjects allowed (DN such as CN=switch,O=Acme, or a URI SAN such as a SPIFFE ID); empty: any certificate of the CA.")
        @Size(max = 64)
        public List<String> allowedSubjects = new ArrayList<>();
    }

    @JsonInclude(JsonInclude.Include.NON_NULL)
    public static class Management {
        @JsonPropertyDescription("Require a bearer JWT on the management port (the kubelet's probes stay open).")
        @Default("false")
        public boolean jwt;

        @JsonPropertyDescription("Scope or role of reading calls (GET: rulesets, health detail, metrics).")
        @Default("vigil.read")
        public String readScope = "vigil.read";

        @JsonPropertyDescription("Scope or role of changing calls (activate, validate, simulate, replay).")
        @Default("vigil.write")
        public String writeScope = "vigil.write";

        @JsonPropertyDescription("A static bearer credential that may read /q/metrics only (what Prometheus sends).")
        public SecretKeyRef metricsTokenSecretRef;

        @JsonPropertyDescription("Serve the management port over HTTPS only, with spec.auth.tls's certificate (no client certificate"
                + " asked): the kubelet's probes and Prometheus's scrapes use HTTPS, Prometheus trusting ca.crt of spec.auth.tls.secretName.")
        @Default("false")
        public boolean tls;
    }

    @JsonInclude(JsonInclude.Include.NON_NULL)
    @ValidationRule(value = "has(self.jwksUrl) != has(self.jwksSecretRef)",
            message = "set exactly one of jwksUrl and jwksSecretRef")
    public static class Jwt {
        @Required
        @JsonPropertyDescription("Required iss of the tokens.")
        public String issuer;

        @Required
        @Size(min = 1, max = 16)
        @JsonPropertyDescription("Accepted aud values (a token must name one).")
        public List<String> audience = new ArrayList<>();

        @JsonPropertyDescription("The issuer's JWKS URL (fetched every 10 min, early on an unknown key, never closer than 30 s).")
        public String jwksUrl;

        @JsonPropertyDescription("A JWKS document in a Secret (mounted; re-read when it changes).")
        public SecretKeyRef jwksSecretRef;
    }

    @JsonInclude(JsonInclude.Include.NON_NULL)
    public static class Tls {
        @Required
        @JsonPropertyDescription("A kubernetes.io/tls Secret (tls.crt, tls.key) with the engine's certificate; with issuerRef, cert-manager writes it.")
        public String secretName;

        @JsonPropertyDescription("The CA (PEM) that callers' client certificates must chain to (required with data.mutualTls).")
        public SecretKeyRef clientCaSecretRef;

        @JsonPropertyDescription("Have cert-manager issue the engine's certificate into secretName: the operator renders a cert-manager"
                + " Certificate for the engine Services' DNS names (needs cert-manager's CRDs; reported in status when missing).")
        public IssuerRef issuerRef;
    }

    /** A cert-manager issuer (cert-manager's own {@code issuerRef}: name, kind, group). */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public static class IssuerRef {
        @Required
        @JsonPropertyDescription("Name of the Issuer (in the FraudEngine's namespace) or ClusterIssuer.")
        public String name;

        @Default("Issuer")
        @JsonPropertyDescription("Issuer, ClusterIssuer, or the kind of an external issuer.")
        public String kind = "Issuer";

        @Default("cert-manager.io")
        @JsonPropertyDescription("API group of the issuer (another for external issuers).")
        public String group = "cert-manager.io";
    }
}
