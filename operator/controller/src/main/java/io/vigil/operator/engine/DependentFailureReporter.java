package io.vigil.operator.engine;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.api.model.ObjectReferenceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.vigil.operator.api.v1alpha1.FraudEngine;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import org.jboss.logging.Logger;

/**
 * Makes failing dependents visible outside the status: a Kubernetes Event on the FraudEngine when a
 * dependent starts failing (or fails differently) and when it is applied again, and the counter
 * {@code vigil_operator_dependent_failures_total{namespace,fraudengine,dependent}} (one per failed
 * reconciliation of that dependent, so {@code increase(...[5m]) > 0} means "still failing").
 *
 * <p>Events are written by hand: neither fabric8 nor the java-operator-sdk has an event recorder.
 * To avoid an Event per retry (every recheck while the error lasts), only transitions are recorded;
 * the last failures per FraudEngine are remembered in memory, so an operator restart re-announces a
 * failure that is still there once.
 */
public class DependentFailureReporter {

    public static final String METRIC = "vigil.operator.dependent.failures";
    public static final String EVENT_FAILED = "DependentFailed";
    public static final String EVENT_RECOVERED = "DependentRecovered";
    static final String COMPONENT = "vigil-operator";
    private static final Logger LOG = Logger.getLogger(DependentFailureReporter.class);

    private final MeterRegistry registry;
    /** FraudEngine uid → dependent → message last reported. */
    private final Map<String, Map<String, String>> reported = new ConcurrentHashMap<>();

    public DependentFailureReporter(MeterRegistry registry) {
        this.registry = registry;
    }

    public void report(KubernetesClient client, FraudEngine fe, List<DependentFailure> failures) {
        String ns = fe.getMetadata().getNamespace();
        String name = fe.getMetadata().getName();
        for (DependentFailure f : failures) {
            LOG.warnf("FraudEngine %s/%s: dependent %s failed: %s", ns, name, f.dependent(), f.message());
            Counter.builder(METRIC).description("Reconciliations in which a FraudEngine dependent could not be applied")
                    .tag("namespace", ns).tag("fraudengine", name).tag("dependent", f.dependent())
                    .register(registry).increment();
        }
        String key = fe.getMetadata().getUid() == null ? ns + "/" + name : fe.getMetadata().getUid();
        Map<String, String> before = reported.getOrDefault(key, Map.of());
        Map<String, String> now = new LinkedHashMap<>();
        failures.forEach(f -> now.put(f.dependent(), f.message()));
        for (DependentFailure f : failures) {
            if (!Objects.equals(before.get(f.dependent()), f.message())) {
                emit(client, fe, "Warning", EVENT_FAILED, f.describe());
            }
        }
        for (String dependent : before.keySet()) {
            if (!now.containsKey(dependent)) {
                LOG.infof("FraudEngine %s/%s: dependent %s applied again", ns, name, dependent);
                emit(client, fe, "Normal", EVENT_RECOVERED, dependent + ": applied again after failing");
            }
        }
        if (now.isEmpty()) {
            reported.remove(key);
        } else {
            reported.put(key, now);
        }
    }

    /** Best effort: an Event that cannot be written (e.g. no RBAC for events) is logged, never fails the reconciliation. */
    private static void emit(KubernetesClient client, FraudEngine fe, String type, String reason, String message) {
        String now = Instant.now().truncatedTo(ChronoUnit.SECONDS).toString();
        Event event = new EventBuilder()
                .withNewMetadata().withGenerateName(fe.getMetadata().getName() + ".").withNamespace(fe.getMetadata().getNamespace()).endMetadata()
                .withInvolvedObject(new ObjectReferenceBuilder().withApiVersion(fe.getApiVersion()).withKind(fe.getKind())
                        .withName(fe.getMetadata().getName()).withNamespace(fe.getMetadata().getNamespace())
                        .withUid(fe.getMetadata().getUid()).withResourceVersion(fe.getMetadata().getResourceVersion()).build())
                .withType(type).withReason(reason).withMessage(message)
                .withFirstTimestamp(now).withLastTimestamp(now).withCount(1)
                .withNewSource().withComponent(COMPONENT).endSource()
                .withReportingComponent(COMPONENT).withReportingInstance(hostname())
                .build();
        try {
            client.v1().events().inNamespace(fe.getMetadata().getNamespace()).resource(event).create();
        } catch (KubernetesClientException e) {
            LOG.warnf("cannot record Event %s on FraudEngine %s/%s: %s", reason, fe.getMetadata().getNamespace(),
                    fe.getMetadata().getName(), DependentFailure.message(e));
        }
    }

    private static String hostname() {
        String h = System.getenv("HOSTNAME");
        return h == null || h.isBlank() ? COMPONENT : h;
    }
}
