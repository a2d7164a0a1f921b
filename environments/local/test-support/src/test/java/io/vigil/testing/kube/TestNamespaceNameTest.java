package io.vigil.testing.kube;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class TestNamespaceNameTest {

    @Test
    void namespaceNameIsADnsLabelDerivedFromTheClassName() {
        assertThat(LocalKubernetesExtension.namespaceName("FraudEngineReconcilerTest"))
                .matches("fraud-engine-reconciler-test-[0-9a-f]{6}");
    }

    @Test
    void longClassNamesAreCutTo63Characters() {
        String name = LocalKubernetesExtension.namespaceName("A".repeat(40) + "VeryLongTestClassNameThatGoesOnAndOnTest");
        assertThat(name).hasSizeLessThanOrEqualTo(63).matches("[a-z0-9]([-a-z0-9]*[a-z0-9])?");
    }

    @Test
    void twoClassesWithTheSameNameGetDifferentNamespaces() {
        assertThat(LocalKubernetesExtension.namespaceName("SameTest"))
                .isNotEqualTo(LocalKubernetesExtension.namespaceName("SameTest"));
    }
}
