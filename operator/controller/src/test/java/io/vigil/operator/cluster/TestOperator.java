package io.vigil.operator.cluster;

import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.javaoperatorsdk.operator.Operator;
import io.micrometer.core.instrument.MeterRegistry;
import io.vigil.operator.Fixtures;
import io.vigil.operator.api.v1alpha1.FraudRuleset;
import io.vigil.operator.engine.FraudEngineReconciler;
import io.vigil.operator.rulesets.FraudRulesetReconciler;
import io.vigil.operator.support.OptionalCrds;
import io.vigil.testing.kube.LocalCluster;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.function.Supplier;
import java.util.stream.Stream;

/** What every operator test on the local control plane starts from: Vigil's CRDs, the sample rulesets, the reconcilers in this JVM. */
final class TestOperator {
    private TestOperator() {
    }

    /** The committed CRDs (what users install) and the sample FraudRulesets in {@code ns}. */
    static void installCrdsAndRulesets(KubernetesClient client, String ns) {
        try (Stream<Path> files = Files.list(Fixtures.repoRoot().resolve("crds"))) {
            for (Path f : files.filter(p -> p.toString().endsWith(".yml")).sorted().toList()) {
                LocalCluster.applyCrd(client, Fixtures.read(f, CustomResourceDefinition.class));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        for (FraudRuleset r : Fixtures.sampleRulesets(ns)) {
            r.getMetadata().setGeneration(null);
            client.resource(r).create();
        }
    }

    /** The FraudRuleset and FraudEngine reconcilers, restricted to {@code ns}, started on the tests' client. */
    static Operator start(KubernetesClient client, String ns, MeterRegistry meters) {
        return start(client, ns, meters, false);
    }

    /** @param ownClient the operator closes {@code client} when it stops (a client of its own) */
    static Operator start(KubernetesClient client, String ns, MeterRegistry meters, boolean ownClient) {
        OptionalCrds.forget();
        Operator operator = new Operator(o -> o.withKubernetesClient(client).withCloseClientOnStop(ownClient));
        operator.register(new FraudRulesetReconciler(), o -> o.settingNamespace(ns));
        operator.register(new FraudEngineReconciler(meters), o -> o.settingNamespace(ns));
        operator.start();
        return operator;
    }

    /**
     * Polls every 250 ms until {@code probe} answers non-null; fails after {@code wait} with what was
     * awaited and {@code diagnostics} (what the cluster looked like).
     */
    static <T> T await(String what, Duration wait, Supplier<T> probe, Supplier<String> diagnostics) {
        long deadline = System.nanoTime() + wait.toNanos();
        while (true) {
            T value = probe.get();
            if (value != null) {
                return value;
            }
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out after " + wait.toSeconds() + "s waiting for " + what + "\n" + diagnostics.get());
            }
            try {
                Thread.sleep(250);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted waiting for " + what);
            }
        }
    }
}
