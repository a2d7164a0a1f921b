package io.vigil.testing.kube;

import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolutionException;
import org.junit.jupiter.api.extension.ParameterResolver;
import org.junit.platform.commons.support.AnnotationSupport;

import java.util.Locale;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The extension behind {@link LocalKubernetes}: starts the cluster, installs the requested CRDs, and
 * gives each test class its own {@link KubernetesClient} and {@link TestNamespace}. Both are made on
 * first use (a {@code PER_CLASS} test instance is built before {@code @BeforeAll}) and released after
 * the class.
 */
public final class LocalKubernetesExtension implements BeforeAllCallback, AfterAllCallback, ParameterResolver {

    private static final String CLIENT = "client";
    private static final String NAMESPACE = "namespace";

    @Override
    public void beforeAll(ExtensionContext context) {
        LocalCluster.ensureRunning();
        var annotation = AnnotationSupport.findAnnotation(context.getRequiredTestClass(), LocalKubernetes.class);
        String[] crds = annotation.map(LocalKubernetes::crds).orElse(new String[0]);
        if (crds.length > 0) {
            LocalCluster.installCrds(crds);
        }
        if (annotation.map(LocalKubernetes::realNode).orElse(false)) {
            LocalCluster.ensureRealNode();
        }
    }

    @Override
    public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
        Class<?> type = parameter.getParameter().getType();
        return type == KubernetesClient.class || type == TestNamespace.class;
    }

    @Override
    public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
        ExtensionContext.Store store = classStore(context);
        Class<?> type = parameter.getParameter().getType();
        if (type == KubernetesClient.class) {
            return client(store);
        }
        if (type == TestNamespace.class) {
            return store.getOrComputeIfAbsent(NAMESPACE, k -> createNamespace(client(store), context), TestNamespace.class);
        }
        throw new ParameterResolutionException("unsupported parameter " + parameter.getParameter());
    }

    @Override
    public void afterAll(ExtensionContext context) {
        ExtensionContext.Store store = classStore(context);
        KubernetesClient client = store.remove(CLIENT, KubernetesClient.class);
        TestNamespace namespace = store.remove(NAMESPACE, TestNamespace.class);
        if (client == null) {
            return;
        }
        try {
            if (namespace != null) {
                // Not waiting: the namespace controller finishes the deletion in the background.
                client.namespaces().withName(namespace.name()).delete();
            }
        } finally {
            client.close();
        }
    }

    private static KubernetesClient client(ExtensionContext.Store store) {
        return store.getOrComputeIfAbsent(CLIENT, k -> {
            LocalCluster.ensureRunning();
            return LocalCluster.newClient();
        }, KubernetesClient.class);
    }

    private static TestNamespace createNamespace(KubernetesClient client, ExtensionContext context) {
        String name = namespaceName(context.getRequiredTestClass().getSimpleName());
        client.namespaces().resource(new NamespaceBuilder()
                        .withNewMetadata()
                        .withName(name)
                        .addToLabels(TestNamespace.LABEL, "true")
                        .addToLabels("vigil.io/test-class", label(context.getRequiredTestClass().getSimpleName()))
                        .endMetadata()
                        .build())
                .create();
        return new TestNamespace(name);
    }

    /** DNS-1123 label from the class name: lower case, at most 63 characters with a random suffix. */
    static String namespaceName(String className) {
        String base = label(className.replaceAll("([a-z0-9])([A-Z])", "$1-$2"));
        String suffix = Integer.toString(ThreadLocalRandom.current().nextInt(0x100000, 0x1000000), 16);
        if (base.length() > 63 - suffix.length() - 1) {
            base = base.substring(0, 63 - suffix.length() - 1).replaceAll("-+$", "");
        }
        return (base.isEmpty() ? "test" : base) + "-" + suffix;
    }

    private static String label(String text) {
        String label = text.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9-]+", "-").replaceAll("^-+|-+$", "");
        return label.length() > 63 ? label.substring(0, 63).replaceAll("-+$", "") : label;
    }

    /** The store of the test class's context, also when called for a test method. */
    private static ExtensionContext.Store classStore(ExtensionContext context) {
        ExtensionContext classContext = context;
        while (classContext.getTestMethod().isPresent() && classContext.getParent().isPresent()) {
            classContext = classContext.getParent().get();
        }
        return classContext.getStore(ExtensionContext.Namespace.create(LocalKubernetesExtension.class,
                classContext.getRequiredTestClass()));
    }
}
