package io.vigil.operator.engine.desired;

import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.LabelSelectorBuilder;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyBuilder;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyEgressRule;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyEgressRuleBuilder;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyIngressRule;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyIngressRuleBuilder;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyPeer;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyPeerBuilder;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyPort;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyPortBuilder;
import io.vigil.operator.api.v1alpha1.FraudEngine;
import io.vigil.operator.api.v1alpha1.NetworkSpec;
import io.vigil.operator.engine.Names;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The engine's and the relay's NetworkPolicies: default deny both ways, then only what each pod needs.
 * Engine: the data port from labelled callers (spec.network), the management port from its own namespace
 * and the monitoring namespace; egress to its Redis and DNS. Relay: the management port as the engine's;
 * egress to Redis, Kafka and DNS. A managed store is reached in the FraudEngine's namespace; an external
 * one by port (anywhere: NetworkPolicies cannot name hosts), or by address when it is an IP.
 */
public final class NetworkPolicies {

    static final int DNS_PORT = 53;
    static final int REDIS_PORT = 6379;
    static final int SENTINEL_PORT = 26379;
    private static final Pattern IPV4 = Pattern.compile("^[0-9]{1,3}(\\.[0-9]{1,3}){3}$");

    private NetworkPolicies() {
    }

    public static NetworkPolicy engine(FraudEngine fe) {
        NetworkSpec net = fe.getSpec().network;
        NetworkPolicyPeer callers = new NetworkPolicyPeerBuilder()
                .withPodSelector(new LabelSelectorBuilder().withMatchLabels(net.callerPodLabels).build())
                .withNamespaceSelector(new LabelSelectorBuilder().withMatchLabels(net.callerNamespaceLabels).build())
                .build();
        List<NetworkPolicyIngressRule> ingress = List.of(
                ingress(EngineWorkload.DATA_PORT, callers),
                management(fe, EngineWorkload.MANAGEMENT_PORT));
        return policy(fe, Names.engine(fe), Names.ENGINE, ingress, List.of(dns(), redis(fe)));
    }

    public static NetworkPolicy relay(FraudEngine fe) {
        return policy(fe, Names.relay(fe), Names.RELAY, List.of(management(fe, RelayWorkload.MANAGEMENT_PORT)),
                List.of(dns(), redis(fe), kafka(fe)));
    }

    private static NetworkPolicy policy(FraudEngine fe, String name, String component, List<NetworkPolicyIngressRule> ingress,
                                        List<NetworkPolicyEgressRule> egress) {
        return new NetworkPolicyBuilder()
                .withMetadata(Meta.of(fe, name, component))
                .withNewSpec()
                .withNewPodSelector().withMatchLabels(Names.selector(fe, component)).endPodSelector()
                .withPolicyTypes("Ingress", "Egress")
                .withIngress(ingress)
                .withEgress(egress)
                .endSpec()
                .build();
    }

    /** Metrics and health: pods of this namespace (the operator's probes come through the kubelet) and the monitoring namespace. */
    private static NetworkPolicyIngressRule management(FraudEngine fe, int port) {
        return ingress(port,
                new NetworkPolicyPeerBuilder().withNewPodSelector().endPodSelector().build(),
                new NetworkPolicyPeerBuilder().withNamespaceSelector(new LabelSelectorBuilder()
                        .withMatchLabels(fe.getSpec().network.monitoringNamespaceLabels).build()).build());
    }

    private static NetworkPolicyIngressRule ingress(int port, NetworkPolicyPeer... from) {
        return new NetworkPolicyIngressRuleBuilder().withPorts(tcp(port)).withFrom(from).build();
    }

    private static NetworkPolicyEgressRule dns() {
        return new NetworkPolicyEgressRuleBuilder()
                .withPorts(new NetworkPolicyPortBuilder().withProtocol("UDP").withPort(new IntOrString(DNS_PORT)).build(), tcp(DNS_PORT))
                .build();
    }

    private static NetworkPolicyEgressRule redis(FraudEngine fe) {
        var redis = fe.getSpec().velocity.redis;
        if (redis.hasExternal()) {
            return toAddresses(List.of(redis.external.address));
        }
        List<NetworkPolicyPort> ports = new ArrayList<>(List.of(tcp(REDIS_PORT)));
        if (Wanted.redisReplication(fe)) {
            ports.add(tcp(SENTINEL_PORT));
        }
        return new NetworkPolicyEgressRuleBuilder().withPorts(ports)
                .withTo(new NetworkPolicyPeerBuilder().withNewPodSelector().endPodSelector().build()).build();
    }

    private static NetworkPolicyEgressRule kafka(FraudEngine fe) {
        if (fe.getSpec().durability.kafka.hasExternal()) {
            return toAddresses(List.of(KafkaCluster.bootstrapServers(fe).split(",")));
        }
        // Strimzi's brokers carry strimzi.io/cluster=<Kafka name>; the bootstrap and broker ports are the plain listener's.
        return new NetworkPolicyEgressRuleBuilder().withPorts(tcp(9092))
                .withTo(new NetworkPolicyPeerBuilder().withNewPodSelector()
                        .withMatchLabels(Map.of(KafkaCluster.STRIMZI_CLUSTER_LABEL, Names.kafka(fe))).endPodSelector().build())
                .build();
    }

    /** host:port list: those ports; to the hosts themselves when all are IPv4 addresses, else anywhere. */
    public static NetworkPolicyEgressRule toAddresses(List<String> addresses) {
        Set<Integer> ports = new LinkedHashSet<>();
        List<NetworkPolicyPeer> to = new ArrayList<>();
        boolean allIps = true;
        for (String a : addresses) {
            String address = a.trim();
            int colon = address.lastIndexOf(':');
            String host = colon < 0 ? address : address.substring(0, colon);
            ports.add(colon < 0 ? 0 : Integer.parseInt(address.substring(colon + 1)));
            if (IPV4.matcher(host).matches()) {
                to.add(new NetworkPolicyPeerBuilder().withNewIpBlock().withCidr(host + "/32").endIpBlock().build());
            } else {
                allIps = false;
            }
        }
        ports.remove(0);
        var rule = new NetworkPolicyEgressRuleBuilder().withPorts(ports.stream().map(NetworkPolicies::tcp).toList());
        return allIps ? rule.withTo(to).build() : rule.build();
    }

    private static NetworkPolicyPort tcp(int port) {
        return new NetworkPolicyPortBuilder().withProtocol("TCP").withPort(new IntOrString(port)).build();
    }
}
