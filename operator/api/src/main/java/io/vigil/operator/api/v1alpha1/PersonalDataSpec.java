package io.vigil.operator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Size;
import io.fabric8.generator.annotation.ValidationRule;
import java.util.ArrayList;
import java.util.List;

/**
 * Personal data kept out of the decision events (ADR 0013): named transaction fields replaced by
 * {@code hmac-sha256:<hex>} (so equal values still join) or removed, on the engine's outbox writer
 * thread. Velocity on those fields keeps working (it reads the request, not the event).
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@ValidationRule(value = "!has(self.hashFields) || size(self.hashFields) == 0 || has(self.hashKeySecretRef)",
        message = "spec.personalData.hashKeySecretRef (the HMAC key, at least 16 bytes) is required with hashFields")
public class PersonalDataSpec {
    @Size(max = 64)
    @JsonPropertyDescription("Fields hashed in events, e.g. email, phone, ip_address, device_id, billing_address.city, custom_fields.<name>.")
    public List<String> hashFields = new ArrayList<>();

    @Size(max = 64)
    @JsonPropertyDescription("Fields removed from events.")
    public List<String> dropFields = new ArrayList<>();

    @JsonPropertyDescription("The HMAC key (at least 16 bytes) in a Secret; mounted, never copied.")
    public SecretKeyRef hashKeySecretRef;
}
