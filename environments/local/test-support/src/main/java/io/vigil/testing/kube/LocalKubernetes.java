package io.vigil.testing.kube;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.extension.ExtendWith;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Runs a test class against the local Kubernetes control plane (real kube-apiserver + etcd +
 * controllers, kwok-simulated nodes and pods; see docs/local-environment.md).
 *
 * <pre>{@code
 * @LocalKubernetes(crds = {"keda", "monitoring"})
 * class FraudEngineReconcilerTest {
 *     @Test
 *     void createsTheEngineDeployment(KubernetesClient client, TestNamespace namespace) {
 *         client.apps().deployments().inNamespace(namespace.name()) ...
 *     }
 * }
 * }</pre>
 *
 * <ul>
 *   <li>The tests' own cluster ({@code .local/test-cluster}, free ports; not the {@code make run}
 *       one) is started once per build if it is not running ({@code cluster-up.sh}, which builds the
 *       tools on a fresh machine: minutes, with progress printed) and shared by the next test classes
 *       and modules; {@code make test} stops it at the end ({@code make test-cluster-down} after a
 *       plain {@code ./mvnw verify}).</li>
 *   <li>Test constructors and methods may declare a {@link io.fabric8.kubernetes.client.KubernetesClient}
 *       (cluster-admin) and a {@link TestNamespace}: one client and one fresh namespace per test
 *       class, closed and deleted after the class.</li>
 *   <li>{@link #crds()} installs third-party CRD sets before the class; remove them with
 *       {@link LocalCluster#uninstallCrds(String...)} to test "CRD missing" behaviour.</li>
 *   <li>Classes are tagged {@value #TAG}: {@code ./mvnw verify -DexcludedGroups=local-kubernetes}
 *       skips them (e.g. while iterating on something else on a machine without built tools).</li>
 * </ul>
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
@ExtendWith(LocalKubernetesExtension.class)
@Tag(LocalKubernetes.TAG)
public @interface LocalKubernetes {

    /** JUnit tag of every {@code @LocalKubernetes} class. */
    String TAG = "local-kubernetes";

    /**
     * CRD sets to install before the test class runs (already installed ones are left as they are):
     * {@code keda}, {@code monitoring}, {@code k6}, {@code strimzi}, {@code redis}, {@code certmanager} or {@code all}
     * (every set but certmanager).
     */
    String[] crds() default {};

    /**
     * Whether the class needs real pods: starts the cluster's one real node before the class
     * ({@link LocalCluster#ensureRealNode()}; skipped when another cluster on the machine holds it).
     * Pods land there only with nodeSelector {@code vigil.io/node: real} and a toleration of
     * {@code vigil.io/real-node}; every other pod stays on the kwok nodes.
     */
    boolean realNode() default false;
}
