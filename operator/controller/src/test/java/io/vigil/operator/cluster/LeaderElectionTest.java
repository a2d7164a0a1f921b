package io.vigil.operator.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.javaoperatorsdk.operator.Operator;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.ControllerConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import io.vigil.operator.Fixtures;
import io.vigil.operator.api.v1alpha1.FraudRuleset;
import io.vigil.operator.rulesets.FraudRulesetReconciler;
import io.vigil.operator.support.LeaderElection;
import io.vigil.testing.kube.LocalCluster;
import io.vigil.testing.kube.LocalKubernetes;
import io.vigil.testing.kube.TestNamespace;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Two operator instances (two java-operator-sdk runtimes in this JVM, each with its own API client and
 * identity) compete for the real Lease on the local API server: exactly one reconciles. The leader is
 * then killed without a goodbye (its client is closed: no renewal, no release, as when its pod dies),
 * and the stand-by takes over once the lease expires.
 */
@LocalKubernetes
class LeaderElectionTest {

    static final String LEASE = "vigil-operator-leader";
    /** Short, so the hand-over fits a test; the production durations are LeaderElection's constants. */
    static final Duration LEASE_DURATION = Duration.ofSeconds(4);

    static KubernetesClient admin;
    static String ns;
    /** FraudRuleset name -> identities of the instances that reconciled it. */
    static final Map<String, Set<String>> reconciledBy = new ConcurrentHashMap<>();
    static final Map<String, Instance> instances = new ConcurrentHashMap<>();

    record Instance(String identity, KubernetesClient client, Operator operator) {
    }

    /** The production reconciler, noting which instance ran it. */
    @ControllerConfiguration(name = "fraudruleset")
    static class Recording implements Reconciler<FraudRuleset> {
        final String identity;
        final FraudRulesetReconciler delegate = new FraudRulesetReconciler();

        Recording(String identity) {
            this.identity = identity;
        }

        @Override
        public UpdateControl<FraudRuleset> reconcile(FraudRuleset ruleset, Context<FraudRuleset> context) {
            reconciledBy.computeIfAbsent(ruleset.getMetadata().getName(), k -> ConcurrentHashMap.newKeySet()).add(identity);
            return delegate.reconcile(ruleset, context);
        }
    }

    @BeforeAll
    static void setUp(KubernetesClient kube, TestNamespace namespace) throws IOException {
        admin = kube;
        ns = namespace.name();
        try (Stream<Path> files = Files.list(Fixtures.repoRoot().resolve("crds"))) {
            for (Path f : files.filter(p -> p.toString().endsWith(".yml")).sorted().toList()) {
                LocalCluster.applyCrd(admin, Fixtures.read(f, CustomResourceDefinition.class));
            }
        }
        for (String identity : new String[] {"operator-a", "operator-b"}) {
            KubernetesClient client = LocalCluster.newClient();
            // exitOnStopLeading off: both instances share this JVM (in a pod, the loser exits and restarts).
            var election = LeaderElection.configuration(LEASE, ns, identity, LEASE_DURATION, Duration.ofSeconds(3),
                    Duration.ofMillis(500), false);
            Operator operator = new Operator(o -> o.withKubernetesClient(client).withCloseClientOnStop(false)
                    .withLeaderElectionConfiguration(election));
            operator.register(new Recording(identity), o -> o.settingNamespace(ns));
            operator.start();
            instances.put(identity, new Instance(identity, client, operator));
        }
    }

    @AfterAll
    static void tearDown() {
        for (Instance i : instances.values()) {
            try {
                i.operator().stop();
            } catch (RuntimeException ignored) {
                // the killed leader's client is already closed
            }
            i.client().close();
        }
    }

    @Test
    void exactlyOneInstanceReconcilesAndTheStandByTakesOverWhenTheLeaderDies() {
        String leader = awaitHolder(null);
        String standBy = leader.equals("operator-a") ? "operator-b" : "operator-a";

        createRuleset("card-auth-v1");
        FraudRulesetImmutabilityTest.awaitValid(admin, ns, "card-auth-v1", true);
        assertThat(reconciledBy.get("card-auth-v1")).as("only the Lease holder reconciles").containsExactly(leader);

        // Kill the leader: its client goes away mid-term, so it neither renews nor releases the Lease.
        instances.get(leader).client().close();
        assertThat(awaitHolder(leader)).isEqualTo(standBy);
        Lease lease = admin.leases().inNamespace(ns).withName(LEASE).get();
        assertThat(lease.getSpec().getLeaseTransitions()).as("one hand-over").isGreaterThanOrEqualTo(1);

        createRuleset("card-monitoring-v1");
        FraudRulesetImmutabilityTest.awaitValid(admin, ns, "card-monitoring-v1", true);
        assertThat(reconciledBy.get("card-monitoring-v1")).as("the new leader reconciles, the dead one cannot").containsExactly(standBy);
    }

    /** Waits for a holder other than {@code not} (null: any) and answers it. */
    static String awaitHolder(String not) {
        return FraudRulesetImmutabilityTest.await("Lease " + LEASE + " held by an instance other than " + not, () -> {
            Lease lease = admin.leases().inNamespace(ns).withName(LEASE).get();
            String holder = lease == null || lease.getSpec() == null ? null : lease.getSpec().getHolderIdentity();
            return holder != null && !holder.isBlank() && !holder.equals(not) && instances.containsKey(holder) ? holder : null;
        });
    }

    static void createRuleset(String name) {
        FraudRuleset r = Fixtures.sampleRulesets(ns).stream().filter(x -> name.equals(x.getMetadata().getName())).findFirst().orElseThrow();
        r.getMetadata().setGeneration(null);
        admin.resource(r).create();
    }
}
