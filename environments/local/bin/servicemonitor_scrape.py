#!/usr/bin/env python3
"""A Prometheus configuration from a ServiceMonitor as the cluster serves it (make auth-probe, ADR 0013).

The local cluster has no prometheus-operator: this plays its part for one ServiceMonitor, so that a real
Prometheus scrapes exactly what the operator rendered, with the credentials the ServiceMonitor names.
Each endpoint becomes a scrape job `serviceMonitor/<ns>/<name>/<i>` over the Endpoints of the
ServiceMonitor's namespace and the relabelings prometheus-operator generates for it (role endpoints):
keep the Services matching spec.selector.matchLabels and the endpoint port named `port`; the
namespace, service, pod, container, job (the Service's name) and endpoint labels; then the endpoint's
own relabelings. scheme, path, interval, honorLabels, tlsConfig (ca from a Secret key, serverName,
insecureSkipVerify) and authorization (type, credentials from a Secret key) are carried over; Secret
values are written to files (0600) that the configuration names (credentials_file, ca_file).

Discovery: make run's Prometheus is built without Kubernetes discovery (tools.sh: remove_all_sd), so
the Endpoints and Services (`kubectl get -o json`) are handed to it as file discovery (targets.json in
--out) carrying the __meta_kubernetes_* labels its Kubernetes discovery would attach (namespace, service
name and labels, endpoint port name and protocol, readiness, the address's target pod); the relabelings
then select exactly as in a cluster. Not attached: pod and container labels (the container label stays
empty).

--without-credential adds, for every endpoint that sends a credential, the same job without it
(`.../<i>/without-credential`, label probe_case="without-credential"): the refusal to check.

Anything of the ServiceMonitor this does not translate (bearerTokenSecret, basicAuth, oauth2, client
certificates in tlsConfig, params, metricRelabelings, namespaceSelector other than its own namespace,
matchExpressions) is an error naming the field, not silently dropped.

  servicemonitor_scrape.py --service-monitor sm.json --secrets secrets.json --services services.json \
      --endpoints endpoints.json --out DIR [--without-credential]  > prometheus.yml
The JSON files: `kubectl get secrets|services|endpoints -o json` of the ServiceMonitor's namespace (Lists).
"""
import argparse
import base64
import json
import os
import re
import sys

TRANSLATED = {"port", "path", "scheme", "interval", "scrapeTimeout", "honorLabels", "relabelings",
              "authorization", "tlsConfig"}
TLS_TRANSLATED = {"ca", "serverName", "insecureSkipVerify"}


class Untranslatable(Exception):
    pass


def label_name(name):
    """Kubernetes label → Prometheus meta label suffix, as Prometheus' discovery sanitizes it."""
    return re.sub(r"[^a-zA-Z0-9_]", "_", name)


def secret_value(secrets, namespace, ref, field):
    name, key = ref.get("name"), ref.get("key")
    for s in secrets.get("items", []):
        if s["metadata"]["name"] == name and s["metadata"].get("namespace", namespace) == namespace:
            data = s.get("data") or {}
            if key not in data:
                raise Untranslatable(f"{field}: Secret {namespace}/{name} has no key {key!r}")
            return base64.b64decode(data[key])
    raise Untranslatable(f"{field}: Secret {namespace}/{name} not found")


def write_secret_file(out, file_name, value):
    path = os.path.abspath(os.path.join(out, file_name))  # Prometheus resolves relative paths from its config's folder
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as f:
        f.write(value)
    return path


def relabeling(r, field):
    out = {}
    for src, dst in (("sourceLabels", "source_labels"), ("separator", "separator"), ("targetLabel", "target_label"),
                     ("regex", "regex"), ("modulus", "modulus"), ("replacement", "replacement"), ("action", "action")):
        if src in r:
            out[dst] = r[src]
    unknown = set(r) - {"sourceLabels", "separator", "targetLabel", "regex", "modulus", "replacement", "action"}
    if unknown:
        raise Untranslatable(f"{field}: unknown fields {sorted(unknown)}")
    if "action" in out:
        out["action"] = out["action"].lower()
    return out


def discovered(services, endpoints):
    """Targets of role endpoints, with the meta labels Prometheus' Kubernetes discovery attaches."""
    labels_of = {s["metadata"]["name"]: s["metadata"].get("labels") or {} for s in services.get("items", [])}
    groups = []
    for e in endpoints.get("items", []):
        name, ns = e["metadata"]["name"], e["metadata"]["namespace"]
        base = {"__meta_kubernetes_namespace": ns, "__meta_kubernetes_endpoints_name": name,
                "__meta_kubernetes_service_name": name}
        for k, v in (labels_of.get(name) or {}).items():
            base[f"__meta_kubernetes_service_label_{label_name(k)}"] = v
            base[f"__meta_kubernetes_service_labelpresent_{label_name(k)}"] = "true"
        for subset in e.get("subsets") or []:
            for ready, addresses in (("true", subset.get("addresses") or []), ("false", subset.get("notReadyAddresses") or [])):
                for a in addresses:
                    for port in subset.get("ports") or []:
                        labels = dict(base, __meta_kubernetes_endpoint_ready=ready,
                                      __meta_kubernetes_endpoint_port_name=port.get("name", ""),
                                      __meta_kubernetes_endpoint_port_protocol=port.get("protocol", "TCP"))
                        ref = a.get("targetRef") or {}
                        if ref:
                            labels["__meta_kubernetes_endpoint_address_target_kind"] = ref.get("kind", "")
                            labels["__meta_kubernetes_endpoint_address_target_name"] = ref.get("name", "")
                            if ref.get("kind") == "Pod":
                                labels["__meta_kubernetes_pod_name"] = ref.get("name", "")
                        groups.append({"targets": [f"{a['ip']}:{port['port']}"], "labels": labels})
    return groups


def jobs(sm, secrets, targets_file, out, without_credential):
    ns, name = sm["metadata"]["namespace"], sm["metadata"]["name"]
    spec = sm["spec"]
    selector = spec.get("selector") or {}
    if selector.get("matchExpressions"):
        raise Untranslatable("spec.selector.matchExpressions: not translated")
    nss = spec.get("namespaceSelector") or {}
    if nss.get("any") or [n for n in nss.get("matchNames", []) if n != ns]:
        raise Untranslatable("spec.namespaceSelector: only the ServiceMonitor's own namespace is translated")
    keep_services = [{"action": "keep",
                      "source_labels": [f"__meta_kubernetes_service_label_{label_name(k)}",
                                        f"__meta_kubernetes_service_labelpresent_{label_name(k)}"],
                      "regex": f"({re.escape(v)});true"}
                     for k, v in sorted((selector.get("matchLabels") or {}).items())]
    result = []
    for i, ep in enumerate(spec.get("endpoints", [])):
        field = f"spec.endpoints[{i}]"
        unknown = set(ep) - TRANSLATED
        if unknown:
            raise Untranslatable(f"{field}: {sorted(unknown)} not translated")
        if "port" not in ep:
            raise Untranslatable(f"{field}.port: required here (targetPort is not translated)")
        relabel = [{"source_labels": ["job"], "target_label": "__tmp_prometheus_job_name"}] + keep_services + [
            {"action": "keep", "source_labels": ["__meta_kubernetes_endpoint_port_name"], "regex": ep["port"]},
            {"source_labels": ["__meta_kubernetes_endpoint_address_target_kind", "__meta_kubernetes_endpoint_address_target_name"],
             "separator": ";", "regex": "Pod;(.*)", "replacement": "${1}", "target_label": "pod"},
            {"source_labels": ["__meta_kubernetes_namespace"], "target_label": "namespace"},
            {"source_labels": ["__meta_kubernetes_service_name"], "target_label": "service"},
            {"source_labels": ["__meta_kubernetes_pod_container_name"], "target_label": "container"},
            {"source_labels": ["__meta_kubernetes_service_name"], "target_label": "job", "replacement": "${1}"},
            {"target_label": "endpoint", "replacement": ep["port"]},
        ] + [relabeling(r, f"{field}.relabelings[{j}]") for j, r in enumerate(ep.get("relabelings", []))]
        job = {
            "job_name": f"serviceMonitor/{ns}/{name}/{i}",
            "honor_labels": bool(ep.get("honorLabels", False)),
            "file_sd_configs": [{"files": [targets_file]}],
            "scheme": ep.get("scheme", "http"),
            "metrics_path": ep.get("path", "/metrics"),
            "relabel_configs": relabel,
        }
        for src, dst in (("interval", "scrape_interval"), ("scrapeTimeout", "scrape_timeout")):
            if src in ep:
                job[dst] = ep[src]
        tls = ep.get("tlsConfig")
        if tls:
            unknown = set(tls) - TLS_TRANSLATED
            if unknown:
                raise Untranslatable(f"{field}.tlsConfig: {sorted(unknown)} not translated")
            cfg = {}
            ca = tls.get("ca") or {}
            if ca.get("configMap") or set(ca) - {"secret"}:
                raise Untranslatable(f"{field}.tlsConfig.ca: only a Secret key is translated")
            if ca.get("secret"):
                cfg["ca_file"] = write_secret_file(out, f"{i}-ca.crt",
                                                   secret_value(secrets, ns, ca["secret"], f"{field}.tlsConfig.ca.secret"))
            if "serverName" in tls:
                cfg["server_name"] = tls["serverName"]
            if "insecureSkipVerify" in tls:
                cfg["insecure_skip_verify"] = bool(tls["insecureSkipVerify"])
            job["tls_config"] = cfg
        auth = ep.get("authorization")
        if auth:
            if not auth.get("credentials"):
                raise Untranslatable(f"{field}.authorization.credentials: required here")
            job["authorization"] = {
                "type": auth.get("type", "Bearer"),
                "credentials_file": write_secret_file(out, f"{i}-credentials", secret_value(
                    secrets, ns, auth["credentials"], f"{field}.authorization.credentials")),
            }
        result.append(job)
        if auth and without_credential:
            bare = json.loads(json.dumps(job))
            del bare["authorization"]
            bare["job_name"] += "/without-credential"
            bare["relabel_configs"].append({"target_label": "probe_case", "replacement": "without-credential"})
            result.append(bare)
    return result


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--service-monitor", required=True)
    p.add_argument("--secrets", required=True)
    p.add_argument("--services", required=True)
    p.add_argument("--endpoints", required=True)
    p.add_argument("--out", required=True, help="directory for the Secret values' files")
    p.add_argument("--without-credential", action="store_true")
    a = p.parse_args()
    with open(a.service_monitor) as f:
        sm = json.load(f)
    with open(a.secrets) as f:
        secrets = json.load(f)
    with open(a.services) as f:
        services = json.load(f)
    with open(a.endpoints) as f:
        endpoints = json.load(f)
    targets_file = os.path.abspath(os.path.join(a.out, "targets.json"))
    with open(targets_file, "w") as f:
        json.dump(discovered(services, endpoints), f, indent=1)
    try:
        scrape = jobs(sm, secrets, targets_file, a.out, a.without_credential)
    except Untranslatable as e:
        print(f"servicemonitor_scrape: ServiceMonitor {sm['metadata'].get('namespace')}/{sm['metadata']['name']}: {e}",
              file=sys.stderr)
        return 2
    # JSON is YAML: Prometheus reads it as its configuration file.
    json.dump({"global": {"scrape_interval": "15s"}, "scrape_configs": scrape}, sys.stdout, indent=2)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
