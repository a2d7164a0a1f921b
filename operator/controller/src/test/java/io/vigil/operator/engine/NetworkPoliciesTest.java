package io.vigil.operator.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyEgressRule;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyIngressRule;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyPort;
import io.vigil.operator.Fixtures;
import io.vigil.operator.api.v1alpha1.FraudEngine;
import io.vigil.operator.engine.desired.NetworkPolicies;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class NetworkPoliciesTest {

    static List<String> ports(List<NetworkPolicyPort> ports) {
        return ports.stream().map(p -> p.getProtocol() + "/" + p.getPort().getIntVal()).toList();
    }

    static List<String> egressPorts(NetworkPolicy np) {
        return np.getSpec().getEgress().stream().flatMap(e -> ports(e.getPorts()).stream()).toList();
    }

    static NetworkPolicyIngressRule ingressOn(NetworkPolicy np, int port) {
        return np.getSpec().getIngress().stream().filter(r -> ports(r.getPorts()).contains("TCP/" + port)).findFirst().orElseThrow();
    }

    @Test
    void theEngineTalksToItsRedisAndDnsOnlyAndOnlyLabelledCallersReachTheDataPort() {
        NetworkPolicy np = NetworkPolicies.engine(Fixtures.engine("defaults"));
        assertThat(np.getSpec().getPolicyTypes()).containsExactly("Ingress", "Egress");
        assertThat(egressPorts(np)).containsExactlyInAnyOrder("UDP/53", "TCP/53", "TCP/6379");
        var data = ingressOn(np, 8081);
        assertThat(data.getFrom()).singleElement().satisfies(peer -> {
            assertThat(peer.getPodSelector().getMatchLabels()).isEqualTo(Map.of("vigil.io/fraud-caller", "true"));
            assertThat(peer.getNamespaceSelector().getMatchLabels()).as("any namespace").isEmpty();
        });
        var management = ingressOn(np, 9081);
        assertThat(management.getFrom()).extracting(p -> p.getNamespaceSelector() == null ? null : p.getNamespaceSelector().getMatchLabels())
                .containsExactlyInAnyOrder(null, Map.of("vigil.io/scrape", "true"));
    }

    @Test
    void callersAndTheMonitoringNamespaceAreConfigurable() {
        FraudEngine fe = Fixtures.engine("defaults");
        fe.getSpec().network.callerPodLabels = Map.of("app", "checkout");
        fe.getSpec().network.callerNamespaceLabels = Map.of("team", "payments");
        fe.getSpec().network.monitoringNamespaceLabels = Map.of("kubernetes.io/metadata.name", "monitoring");
        NetworkPolicy np = NetworkPolicies.engine(fe);
        var caller = ingressOn(np, 8081).getFrom().get(0);
        assertThat(caller.getPodSelector().getMatchLabels()).isEqualTo(Map.of("app", "checkout"));
        assertThat(caller.getNamespaceSelector().getMatchLabels()).isEqualTo(Map.of("team", "payments"));
        assertThat(ingressOn(np, 9081).getFrom()).filteredOn(p -> p.getNamespaceSelector() != null)
                .singleElement().satisfies(p -> assertThat(p.getNamespaceSelector().getMatchLabels())
                        .isEqualTo(Map.of("kubernetes.io/metadata.name", "monitoring")));
    }

    @Test
    void theRelayHasAPolicyToo() {
        NetworkPolicy managed = NetworkPolicies.relay(Fixtures.engine("defaults"));
        assertThat(managed.getSpec().getPodSelector().getMatchLabels()).containsEntry("app.kubernetes.io/component", "relay");
        assertThat(managed.getSpec().getPolicyTypes()).containsExactly("Ingress", "Egress");
        assertThat(egressPorts(managed)).containsExactlyInAnyOrder("UDP/53", "TCP/53", "TCP/6379", "TCP/9092");
        NetworkPolicyEgressRule kafka = managed.getSpec().getEgress().get(2);
        assertThat(kafka.getTo()).singleElement().satisfies(p -> assertThat(p.getPodSelector().getMatchLabels())
                .isEqualTo(Map.of("strimzi.io/cluster", "fraud-kafka")));
        assertThat(ingressOn(managed, 9091).getFrom()).hasSize(2);
        assertThat(managed.getSpec().getIngress()).as("management port only").hasSize(1);

        NetworkPolicy external = NetworkPolicies.relay(Fixtures.engine("external"));
        assertThat(egressPorts(external)).containsExactlyInAnyOrder("UDP/53", "TCP/53", "TCP/6379", "TCP/9092");
    }

    @Test
    void externalAddressesThatAreIpsAreNamedHostNamesAreNot() {
        NetworkPolicyEgressRule ips = NetworkPolicies.toAddresses(List.of("10.0.0.5:6380", " 10.0.0.6:6380"));
        assertThat(ports(ips.getPorts())).containsExactly("TCP/6380");
        assertThat(ips.getTo()).extracting(p -> p.getIpBlock().getCidr()).containsExactly("10.0.0.5/32", "10.0.0.6/32");
        NetworkPolicyEgressRule names = NetworkPolicies.toAddresses(List.of("kafka-0.shared:9092", "kafka-1.shared:9093"));
        assertThat(ports(names.getPorts())).containsExactly("TCP/9092", "TCP/9093");
        assertThat(names.getTo()).as("NetworkPolicies cannot name hosts: the ports, anywhere").isEmpty();
    }
}
