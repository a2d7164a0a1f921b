package io.vigil.engine.ruleset;

import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.equalTo;

import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.restassured.RestAssured;
import io.restassured.http.ContentType;
import io.restassured.path.json.JsonPath;
import io.vigil.engine.testing.Management;
import io.vigil.engine.testing.Profiles;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** Changing the rulesets directory under a running engine: good versions swap in, bad ones are refused. */
@QuarkusTest
@TestProfile(Profiles.Writable.class)
class HotReloadTest {
    static final Path DIR = Profiles.Writable.DIR;

    static String authRuleset(int version, String op) {
        return """
                {"ruleset_key":"CARD_AUTH","ruleset_version":%d,"execution_mode":"FIRST_MATCH",
                 "rules":[{"rule_id":"v%d-over-50","priority":1,"condition":{"field":"amount","op":"%s","value":50},
                           "action":{"decision":"DECLINE","reason_code":"V%d"}}]}
                """.formatted(version, version, op, version);
    }

    static String monitoringRuleset(int version, String op) {
        return """
                {"ruleset_key":"CARD_MONITORING","ruleset_version":%d,"execution_mode":"ALL_MATCHING",
                 "rules":[{"rule_id":"m%d","condition":{"field":"amount","op":"%s","value":1},
                           "action":{"decision":"REVIEW","reason_code":"M%d"}}]}
                """.formatted(version, version, op, version);
    }

    @Test
    void goodVersionSwapsInBadVersionKeepsTheLastGoodAndTheApiPinsAVersion() throws Exception {
        assertThat(servedAuthVersion()).isEqualTo(1);

        // a good v2, made active by the active file
        write("CARD_AUTH/v2/global.json", authRuleset(2, "gt"));
        write("CARD_AUTH/active", "2\n");
        await(() -> servedAuthVersion() == 2);
        RestAssured.given().contentType(ContentType.JSON).body("{\"transaction_id\":\"hr-1\",\"amount\":60}")
                .when().post("/v1/evaluate/auth").then().statusCode(200)
                .body("rule_id", equalTo("v2-over-50")).body("ruleset_version", equalTo(2));

        // a bad v3: refused with every error, v2 keeps serving, counted
        double failuresBefore = loadFailures("CARD_AUTH");
        write("CARD_AUTH/v3/global.json", authRuleset(3, "greater"));
        write("CARD_AUTH/active", "3\n");
        await(() -> failureOf("CARD_AUTH") != null && Integer.valueOf(3).equals(failureOf("CARD_AUTH").get("version")));
        assertThat(servedAuthVersion()).isEqualTo(2);
        assertThat(loadFailures("CARD_AUTH")).isGreaterThan(failuresBefore);
        @SuppressWarnings("unchecked")
        List<Map<String, Object>> errors = (List<Map<String, Object>>) failureOf("CARD_AUTH").get("errors");
        assertThat(errors).anySatisfy(e -> {
            assertThat(e.get("file")).isEqualTo("CARD_AUTH/v3/global.json");
            assertThat(e.get("path")).isEqualTo("rules[0].condition.op");
        });

        // the API activates an older version and pins it
        Management.given().when().post("/rulesets/CARD_AUTH/activate/1")
                .then().statusCode(200).body("version", equalTo(1)).body("pinned", equalTo(true));
        assertThat(servedAuthVersion()).isEqualTo(1);
        RestAssured.given().contentType(ContentType.JSON).body("{\"transaction_id\":\"hr-2\",\"amount\":60}")
                .when().post("/v1/evaluate/auth").then().statusCode(200).body("ruleset_version", equalTo(1));

        // activating a bad or missing version changes nothing
        Management.given().when().post("/rulesets/CARD_AUTH/activate/3")
                .then().statusCode(422).body("code", equalTo("RULESET_INVALID"))
                .body("errors[0].path", equalTo("rules[0].condition.op"));
        Management.given().when().post("/rulesets/CARD_AUTH/activate/9")
                .then().statusCode(404).body("code", equalTo("RULESET_NOT_FOUND"));
        Management.given().when().post("/rulesets/CARD_AUTH/activate/latest")
                .then().statusCode(400).body("field", equalTo("version"));
        assertThat(servedAuthVersion()).isEqualTo(1);

        // the directory changing its active version takes over from the pin
        write("CARD_AUTH/active", "2\n");
        await(() -> servedAuthVersion() == 2);
    }

    @Test
    void withoutAnActiveFileTheHighestValidVersionServes() throws Exception {
        assertThat(servedVersion("CARD_MONITORING")).isEqualTo(1);
        write("CARD_MONITORING/v2/global.json", monitoringRuleset(2, "nope"));
        await(() -> failureOf("CARD_MONITORING") != null);
        assertThat(servedVersion("CARD_MONITORING")).isEqualTo(1);

        write("CARD_MONITORING/v3/global.json", monitoringRuleset(3, "gt"));
        await(() -> servedVersion("CARD_MONITORING") == 3);
        assertThat(failureOf("CARD_MONITORING")).isNull();
    }

    // ---- helpers ----

    static void write(String relative, String content) throws IOException {
        Path target = DIR.resolve(relative);
        Files.createDirectories(target.getParent());
        Path tmp = target.resolveSibling("." + target.getFileName() + ".tmp");
        Files.writeString(tmp, content);
        Files.move(tmp, target, java.nio.file.StandardCopyOption.REPLACE_EXISTING, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
    }

    static int servedAuthVersion() {
        return servedVersion("CARD_AUTH");
    }

    static int servedVersion(String key) {
        List<Map<String, Object>> rows = Management.given().when().get("/rulesets").then().statusCode(200)
                .extract().jsonPath().getList("rulesets");
        return rows.stream().filter(r -> key.equals(r.get("key")) && "global".equals(r.get("country")))
                .map(r -> (Integer) r.get("version")).findFirst().orElse(-1);
    }

    static Map<String, Object> failureOf(String key) {
        JsonPath list = Management.given().when().get("/rulesets").then().statusCode(200).extract().jsonPath();
        List<Map<String, Object>> failures = list.getList("failures");
        return failures.stream().filter(f -> key.equals(f.get("key"))).findFirst().orElse(null);
    }

    static double loadFailures(String key) {
        String metrics = Management.given().when().get("/q/metrics").then().statusCode(200).extract().asString();
        Matcher m = Pattern.compile("vigil_ruleset_load_failures_total\\{key=\"" + key + "\"} ([0-9.E]+)").matcher(metrics);
        return m.find() ? Double.parseDouble(m.group(1)) : 0;
    }

    /** Polls (bounded) until the engine has picked a change up; the poll interval in this profile is 100 ms. */
    static void await(BooleanSupplier condition) throws InterruptedException {
        for (int i = 0; i < 300; i++) {
            if (condition.getAsBoolean()) {
                return;
            }
            Thread.sleep(50);
        }
        assertThat(condition.getAsBoolean()).as("the engine picked up the change").isTrue();
    }
}
