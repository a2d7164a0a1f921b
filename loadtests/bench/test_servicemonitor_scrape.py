"""Tests of make auth-probe's ServiceMonitor translation (environments/local/bin/servicemonitor_scrape.py):
the scrape jobs it writes select the targets prometheus-operator's would, carry the Secrets' values as
files, and refuse what they cannot translate. The ServiceMonitor is the operator's rendering for an
engine with a metrics token and TLS on its management port (golden/external.yaml of operator/controller)."""
import base64
import importlib.util
import json
import os
import re
import shutil
import stat
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(HERE, "..", "..", "environments", "local", "bin", "servicemonitor_scrape.py")
SPEC = importlib.util.spec_from_file_location("servicemonitor_scrape", SCRIPT)
scrape = importlib.util.module_from_spec(SPEC)
SPEC.loader.exec_module(scrape)


def endpoint(extra, component):
    return dict(extra, honorLabels=True, interval="30s", path="/q/metrics", port="management",
                relabelings=[{"action": "keep", "regex": component,
                              "sourceLabels": ["__meta_kubernetes_service_label_app_kubernetes_io_component"]}])


SERVICE_MONITOR = {
    "metadata": {"name": "edge", "namespace": "payments"},
    "spec": {
        "selector": {"matchLabels": {"app.kubernetes.io/instance": "edge", "vigil.io/metrics": "true"}},
        "endpoints": [
            endpoint({"authorization": {"type": "Bearer", "credentials": {"name": "vigil-metrics-token", "key": "token"}},
                      "scheme": "https",
                      "tlsConfig": {"ca": {"secret": {"name": "edge-engine-tls", "key": "ca.crt"}},
                                    "serverName": "edge-engine-management.payments.svc"}}, "engine"),
            endpoint({}, "relay"),
        ],
    },
}


def secret(name, **data):
    return {"metadata": {"name": name, "namespace": "payments"},
            "data": {k: base64.b64encode(v.encode()).decode() for k, v in data.items()}}


SECRETS = {"items": [secret("vigil-metrics-token", token="s3cret"), secret("edge-engine-tls", **{"ca.crt": "PEM"})]}


def service(name, component, metrics=True, instance="edge"):
    labels = {"app.kubernetes.io/instance": instance, "app.kubernetes.io/component": component}
    if metrics:
        labels["vigil.io/metrics"] = "true"
    return {"metadata": {"name": name, "namespace": "payments", "labels": labels}}


SERVICES = {"items": [service("edge-engine", "engine", metrics=False), service("edge-engine-management", "engine"),
                      service("edge-relay-management", "relay"), service("other-engine-management", "engine", instance="other")]}


def endpoints(name, port_name, port, ip, pod, ready=True):
    address = {"ip": ip, "targetRef": {"kind": "Pod", "name": pod}}
    subset = {"ports": [{"name": port_name, "port": port, "protocol": "TCP"}],
              ("addresses" if ready else "notReadyAddresses"): [address]}
    return {"metadata": {"name": name, "namespace": "payments"}, "subsets": [subset]}


ENDPOINTS = {"items": [
    endpoints("edge-engine", "http", 8081, "10.0.0.1", "edge-engine-a"),
    endpoints("edge-engine-management", "management", 9081, "10.0.0.1", "edge-engine-a"),
    endpoints("edge-relay-management", "management", 9091, "10.0.0.2", "edge-relay-a"),
    endpoints("other-engine-management", "management", 9081, "10.0.0.3", "other-engine-a"),
]}


def relabel(labels, configs):
    """The keep and replace relabelings Prometheus applies (what the jobs use); None when dropped."""
    labels = dict(labels)
    for c in configs:
        value = c.get("separator", ";").join(labels.get(s, "") for s in c.get("source_labels", []))
        m = re.fullmatch(c.get("regex", "(.*)"), value)
        action = c.get("action", "replace")
        if action == "keep":
            if not m:
                return None
        elif action == "replace":
            if m:
                result = re.sub(r"\$\{(\d+)\}|\$(\d+)", lambda g: m.group(int(g.group(1) or g.group(2))),
                                c.get("replacement", "$1"))
                if result:
                    labels[c["target_label"]] = result
                else:
                    labels.pop(c["target_label"], None)
        else:
            raise AssertionError(f"relabel action {action} not evaluated here")
    return {k: v for k, v in labels.items() if not k.startswith("__")} | {"__address__": labels["__address__"]}


class ServiceMonitorScrapeTest(unittest.TestCase):
    def setUp(self):
        self.out = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.out)
        self.targets = os.path.join(self.out, "targets.json")
        with open(self.targets, "w") as f:
            json.dump(scrape.discovered(SERVICES, ENDPOINTS), f)
        self.jobs = {j["job_name"]: j for j in scrape.jobs(SERVICE_MONITOR, SECRETS, self.targets, self.out, True)}

    def scraped(self, job):
        with open(self.targets) as f:
            groups = json.load(f)
        kept = [relabel(dict(g["labels"], __address__=g["targets"][0]), self.jobs[job]["relabel_configs"]) for g in groups]
        return [k for k in kept if k is not None]

    def test_each_endpoint_keeps_its_components_management_services_only(self):
        self.assertEqual([(t["__address__"], t["job"], t["pod"], t["endpoint"]) for t in self.scraped("serviceMonitor/payments/edge/0")],
                         [("10.0.0.1:9081", "edge-engine-management", "edge-engine-a", "management")])
        self.assertEqual([t["__address__"] for t in self.scraped("serviceMonitor/payments/edge/1")], ["10.0.0.2:9091"])

    def test_the_engine_job_carries_the_secrets_as_files_with_the_scheme_and_server_name(self):
        job = self.jobs["serviceMonitor/payments/edge/0"]
        self.assertEqual((job["scheme"], job["metrics_path"], job["scrape_interval"], job["honor_labels"]),
                         ("https", "/q/metrics", "30s", True))
        self.assertEqual(job["tls_config"]["server_name"], "edge-engine-management.payments.svc")
        credentials, ca = job["authorization"]["credentials_file"], job["tls_config"]["ca_file"]
        self.assertTrue(os.path.isabs(credentials) and os.path.isabs(ca), "Prometheus resolves relative paths from its config")
        with open(credentials) as f:
            self.assertEqual(f.read(), "s3cret")
        with open(ca) as f:
            self.assertEqual(f.read(), "PEM")
        self.assertEqual(stat.S_IMODE(os.stat(credentials).st_mode), 0o600)
        self.assertEqual(job["authorization"]["type"], "Bearer")

    def test_the_relay_gets_no_credential_and_without_credential_is_the_engine_job_minus_it(self):
        self.assertNotIn("authorization", self.jobs["serviceMonitor/payments/edge/1"])
        bare = self.jobs["serviceMonitor/payments/edge/0/without-credential"]
        self.assertNotIn("authorization", bare)
        self.assertEqual(bare["tls_config"], self.jobs["serviceMonitor/payments/edge/0"]["tls_config"])
        self.assertEqual([t["probe_case"] for t in self.scraped("serviceMonitor/payments/edge/0/without-credential")],
                         ["without-credential"])
        self.assertNotIn("serviceMonitor/payments/edge/1/without-credential", self.jobs)

    def test_not_ready_addresses_are_discovered_as_not_ready(self):
        groups = scrape.discovered(SERVICES, {"items": [endpoints("edge-engine-management", "management", 9081, "10.0.0.9",
                                                                  "edge-engine-b", ready=False)]})
        self.assertEqual(groups[0]["labels"]["__meta_kubernetes_endpoint_ready"], "false")
        self.assertEqual(groups[0]["labels"]["__meta_kubernetes_service_labelpresent_vigil_io_metrics"], "true")

    def test_a_missing_secret_or_key_is_an_error_naming_the_field(self):
        with self.assertRaisesRegex(scrape.Untranslatable, r"spec.endpoints\[0\].authorization.credentials: Secret payments/vigil-metrics-token not found"):
            scrape.jobs(SERVICE_MONITOR, {"items": SECRETS["items"][1:]}, self.targets, self.out, False)
        with self.assertRaisesRegex(scrape.Untranslatable, r"tlsConfig.ca.secret: Secret payments/edge-engine-tls has no key 'ca.crt'"):
            scrape.jobs(SERVICE_MONITOR, {"items": [SECRETS["items"][0], secret("edge-engine-tls", other="x")]},
                        self.targets, self.out, False)

    def test_what_it_does_not_translate_is_refused_not_dropped(self):
        sm = json.loads(json.dumps(SERVICE_MONITOR))
        sm["spec"]["endpoints"][1]["basicAuth"] = {"username": {"name": "x", "key": "u"}}
        with self.assertRaisesRegex(scrape.Untranslatable, r"spec.endpoints\[1\]: \['basicAuth'\] not translated"):
            scrape.jobs(sm, SECRETS, self.targets, self.out, False)
        sm = json.loads(json.dumps(SERVICE_MONITOR))
        sm["spec"]["namespaceSelector"] = {"any": True}
        with self.assertRaisesRegex(scrape.Untranslatable, "spec.namespaceSelector"):
            scrape.jobs(sm, SECRETS, self.targets, self.out, False)

    def test_the_command_exits_2_with_the_reason(self):
        files = {}
        for name, content in (("sm", SERVICE_MONITOR), ("secrets", {"items": SECRETS["items"][1:]}), ("services", SERVICES), ("endpoints", ENDPOINTS)):
            files[name] = os.path.join(self.out, name + ".json")
            with open(files[name], "w") as f:
                json.dump(content, f)
        r = subprocess.run([sys.executable, SCRIPT, "--service-monitor", files["sm"], "--secrets", files["secrets"],
                            "--services", files["services"], "--endpoints", files["endpoints"], "--out", self.out],
                           capture_output=True, text=True)
        self.assertEqual(r.returncode, 2)
        self.assertIn("ServiceMonitor payments/edge: spec.endpoints[0].authorization.credentials: Secret payments/vigil-metrics-token not found", r.stderr)


if __name__ == "__main__":
    unittest.main()
