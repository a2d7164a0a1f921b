package io.vigil.operator.api.v1alpha1;

/** API group and version of every Vigil custom resource. */
public final class Groups {
    public static final String GROUP = "vigil.io";
    public static final String VERSION = "v1alpha1";
    public static final String API_VERSION = GROUP + "/" + VERSION;

    private Groups() {
    }
}
