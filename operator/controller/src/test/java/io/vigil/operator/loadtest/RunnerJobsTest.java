package io.vigil.operator.loadtest;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HostAlias;
import io.fabric8.kubernetes.api.model.TolerationBuilder;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.vigil.operator.api.v1alpha1.AuthSpec;
import io.vigil.operator.api.v1alpha1.FraudEngine;
import io.vigil.operator.api.v1alpha1.FraudLoadTest;
import io.vigil.operator.api.v1alpha1.FraudLoadTestSpec;
import io.vigil.operator.api.v1alpha1.SchedulingSpec;
import io.vigil.operator.api.v1alpha1.SecretKeyRef;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * What the planner renders for the runners' placement and caller tokens, and Vigil's own runner Jobs
 * (ADR 0014) made from a rendered TestRun: the k6-operator's names, labels and command.
 */
class RunnerJobsTest {

    static FraudLoadTest placedWithTokens() {
        FraudLoadTest flt = LoadTests.fixture("constant-arrival-rate");
        flt.getSpec().parallelism = 3;
        flt.getSpec().runner = new FraudLoadTestSpec.Runner();
        flt.getSpec().runner.image = "localhost/vigil/loadtest-runner:0.1.0";
        flt.getSpec().runner.scheduling = new SchedulingSpec();
        flt.getSpec().runner.scheduling.nodeSelector.put("vigil.io/node", "real");
        flt.getSpec().runner.scheduling.tolerations.add(new TolerationBuilder().withKey("vigil.io/real-node")
                .withOperator("Exists").withEffect("NoSchedule").build());
        flt.getSpec().runner.tokensSecretRef = new SecretKeyRef("loadtest-tokens", "tokens");
        return flt;
    }

    static FraudEngine jwtEngine(String ns) {
        FraudEngine fe = LoadTests.engine(ns);
        fe.getSpec().auth.data.jwt = true;
        return fe;
    }

    @Test
    void anEngineThatWantsCredentialsTheSpecDoesNotGiveIsRefusedUpFrontNamingThem() {
        FraudLoadTest flt = LoadTests.fixture("constant-arrival-rate");
        FraudEngine fe = jwtEngine(flt.getMetadata().getNamespace());
        LoadTestPlan plan = LoadTestPlanner.plan(flt, fe);
        assertThat(plan.runnable()).isFalse();
        assertThat(plan.credentialsMissing()).isTrue();
        assertThat(plan.problems()).singleElement().asString()
                .startsWith("spec.runner.tokensSecretRef: required").contains("spec.auth.data.jwt");

        fe.getSpec().auth.data.mutualTls = true;
        fe.getSpec().auth.tls = new AuthSpec.Tls();
        plan = LoadTestPlanner.plan(placedWithTokens(), fe);
        assertThat(plan.credentialsMissing()).isTrue();
        assertThat(plan.problems()).singleElement().asString()
                .startsWith("spec.runner.clientCertificate: required").contains("spec.auth.data.mutualTls", "tls.crt", "tls.key", "ca.crt");
        assertThat(LoadTestPlanner.plan(flt, fe).problems()).as("both named").hasSize(2);

        flt.getSpec().duration = "forever";
        plan = LoadTestPlanner.plan(flt, fe);
        assertThat(plan.credentialsMissing()).as("another problem too: the spec itself is invalid").isFalse();
        assertThat(plan.problems()).hasSize(3);
    }

    static FraudLoadTest withClientCertificate(FraudLoadTest flt) {
        flt.getSpec().runner.clientCertificate = new FraudLoadTestSpec.ClientCertificate();
        flt.getSpec().runner.clientCertificate.secretName = "loadtest-client";
        return flt;
    }

    /** Mutual TLS: HTTPS to the Service's name, the Secret's certificate, key and CA mounted, k6 told where (vigil.js, Go's SSL_CERT_FILE). */
    @Test
    @SuppressWarnings("unchecked")
    void aMutualTlsEngineIsCalledOverHttpsWithTheMountedClientCertificateAndItsCaAlone() {
        FraudLoadTest flt = withClientCertificate(placedWithTokens());
        FraudEngine fe = jwtEngine(flt.getMetadata().getNamespace());
        fe.getSpec().auth.data.mutualTls = true;
        fe.getSpec().auth.tls = new AuthSpec.Tls();
        LoadTestPlan plan = LoadTestPlanner.plan(flt, fe);
        assertThat(plan.problems()).isEmpty();
        Map<String, Object> env = LoadTestPlannerGoldenTest.env(plan);
        String dir = LoadTestPlanner.CLIENT_CERTIFICATE_DIR;
        assertThat(env).containsEntry("BASE_URL", "https://fraud-engine." + flt.getMetadata().getNamespace() + ".svc:8081")
                .containsEntry("CLIENT_CERT", dir + "/tls.crt").containsEntry("CLIENT_KEY", dir + "/tls.key")
                .containsEntry("SSL_CERT_FILE", dir + "/ca.crt").containsKey("TOKENS_FILE");
        Map<String, Object> runner = (Map<String, Object>) ((Map<String, Object>) plan.testRun().getAdditionalProperties().get("spec")).get("runner");
        assertThat(LoadTests.yaml(runner.get("volumes"))).contains("secretName: loadtest-tokens", """
                - name: client-certificate
                  secret:
                    secretName: loadtest-client
                    items:
                    - key: tls.crt
                      path: tls.crt
                    - key: tls.key
                      path: tls.key
                    - key: ca.crt
                      path: ca.crt
                """);
        assertThat(LoadTests.yaml(runner.get("volumeMounts"))).contains("- name: client-certificate\n  mountPath: " + dir + "\n  readOnly: true");

        // Vigil's runner Jobs mount it too.
        GenericKubernetesResource testRun = LoadTests.SERIALIZATION.clone(plan.testRun());
        testRun.getMetadata().setUid("00000000-0000-0000-0000-0000000000a2");
        var k6 = RunnerJobs.of(testRun, List.of(), LoadTests.SERIALIZATION).getFirst().getSpec().getTemplate().getSpec();
        assertThat(k6.getVolumes()).extracting(v -> v.getName())
                .containsExactly(RunnerJobs.SCRIPT_VOLUME, LoadTestPlanner.TOKENS_VOLUME, LoadTestPlanner.CLIENT_CERTIFICATE_VOLUME);
        assertThat(k6.getContainers().getFirst().getVolumeMounts()).extracting(m -> m.getMountPath()).contains(dir);

        // Another CA key of the same Secret; and an engine without mutual TLS ignores the certificate (plain HTTP).
        flt.getSpec().runner.clientCertificate.serverCaKey = "engine-ca.pem";
        assertThat(LoadTests.yaml(((Map<String, Object>) ((Map<String, Object>) LoadTestPlanner.plan(flt, fe).testRun()
                .getAdditionalProperties().get("spec")).get("runner")).get("volumes"))).contains("- key: engine-ca.pem\n      path: ca.crt");
        fe.getSpec().auth.data.mutualTls = false;
        assertThat(LoadTestPlannerGoldenTest.env(LoadTestPlanner.plan(flt, fe))).containsEntry("BASE_URL",
                "http://fraud-engine." + flt.getMetadata().getNamespace() + ".svc:8081").doesNotContainKeys("CLIENT_CERT", "SSL_CERT_FILE");
    }

    @Test
    @SuppressWarnings("unchecked")
    void tokensAreMountedAndNamedByTokensFileAndThePlacementIsTheRunners() {
        FraudLoadTest flt = placedWithTokens();
        LoadTestPlan plan = LoadTestPlanner.plan(flt, jwtEngine(flt.getMetadata().getNamespace()));
        assertThat(plan.problems()).isEmpty();
        Map<String, Object> runner = (Map<String, Object>) ((Map<String, Object>) plan.testRun().getAdditionalProperties().get("spec")).get("runner");
        assertThat(runner.get("nodeSelector")).isEqualTo(Map.of("vigil.io/node", "real"));
        assertThat(LoadTests.yaml(runner.get("volumes"))).contains("secretName: loadtest-tokens", "key: tokens", "path: tokens");
        assertThat(LoadTests.yaml(runner.get("volumeMounts"))).contains("mountPath: " + LoadTestPlanner.TOKENS_DIR, "readOnly: true");
        assertThat(LoadTests.yaml(runner.get("env"))).contains("name: TOKENS_FILE\n  value: " + LoadTestPlanner.TOKENS_DIR + "/tokens");

        // Without tokens: no volume and no TOKENS_FILE (the scripts then send no Authorization header).
        FraudLoadTest plain = LoadTests.fixture("constant-arrival-rate");
        Map<String, Object> plainRunner = (Map<String, Object>) ((Map<String, Object>) LoadTestPlanner
                .plan(plain, LoadTests.engine(plain.getMetadata().getNamespace())).testRun().getAdditionalProperties().get("spec")).get("runner");
        assertThat(plainRunner).doesNotContainKeys("volumes", "volumeMounts", "nodeSelector", "tolerations");
        assertThat(LoadTests.yaml(plainRunner.get("env"))).doesNotContain("TOKENS_FILE");
    }

    @Test
    void runnerJobsAreTheK6OperatorsOnesOnePerSegment() {
        FraudLoadTest flt = placedWithTokens();
        GenericKubernetesResource testRun = LoadTests.SERIALIZATION.clone(
                LoadTestPlanner.plan(flt, jwtEngine(flt.getMetadata().getNamespace())).testRun());
        testRun.getMetadata().setUid("00000000-0000-0000-0000-0000000000a1");
        HostAlias engine = new HostAlias(List.of("fraud-engine.payments.svc"), "10.96.0.42");
        List<Job> jobs = RunnerJobs.of(testRun, List.of(engine), LoadTests.SERIALIZATION);

        String name = testRun.getMetadata().getName();
        assertThat(jobs).extracting(j -> j.getMetadata().getName()).containsExactly(name + "-1", name + "-2", name + "-3");
        Job second = jobs.get(1);
        assertThat(second.getMetadata().getLabels()).containsEntry("k6_cr", name).containsEntry("runner", "true")
                .containsEntry(LoadTestPlanner.LABEL_LOAD_TEST, flt.getMetadata().getName());
        assertThat(second.getMetadata().getOwnerReferences()).singleElement()
                .satisfies(o -> assertThat(o.getKind() + "/" + o.getUid()).isEqualTo("TestRun/00000000-0000-0000-0000-0000000000a1"));
        assertThat(second.getSpec().getBackoffLimit()).isZero();
        var pod = second.getSpec().getTemplate().getSpec();
        assertThat(pod.getRestartPolicy()).isEqualTo("Never");
        assertThat(pod.getNodeSelector()).containsEntry("vigil.io/node", "real");
        assertThat(pod.getTolerations()).extracting(t -> t.getKey()).containsExactly("vigil.io/real-node");
        assertThat(pod.getSecurityContext().getRunAsUser()).isEqualTo(LoadTestPlanner.K6_UID);
        assertThat(pod.getHostAliases()).containsExactly(engine);
        assertThat(pod.getVolumes()).extracting(v -> v.getName()).containsExactly(RunnerJobs.SCRIPT_VOLUME, LoadTestPlanner.TOKENS_VOLUME);
        var k6 = pod.getContainers().getFirst();
        assertThat(k6.getImage()).isEqualTo("localhost/vigil/loadtest-runner:0.1.0");
        assertThat(k6.getCommand()).containsSubsequence("k6", "run", "--quiet", "--execution-segment=1/3:2/3",
                "--execution-segment-sequence=0,1/3,2/3,1", "--tag", "testid=" + name, "/test/constant.js", "instance_id=2");
        assertThat(k6.getVolumeMounts()).extracting(m -> m.getMountPath()).containsExactly("/test", LoadTestPlanner.TOKENS_DIR);
        assertThat(k6.getEnv()).extracting(EnvVar::getName).contains("BASE_URL", "P99_MS", "TOKENS_FILE", "TERMINATION_LOG");
        assertThat(k6.getSecurityContext().getAllowPrivilegeEscalation()).isFalse();
    }

    @Test
    void oneRunnerHasNoSegmentAndTheSegmentsCoverTheWholeRun() {
        assertThat(RunnerJobs.segment(1, 1)).isEmpty();
        assertThat(RunnerJobs.segment(1, 2)).first().isEqualTo("--execution-segment=0:1/2");
        assertThat(RunnerJobs.segment(2, 2)).first().isEqualTo("--execution-segment=1/2:1");
    }
}
