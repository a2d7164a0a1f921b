package io.vigil.charts;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.StringReader;
import java.util.Properties;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * One source of truth per default: a FraudEngine field that the operator passes to the engine or the
 * relay defaults (in the generated CRD, crds/) to what the process itself defaults to (its
 * application.properties). When they differ, an installation gets a value nobody measured: the CRD's
 * 100 ms velocity timeout once opened the breaker on a VM stall, its relay batch of 500 was half as fast.
 */
class DefaultsAgreeTest {

    static final String ENGINE = "engine/service/src/main/resources/application.properties";
    static final String RELAY = "engine/relay/src/main/resources/application.properties";

    @ParameterizedTest(name = "spec.{0} = {2} of {1}")
    @CsvSource({
            "engine.deadline,                   " + ENGINE + ", vigil.engine.deadline",
            "engine.loadShedLimit,              " + ENGINE + ", vigil.engine.max-in-flight",
            "engine.velocityFailurePolicy,      " + ENGINE + ", vigil.engine.velocity-failure-policy",
            "velocity.pool.maxConnections,      " + ENGINE + ", quarkus.redis.max-pool-size",
            "velocity.pool.maxPoolWaiting,      " + ENGINE + ", quarkus.redis.max-pool-waiting",
            "velocity.pool.maxWaitingHandlers,  " + ENGINE + ", quarkus.redis.max-waiting-handlers",
            "velocity.pool.timeout,             " + ENGINE + ", vigil.velocity.timeout",
            "velocity.idempotencyWindow,        " + ENGINE + ", vigil.velocity.idempotency-window",
            "durability.queueCapacity,          " + ENGINE + ", vigil.outbox.queue-capacity",
            "durability.stream.name,            " + ENGINE + ", vigil.outbox.stream",
            "durability.stream.shards,          " + ENGINE + ", vigil.outbox.streams",
            "durability.stream.maxLength,       " + ENGINE + ", vigil.outbox.max-length",
            "durability.stream.name,            " + RELAY + ",  vigil.relay.stream",
            "durability.stream.shards,          " + RELAY + ",  vigil.relay.streams",
            "durability.relay.batchSize,        " + RELAY + ",  vigil.relay.batch-size",
            "durability.relay.entriesPerCommand, " + RELAY + ",  vigil.relay.entries-per-command",
            "durability.topic.name,             " + RELAY + ",  vigil.relay.topic",
    })
    void theCrdDefaultIsTheProcessDefault(String field, String propertiesFile, String property) throws IOException {
        String crdDefault = crdDefault(field);
        Properties props = new Properties();
        props.load(new StringReader(Repo.read(Repo.ROOT.resolve(propertiesFile))));
        String processDefault = props.getProperty(property);

        assertThat(processDefault).as("%s in %s", property, propertiesFile).isNotNull();
        // Enum constants are upper case in the CRD (SKIP), lower case in the engine's config (skip).
        assertThat(crdDefault).as("FraudEngine spec.%s default (crds/) vs %s in %s", field, property, propertiesFile)
                .isEqualToIgnoringCase(processDefault);
    }

    /** The default the API server fills in for spec.<field>, read from the committed CRD. */
    static String crdDefault(String field) throws IOException {
        JsonNode node = SloRules.YAML.readTree(Repo.read(Repo.ROOT.resolve("crds/fraudengines.vigil.io-v1.yml")))
                .path("spec").path("versions").path(0).path("schema").path("openAPIV3Schema")
                .path("properties").path("spec");
        for (String part : field.split("\\.")) {
            node = node.path("properties").path(part);
        }
        assertThat(node.has("default")).as("the CRD has a default for spec.%s", field).isTrue();
        return node.get("default").asText();
    }
}
