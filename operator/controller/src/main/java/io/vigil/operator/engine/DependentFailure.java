package io.vigil.operator.engine;

import io.fabric8.kubernetes.api.model.Status;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.javaoperatorsdk.operator.AggregatedOperatorException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

/**
 * A dependent resource the last reconciliation could not apply (or delete), with the error the API
 * server gave. The message is what an SRE needs in {@code kubectl describe}: the HTTP code and reason,
 * the object, and the API server's own words (admission/webhook/CEL message, RBAC verb, missing kind).
 *
 * @param dependent the dependent's name in the workflow (e.g. {@code engine-networkpolicy})
 * @param message   e.g. {@code 403 Forbidden: networkpolicies.networking.k8s.io "x" is forbidden: ...}
 */
public record DependentFailure(String dependent, String message) {

    static final int MAX_MESSAGE = 400;

    /** "dependent: message", the form used in condition and event messages. */
    public String describe() {
        return dependent + ": " + message;
    }

    /** From the workflow's per-dependent errors (name → exception), sorted by name for a stable status. */
    public static List<DependentFailure> of(Map<String, ? extends Throwable> errors) {
        List<DependentFailure> out = new ArrayList<>();
        errors.forEach((name, e) -> out.add(new DependentFailure(name, message(e))));
        out.sort(Comparator.comparing(DependentFailure::dependent));
        return out;
    }

    /** From the aggregated exception the workflow throws when it is not told to hand errors to the reconciler. */
    public static List<DependentFailure> of(AggregatedOperatorException e) {
        return of(e.getAggregatedExceptions());
    }

    /**
     * The API server's answer when there is one in the cause chain (fabric8 wraps it in
     * KubernetesClientException, whose own message also carries the URL and a Status dump), else the
     * innermost message.
     */
    static String message(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof KubernetesClientException k && (k.getStatus() != null || k.getCode() > 0)) {
                return trim(apiMessage(k));
            }
        }
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        return trim(root.getMessage() == null ? root.getClass().getSimpleName() : root.getClass().getSimpleName() + ": " + root.getMessage());
    }

    private static String apiMessage(KubernetesClientException k) {
        Status s = k.getStatus();
        int code = s != null && s.getCode() != null ? s.getCode() : k.getCode();
        String reason = s != null && s.getReason() != null ? s.getReason() : "";
        String text = s != null && s.getMessage() != null ? s.getMessage() : firstLine(k.getMessage());
        return (code + " " + reason).trim() + ": " + text;
    }

    private static String firstLine(String m) {
        if (m == null) {
            return "";
        }
        int nl = m.indexOf('\n');
        return nl < 0 ? m : m.substring(0, nl);
    }

    private static String trim(String m) {
        String one = m.replace('\n', ' ').strip();
        return one.length() > MAX_MESSAGE ? one.substring(0, MAX_MESSAGE) + "..." : one;
    }
}
