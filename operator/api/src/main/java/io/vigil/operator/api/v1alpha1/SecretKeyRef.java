package io.vigil.operator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Required;

/** A key of a Secret in the FraudEngine's namespace. Secrets are only ever referenced, never copied. */
public class SecretKeyRef {
    @Required
    @JsonPropertyDescription("Secret name.")
    public String name;

    @Default("password")
    @JsonPropertyDescription("Key inside the Secret.")
    public String key = "password";

    public SecretKeyRef() {
    }

    public SecretKeyRef(String name, String key) {
        this.name = name;
        this.key = key;
    }
}
