package io.vigil.operator.engine.desired;

import io.fabric8.kubernetes.api.model.PodSecurityContext;
import io.fabric8.kubernetes.api.model.PodSecurityContextBuilder;
import io.fabric8.kubernetes.api.model.SecurityContext;
import io.fabric8.kubernetes.api.model.SecurityContextBuilder;

/** The "restricted" Pod Security Standard: non-root, read-only root filesystem, no capabilities, RuntimeDefault seccomp. */
final class Security {
    static final long UID = 10001L;

    private Security() {
    }

    static PodSecurityContext pod() {
        return new PodSecurityContextBuilder()
                .withRunAsNonRoot(true)
                .withRunAsUser(UID)
                .withRunAsGroup(UID)
                .withFsGroup(UID)
                .withNewSeccompProfile().withType("RuntimeDefault").endSeccompProfile()
                .build();
    }

    static SecurityContext container() {
        return new SecurityContextBuilder()
                .withRunAsNonRoot(true)
                .withReadOnlyRootFilesystem(true)
                .withAllowPrivilegeEscalation(false)
                .withNewCapabilities().withDrop("ALL").endCapabilities()
                .withNewSeccompProfile().withType("RuntimeDefault").endSeccompProfile()
                .build();
    }
}
