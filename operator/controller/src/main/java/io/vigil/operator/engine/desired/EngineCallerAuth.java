package io.vigil.operator.engine.desired;

import io.fabric8.certmanager.api.model.v1.Certificate;
import io.fabric8.certmanager.api.model.v1.CertificateBuilder;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.KeyToPathBuilder;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeBuilder;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.VolumeMountBuilder;
import io.vigil.operator.api.v1alpha1.AuthSpec;
import io.vigil.operator.api.v1alpha1.FraudEngine;
import io.vigil.operator.api.v1alpha1.PersonalDataSpec;
import io.vigil.operator.api.v1alpha1.SecretKeyRef;
import io.vigil.operator.engine.Names;
import io.vigil.operator.engine.desired.MountedSecret.Content;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The engine's caller authentication and personal-data settings from {@code spec.auth} and
 * {@code spec.personalData} (ADR 0013): environment for the engine's {@code vigil.auth.*},
 * {@code vigil.outbox.personal-data.*} and Quarkus TLS keys, and the referenced Secrets mounted
 * read-only (the engine re-reads them, so a rotated Secret needs no restart and is not in the config hash).
 */
public final class EngineCallerAuth {
    static final String AUTH_DIR = "/etc/vigil/auth";
    static final String JWKS_FILE = AUTH_DIR + "/jwks/jwks.json";
    static final String METRICS_TOKEN_FILE = AUTH_DIR + "/metrics/token";
    static final String TLS_DIR = "/etc/vigil/tls";
    static final String HASH_KEY_FILE = "/etc/vigil/personal-data/key";
    /** With mutual TLS the data port serves HTTPS on the same port; plain HTTP (disabled) moves aside. */
    static final int PLAIN_PORT_WITH_TLS = 8080;

    private EngineCallerAuth() {
    }

    static void env(FraudEngine fe, List<EnvVar> env) {
        AuthSpec a = fe.getSpec().auth;
        if (a != null) {
            if (a.data.jwt || a.management.jwt) {
                EngineWorkload.add(env, "VIGIL_AUTH_JWT_ISSUER", a.jwt.issuer);
                EngineWorkload.add(env, "VIGIL_AUTH_JWT_AUDIENCE", String.join(",", a.jwt.audience));
                if (a.jwt.jwksUrl != null) {
                    EngineWorkload.add(env, "VIGIL_AUTH_JWT_JWKS_URL", a.jwt.jwksUrl);
                } else {
                    EngineWorkload.add(env, "VIGIL_AUTH_JWT_JWKS_FILE", JWKS_FILE);
                }
            }
            if (a.data.jwt) {
                EngineWorkload.add(env, "VIGIL_AUTH_DATA_JWT_ENABLED", true);
                if (a.data.requiredScope != null) {
                    EngineWorkload.add(env, "VIGIL_AUTH_DATA_REQUIRED_SCOPE", a.data.requiredScope);
                }
            }
            if (a.data.mutualTls) {
                EngineWorkload.add(env, "VIGIL_AUTH_DATA_CLIENT_CERTIFICATE_REQUIRED", true);
                if (!a.data.allowedSubjects.isEmpty()) {
                    // a DN holds commas: escaped, as the engine reads a comma-separated list
                    List<String> escaped = new ArrayList<>();
                    a.data.allowedSubjects.forEach(s -> escaped.add(s.replace(",", "\\,")));
                    EngineWorkload.add(env, "VIGIL_AUTH_DATA_ALLOWED_SUBJECTS", String.join(",", escaped));
                }
            }
            if (a.management.jwt) {
                EngineWorkload.add(env, "VIGIL_AUTH_MANAGEMENT_JWT_ENABLED", true);
                EngineWorkload.add(env, "VIGIL_AUTH_MANAGEMENT_READ_SCOPE", a.management.readScope);
                EngineWorkload.add(env, "VIGIL_AUTH_MANAGEMENT_WRITE_SCOPE", a.management.writeScope);
                if (a.management.metricsTokenSecretRef != null) {
                    EngineWorkload.add(env, "VIGIL_AUTH_MANAGEMENT_METRICS_TOKEN_FILE", METRICS_TOKEN_FILE);
                }
            }
        }
        PersonalDataSpec p = fe.getSpec().personalData;
        if (p != null) {
            if (!p.hashFields.isEmpty()) {
                EngineWorkload.add(env, "VIGIL_OUTBOX_PERSONAL_DATA_HASH_FIELDS", String.join(",", p.hashFields));
                EngineWorkload.add(env, "VIGIL_OUTBOX_PERSONAL_DATA_HASH_KEY_FILE", HASH_KEY_FILE);
            }
            if (!p.dropFields.isEmpty()) {
                EngineWorkload.add(env, "VIGIL_OUTBOX_PERSONAL_DATA_DROP_FIELDS", String.join(",", p.dropFields));
            }
        }
    }

    /**
     * Quarkus's TLS settings as system properties (appended to JAVA_TOOL_OPTIONS): a named TLS
     * configuration ({@code quarkus.tls.<name>.*}) cannot be set through environment variables.
     * Data port with mutual TLS: HTTPS on the data port's number; plain HTTP is disabled (not bound),
     * its port moved aside. Management port with TLS: HTTPS only on its number, no client certificate
     * asked (the kubelet and Prometheus have none; the bearer JWT of ADR 0013 says who may call).
     */
    static String systemProperties(FraudEngine fe) {
        AuthSpec a = fe.getSpec().auth;
        StringBuilder out = new StringBuilder();
        if (a != null && a.data.mutualTls) {
            out.append(serverCertificate("data"))
                    .append(" -Dquarkus.tls.data.trust-store.pem.certs=" + TLS_DIR + "/client-ca/ca.crt")
                    .append(" -Dquarkus.tls.data.reload-period=1m")
                    .append(" -Dquarkus.http.tls-configuration-name=data")
                    .append(" -Dquarkus.http.insecure-requests=disabled")
                    .append(" -Dquarkus.http.ssl-port=" + EngineWorkload.DATA_PORT)
                    .append(" -Dquarkus.http.port=" + PLAIN_PORT_WITH_TLS);
        }
        if (managementTls(fe)) {
            out.append(serverCertificate("management")).append(" -Dquarkus.tls.management.reload-period=1m")
                    .append(" -Dquarkus.management.tls-configuration-name=management");
        }
        return out.toString();
    }

    /**
     * The engine's certificate as the key store of a named TLS configuration (each is reloaded every
     * minute, so a renewal needs no restart).
     */
    private static String serverCertificate(String configuration) {
        String prefix = " -Dquarkus.tls." + configuration;
        return prefix + ".key-store.pem.0.cert=" + TLS_DIR + "/server/tls.crt" + prefix + ".key-store.pem.0.key=" + TLS_DIR + "/server/tls.key";
    }

    /** Whether the management port serves HTTPS (probes and scrapes use HTTPS). */
    public static boolean managementTls(FraudEngine fe) {
        AuthSpec a = fe.getSpec().auth;
        return a != null && a.management.tls && a.tls != null;
    }

    /** Whether the engine serves its own certificate on some port (spec.auth.tls.secretName is mounted). */
    static boolean servesTls(FraudEngine fe) {
        AuthSpec a = fe.getSpec().auth;
        return a != null && a.tls != null && (a.data.mutualTls || a.management.tls);
    }

    /**
     * Every Secret key the engine pod mounts, in volume order. The volumes, their mounts and the
     * operator's check of the Secrets ({@code engine/SecretChecks}) all come from this list, so what is
     * checked is what is mounted.
     */
    public static List<MountedSecret> secrets(FraudEngine fe) {
        List<MountedSecret> out = new ArrayList<>();
        AuthSpec a = fe.getSpec().auth;
        if (a != null) {
            if ((a.data.jwt || a.management.jwt) && a.jwt.jwksSecretRef != null) {
                out.add(mounted("spec.auth.jwt.jwksSecretRef", a.jwt.jwksSecretRef, "auth-jwks", "jwks.json", Content.JWKS));
            }
            if (a.management.jwt && a.management.metricsTokenSecretRef != null) {
                out.add(mounted("spec.auth.management.metricsTokenSecretRef", a.management.metricsTokenSecretRef,
                        "auth-metrics-token", "token", Content.BEARER_TOKEN));
            }
            if (servesTls(fe)) {
                String writer = certificateIssuer(fe) == null ? null : "cert-manager Certificate " + Names.engineCertificate(fe);
                out.add(new MountedSecret("spec.auth.tls.secretName", a.tls.secretName, "tls.crt", "tls-server", "tls.crt",
                        Content.CERTIFICATE_CHAIN, writer));
                out.add(new MountedSecret("spec.auth.tls.secretName", a.tls.secretName, "tls.key", "tls-server", "tls.key",
                        Content.PRIVATE_KEY, writer));
                if (managementTls(fe) && Boolean.TRUE.equals(fe.getSpec().observability.serviceMonitor.enabled)) {
                    // Not read by the engine: the ServiceMonitor's HTTPS scrape trusts it (Monitoring), so it is
                    // checked like the rest; mounted with them, as every checked key is.
                    out.add(new MountedSecret("spec.auth.tls.secretName (ca.crt for the ServiceMonitor's HTTPS scrape)", a.tls.secretName,
                            "ca.crt", "tls-server", "ca.crt", Content.CA_CERTIFICATES, writer));
                }
            }
            if (a.data.mutualTls && a.tls != null && a.tls.clientCaSecretRef != null) {
                out.add(mounted("spec.auth.tls.clientCaSecretRef", a.tls.clientCaSecretRef, "tls-client-ca", "ca.crt",
                        Content.CA_CERTIFICATES));
            }
        }
        PersonalDataSpec p = fe.getSpec().personalData;
        if (p != null && !p.hashFields.isEmpty() && p.hashKeySecretRef != null) {
            out.add(mounted("spec.personalData.hashKeySecretRef", p.hashKeySecretRef, "personal-data-key", "key", Content.HASH_KEY));
        }
        return out;
    }

    /** The referenced Secrets as volumes of the engine pod: one per Secret, its keys as files. */
    static List<Volume> volumes(FraudEngine fe) {
        Map<String, VolumeBuilder> byVolume = new LinkedHashMap<>();
        for (MountedSecret s : secrets(fe)) {
            byVolume.computeIfAbsent(s.volume(), v -> new VolumeBuilder().withName(v).withNewSecret().withSecretName(s.secret())
                            .withDefaultMode(0444).endSecret())
                    .editSecret().addToItems(new KeyToPathBuilder().withKey(s.key()).withPath(s.file()).build()).endSecret();
        }
        return byVolume.values().stream().map(VolumeBuilder::build).toList();
    }

    /** Where each of {@link #volumes} is mounted in the engine container. */
    static List<VolumeMount> mounts(FraudEngine fe) {
        List<VolumeMount> out = new ArrayList<>();
        for (Volume v : volumes(fe)) {
            String path = switch (v.getName()) {
                case "auth-jwks" -> AUTH_DIR + "/jwks";
                case "auth-metrics-token" -> AUTH_DIR + "/metrics";
                case "tls-server" -> TLS_DIR + "/server";
                case "tls-client-ca" -> TLS_DIR + "/client-ca";
                default -> "/etc/vigil/personal-data";
            };
            out.add(new VolumeMountBuilder().withName(v.getName()).withMountPath(path).withReadOnly(true).build());
        }
        return out;
    }

    /** The issuer of the engine's serving certificate when cert-manager makes it (a port serves TLS), else null. */
    public static AuthSpec.IssuerRef certificateIssuer(FraudEngine fe) {
        return servesTls(fe) ? fe.getSpec().auth.tls.issuerRef : null;
    }

    /**
     * The cert-manager Certificate of the engine's serving certificate, written into the Secret the pods
     * mount: every name the data Service answers to in the cluster (and the management Service when that
     * port serves TLS: the name Prometheus checks), ECDSA P-256 (a cheaper handshake
     * than RSA 2048: callers that reconnect pay for it), PKCS#8 (what every PEM reader takes), a new key
     * on each renewal. The engine reloads the mounted files, so a renewal needs no restart.
     */
    public static Certificate certificate(FraudEngine fe) {
        // Also rendered when not wanted (the SDK then looks for what to delete): no tls section is no NPE.
        AuthSpec.Tls tls = fe.getSpec().auth == null || fe.getSpec().auth.tls == null ? new AuthSpec.Tls() : fe.getSpec().auth.tls;
        AuthSpec.IssuerRef issuer = tls.issuerRef == null ? new AuthSpec.IssuerRef() : tls.issuerRef;
        String ns = fe.getMetadata().getNamespace();
        List<String> dnsNames = new ArrayList<>(serviceNames(Names.engine(fe), ns));
        if (managementTls(fe)) {
            dnsNames.addAll(serviceNames(Names.engineManagement(fe), ns));
        }
        return new CertificateBuilder()
                .withMetadata(Meta.of(fe, Names.engineCertificate(fe), Names.ENGINE))
                .withNewSpec()
                .withSecretName(tls.secretName)
                .withCommonName(Names.engine(fe) + "." + ns + ".svc")
                .withDnsNames(dnsNames)
                .withUsages("server auth", "digital signature", "key encipherment")
                .withNewPrivateKey().withAlgorithm("ECDSA").withSize(256).withEncoding("PKCS8").withRotationPolicy("Always").endPrivateKey()
                .withNewIssuerRef().withName(issuer.name).withKind(issuer.kind).withGroup(issuer.group).endIssuerRef()
                .endSpec()
                .build();
    }

    /** Every name a Service answers to inside the cluster. */
    private static List<String> serviceNames(String service, String ns) {
        return List.of(service, service + "." + ns, service + "." + ns + ".svc", service + "." + ns + ".svc.cluster.local");
    }

    /** The name the management port's certificate is checked against by Prometheus (it scrapes pod IPs). */
    public static String managementServerName(FraudEngine fe) {
        return Names.engineManagement(fe) + "." + fe.getMetadata().getNamespace() + ".svc";
    }

    private static MountedSecret mounted(String field, SecretKeyRef ref, String volume, String file, Content content) {
        return new MountedSecret(field, ref.name, ref.key, volume, file, content);
    }
}
