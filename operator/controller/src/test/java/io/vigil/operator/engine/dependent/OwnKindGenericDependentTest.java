package io.vigil.operator.engine.dependent;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.vigil.operator.Fixtures;
import io.vigil.operator.api.v1alpha1.FraudEngine;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Generic dependents sharing a name (core-redis) must each see only their own kind. */
class OwnKindGenericDependentTest {

    static GenericKubernetesResource object(String kind, FraudEngine fe) {
        return new GenericKubernetesResourceBuilder().withApiVersion("redis.redis.opstreelabs.in/v1beta2").withKind(kind)
                .withNewMetadata().withName("core-redis").withNamespace(fe.getMetadata().getNamespace()).endMetadata().build();
    }

    @Test
    void eachRedisDependentFindsItsOwnKindOnly() {
        FraudEngine fe = Fixtures.engine("replication"); // core: RedisReplication + RedisSentinel, both "core-redis"
        GenericKubernetesResource replication = object("RedisReplication", fe);
        GenericKubernetesResource sentinel = object("RedisSentinel", fe);
        Set<GenericKubernetesResource> all = Set.of(replication, sentinel);

        assertThat(new RedisStandaloneDependent().selectTargetSecondaryResource(all, fe, null))
                .as("the standalone dependent (to be deleted in replication mode) must not take the RedisReplication for its Redis")
                .isEmpty();
        assertThat(new RedisReplicationDependent().selectTargetSecondaryResource(all, fe, null)).containsSame(replication);
        assertThat(new RedisSentinelDependent().selectTargetSecondaryResource(all, fe, null)).containsSame(sentinel);
    }
}
