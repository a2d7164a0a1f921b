package io.vigil.testing.kube;

import java.util.Objects;

/**
 * A namespace created for one test class by {@link LocalKubernetes} and deleted after it.
 * Its name is derived from the class name plus a random suffix, so reruns and parallel builds on
 * the same cluster never collide. It carries the label {@value #LABEL}{@code =true}.
 *
 * @param name the namespace name
 */
public record TestNamespace(String name) {

    /** Label put on every test namespace (handy for cleaning up after an aborted run). */
    public static final String LABEL = "vigil.io/test-namespace";

    public TestNamespace {
        Objects.requireNonNull(name, "name");
    }

    @Override
    public String toString() {
        return name;
    }
}
