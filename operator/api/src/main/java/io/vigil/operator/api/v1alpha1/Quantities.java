package io.vigil.operator.api.v1alpha1;

/** Storage sizes are Kubernetes quantities in binary units, e.g. 512Mi, 10Gi. */
public final class Quantities {
    public static final String PATTERN = "^[0-9]+(Ki|Mi|Gi|Ti)$";

    private Quantities() {
    }
}
