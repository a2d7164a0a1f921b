package io.vigil.operator.loadtest;

import java.util.Arrays;

/** FraudLoadTest spec.scenario → the k6 entry script that runs it (loadtests/k6/&lt;file&gt;). */
public enum Scenario {
    CONSTANT_ARRIVAL_RATE("constant-arrival-rate", "constant.js"),
    RAMP("ramp", "ladder.js"),
    SPIKE("spike", "spike.js"),
    SOAK("soak", "soak.js"),
    SMOKE("smoke", "smoke.js"),
    MIXED("mixed", "mixed.js");

    public final String specName;
    public final String script;

    Scenario(String specName, String script) {
        this.specName = specName;
        this.script = script;
    }

    public static Scenario of(String specName) {
        String name = specName == null ? CONSTANT_ARRIVAL_RATE.specName : specName;
        return Arrays.stream(values()).filter(s -> s.specName.equals(name)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("spec.scenario: unknown scenario \"" + specName + "\""));
    }
}
