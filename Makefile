# Vigil — developer entry points. `make help` lists them.
SHELL := /bin/bash
.DEFAULT_GOAL := help

JAVA_HOME := $(shell environments/local/bin/java-home.sh)
ifeq ($(JAVA_HOME),)
$(error no JDK >= 21 found: set JAVA_HOME or install one under /usr/lib/jvm)
endif
export JAVA_HOME
export PATH := $(JAVA_HOME)/bin:$(PATH)

MVN ?= ./mvnw -B --no-transfer-progress
LOCAL := environments/local/bin

.PHONY: help build test run stop logs bench clean deps

help: ## List the targets
	@awk 'BEGIN {FS = ":.*## "} /^[a-zA-Z0-9_-]+:.*## / {printf "  \033[36m%-18s\033[0m %s\n", $$1, $$2}' $(MAKEFILE_LIST)

deps: ## Install what the tests and the local platform need (redis-server, ...)
	@$(LOCAL)/ensure-deps.sh

build: ## Compile and package every module (no tests)
	$(MVN) -DskipTests package

# The tests' own Kubernetes cluster (LocalCluster.java: free ports, .local/test-cluster) is started by
# the first test that needs it and shared by the build's test JVMs; when the Maven build ends (also
# when it fails or is interrupted) it is stopped, unless VIGIL_KEEP_TEST_CLUSTER=1. The `make run`
# cluster (.local/cluster, fixed ports) is never touched. Make's exit status stays Maven's.
MVN_TESTS = trap '$(LOCAL)/test-cluster-down.sh --unless-kept' EXIT; $(MVN)

test: deps ## Run every test (what CI runs): the load generators' tests (Node, Go, Python), then every Maven module
	node --test loadtests/test/
	cd loadtests/gen && GOFLAGS=-buildvcs=false go test ./...
	python3 -m unittest discover -s loadtests/bench
	$(MVN_TESTS) verify

.PHONY: test-order test-cluster-down
test-order: deps ## Run every Maven module's tests in alphabetical, then reverse-alphabetical class order (finds order-dependent tests)
	$(MVN_TESTS) verify -Dsurefire.runOrder=alphabetical -Dfailsafe.runOrder=alphabetical
	$(MVN_TESTS) verify -Dsurefire.runOrder=reversealphabetical -Dfailsafe.runOrder=reversealphabetical

test-cluster-down: ## Stop the tests' Kubernetes cluster (kept by VIGIL_KEEP_TEST_CLUSTER=1 make test)
	@$(LOCAL)/test-cluster-down.sh

run: deps build ## Start the platform locally and show it working
	@$(LOCAL)/run.sh

stop: ## Stop exactly what `make run` started
	@$(LOCAL)/stop.sh

logs: ## Show the logs of what `make run` started
	@$(LOCAL)/logs.sh

.PHONY: auth-probe
auth-probe: ## Caller authentication tried as an attacker: a FraudEngine with JWT + mTLS (data) and roles + TLS (management) on make run's real node, every refusal case against both ports, Prometheus scraping it as its ServiceMonitor says, an in-cluster k6 run with tokens and a client certificate; a table case -> expected -> got
	@$(LOCAL)/auth-probe.sh

bench: ## Run the benchmarks: JMH, the load benchmark (k6 scenarios), the rate ladder (BENCH_PROFILE=quick|full), the Redis outage (docs/performance.md)
	@$(LOCAL)/bench.sh
	@$(LOCAL)/loadtest.sh
	@$(LOCAL)/bench-ladder.sh
	@$(LOCAL)/bench-outage.sh

.PHONY: loadtest loadtest-check bench-ladder bench-outage
bench-outage: ## Redis SIGKILLed for 10 s under 500 AUTH/s: NORMAL share, p99 and slowest answer per second, time back to NORMAL (BENCH_OUTAGE_PART=kafka|relay: restart those instead; =start: the engine's first minute after ready at 1,000/s)
	@$(LOCAL)/bench-outage.sh

bench-ladder: ## Rate ladder 1k-10k AUTH/s, open loop (vigil-load): latency, NORMAL share, CPU µs per decision per process, Redis usec_per_call; HTML report (BENCH_PROFILE=quick|full)
	@$(LOCAL)/bench-ladder.sh

.PHONY: bench-ladder-auth
bench-ladder-auth: ## The ladder with caller authentication off and with bearer JWT (300 callers reusing tokens), alternated on one data plane; CPU per decision and NORMAL share per mode, ratios jwt/off (BENCH_LADDER_AUTH=off,jwt,off,jwt)
	@BENCH_LADDER_AUTH=$${BENCH_LADDER_AUTH:-off,jwt} $(LOCAL)/bench-ladder.sh

.PHONY: bench-ladder-monitoring
bench-ladder-monitoring: ## The same ladder on POST /v1/evaluate/monitoring (CARD_MONITORING, all matching rules; BENCH_LADDER_STEPS=1000,2000,4000)
	@BENCH_LADDER_KIND=monitoring $(LOCAL)/bench-ladder.sh

loadtest: ## Load benchmark only: data plane + k6 (BENCH_PROFILE=quick|full); report in loadtests/results/
	@$(LOCAL)/loadtest.sh

loadtest-check: ## Check the load generators: k6 traffic (Node tests), vigil-load (Go tests), the ladder report (Python tests), every k6 scenario parses
	node --test loadtests/test/
	cd loadtests/gen && GOFLAGS=-buildvcs=false go test ./...
	python3 -m unittest discover -s loadtests/bench
	@for f in loadtests/k6/*.js; do "$$($(LOCAL)/tools.sh path k6)" inspect "$$f" >/dev/null || exit 1; done; echo "k6 scenarios parse"

clean: ## Remove build output and local state
	$(MVN) -q clean
	rm -rf .local

# ---- Container images (docs/installation.md, docs/adr/0007-container-images.md) ----
.PHONY: images images-list

images: ## Build the images (engine, relay, operator, loadtest-runner) with podman from Debian packages, no registry: localhost/vigil/*, .local/images/*.tar
	@$(LOCAL)/images.sh build

images-list: ## Show the built images, their sizes and archives
	@$(LOCAL)/images.sh list

# ---- Local Kubernetes (no containers; docs/local-environment.md) ----
.PHONY: tools cluster-up cluster-down cluster-status cluster-reset cluster-crds

tools: ## Build the Go tools (kube-apiserver, etcd, kwok, helm, k6, ...) into ~/.cache/vigil/bin
	@$(LOCAL)/tools.sh build

cluster-up: ## Start the local Kubernetes control plane + kwok nodes (.local/cluster/kubeconfig)
	@$(LOCAL)/ensure-deps.sh
	@$(LOCAL)/cluster-up.sh

cluster-down: ## Stop exactly the processes cluster-up started (state is kept)
	@$(LOCAL)/cluster-down.sh

cluster-status: ## Show the local cluster's processes and nodes
	@$(LOCAL)/cluster-status.sh

cluster-reset: ## Stop the local cluster and wipe its state (etcd data, certificates)
	@$(LOCAL)/cluster-reset.sh

CRDS ?= all
cluster-crds: ## Install third-party CRDs into the local cluster (CRDS="keda monitoring k6 strimzi redis")
	@$(LOCAL)/cluster-crds.sh $(CRDS)

# ---- SLO (docs/slo.md, docs/dashboards.md) ----
.PHONY: slo-report prometheus-start prometheus-stop

slo-report: ## Render the SLO picture of the last `make run` from the local Prometheus (.local/slo-report/index.html)
	@$(LOCAL)/slo-report.sh

prometheus-start: ## Start the local Prometheus (127.0.0.1:19090) scraping the local engine and relay with the SLO rules
	@$(LOCAL)/prometheus-lib.sh start

prometheus-stop: ## Stop the local Prometheus (its data stays for make slo-report)
	@$(LOCAL)/prometheus-lib.sh stop

# ---- Velocity (docs/velocity.md) ----
.PHONY: bench-velocity
bench-velocity: ## Velocity benchmark: script round trip on a local redis-server, AUTH with vs without 3 velocity rules (wrk)
	@$(LOCAL)/bench-velocity.sh

.PHONY: bench-velocity-instructions
bench-velocity-instructions: ## Redis instructions per velocity call (vs the native-command floor) and per durable decision (+ outbox XADD and relay) under callgrind; repeatable on a busy machine (ADR 0006, 0026)
	@$(LOCAL)/bench-velocity.sh instructions

.PHONY: bench-velocity-aof
bench-velocity-aof: ## AOF bytes per durable decision by source (velocity script effects, outbox XADD, relay XCLAIM/XACK/XDEL), make run's redis.conf; bytes, repeatable on a busy machine (ADR 0027)
	@$(LOCAL)/bench-velocity.sh aof

.PHONY: bench-engine-cpu
bench-engine-cpu: ## Engine CPU per request: no-op vs AUTH with durability on/off (wrk; BENCH_PROFILE=1 adds async-profiler; docs/benchmarks.md)
	@$(LOCAL)/bench-engine-cpu.sh

.PHONY: bench-relay
bench-relay: ## Relay, broker and Redis CPU µs per event at fixed XADD rates and draining a backlog, with Redis' µs per call and longest run of each relay command; own Redis + KRaft broker + relay on free ports, variants alternated (BENCH_RELAY_VARIANTS='a=<relay JVM opts>;b=...'; docs/performance.md, ADR 0022)
	@$(LOCAL)/bench-relay.sh

# ---- Durability: decisions -> Redis Streams -> relay -> Kafka (docs/durability.md) ----
.PHONY: watch-decisions
watch-decisions: ## Print decision events as they arrive in the local Kafka (ARGS=--from-beginning for the history)
	@bash -c '. $(LOCAL)/kafka-lib.sh && watch_decisions $(ARGS)'

# ---- Operator (docs/operator/architecture.md) ----
.PHONY: crds operator-test operator-run operator-sample

crds: ## Regenerate crds/ from the operator API model (the build fails while crds/ is stale)
	$(MVN) -pl operator/api -am verify -Dvigil.crds.update=true

operator-test: ## Build and test the operator modules (unit, golden, local-cluster tests)
	$(MVN_TESTS) -pl operator/api,operator/controller -am verify

operator-run: ## Run the operator out of cluster against the local control plane (.local/cluster/kubeconfig)
	@$(LOCAL)/operator-run.sh

operator-sample: ## Apply the sample FraudRulesets + FraudEngine and show their status (operator must run)
	@$(LOCAL)/operator-sample.sh
