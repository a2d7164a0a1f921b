#!/usr/bin/env python3
"""Helpers of the load benchmark (environments/local/bin/loadtest.sh); standard library only.

  bench.py sample <pids-file> <phase-file> <csv>     sample CPU and RSS of every process once a second
  bench.py scrape <url> <out.json>                   snapshot of the vigil_* counters of a /q/metrics page
  bench.py report <results-dir>                      summary.json + summary.md + the verdict on stdout

The sampler reads /proc/<pid>/stat (utime + stime, in clock ticks) and /proc/<pid>/status (VmRSS);
the orchestrator rewrites <pids-file> ("name pid" lines) and <phase-file> as processes and phases change.
"""
import json
import os
import sys
import time
import urllib.request

TICKS = os.sysconf("SC_CLK_TCK")


# ---- sampling ------------------------------------------------------------------------------------

def _cpu_ticks(pid):
    with open(f"/proc/{pid}/stat") as f:
        # The command name (field 2) may hold spaces: split after its closing parenthesis.
        rest = f.read().rsplit(")", 1)[1].split()
    return int(rest[11]) + int(rest[12])  # utime, stime (fields 14 and 15)


def _rss_mb(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024.0
    return 0.0


def _read_pids(path):
    pids = {}
    try:
        with open(path) as f:
            for line in f:
                parts = line.split()
                if len(parts) == 2 and parts[1].isdigit():
                    pids[parts[0]] = int(parts[1])
    except FileNotFoundError:
        pass
    return pids


def sample(pids_file, phase_file, csv_path, interval=1.0):
    last = {}
    with open(csv_path, "a", buffering=1) as out:
        if out.tell() == 0:
            out.write("time,phase,process,pid,cpu_pct,rss_mb\n")
        while True:
            now = time.monotonic()
            try:
                with open(phase_file) as f:
                    phase = f.read().strip() or "-"
            except FileNotFoundError:
                phase = "-"
            for name, pid in _read_pids(pids_file).items():
                try:
                    ticks = _cpu_ticks(pid)
                    rss = _rss_mb(pid)
                except (FileNotFoundError, ProcessLookupError, IndexError):
                    last.pop((name, pid), None)
                    continue
                prev = last.get((name, pid))
                last[(name, pid)] = (now, ticks)
                if prev is None:
                    continue
                cpu = 100.0 * (ticks - prev[1]) / TICKS / max(now - prev[0], 1e-3)
                out.write(f"{time.time():.1f},{phase},{name},{pid},{cpu:.1f},{rss:.1f}\n")
            time.sleep(max(0.05, interval - (time.monotonic() - now)))


# ---- metrics ------------------------------------------------------------------------------------

def scrape(url, out_path):
    """Sums of every vigil_* sample by metric name and by name{result=...} (Prometheus text format)."""
    sums = {}
    try:
        with urllib.request.urlopen(url, timeout=5) as r:
            text = r.read().decode()
    except Exception as e:  # the relay may not run: an empty snapshot, the report says so
        text = ""
        sums["_error"] = str(e)
    for line in text.splitlines():
        if not line.startswith("vigil_"):
            continue
        try:
            key, value = line.rsplit(" ", 1)
            v = float(value)
        except ValueError:
            continue
        name = key.split("{", 1)[0]
        sums[name] = sums.get(name, 0.0) + v
        for label in ("result", "code"):
            if f'{label}="' in key:
                val = key.split(f'{label}="', 1)[1].split('"', 1)[0]
                k = f"{name}{{{label}={val}}}"
                sums[k] = sums.get(k, 0.0) + v
    sums["_time"] = time.time()
    with open(out_path, "w") as f:
        json.dump(sums, f, indent=1, sort_keys=True)


def _delta(before, after, name):
    if name not in after:
        return None
    return after.get(name, 0.0) - before.get(name, 0.0)


# ---- report -------------------------------------------------------------------------------------

# Benchmark targets, stricter than the SLO (docs/slo.md: p99 <= 10 ms, p95 <= 5 ms): named targets,
# never reported as the SLO.
TARGETS = {
    "open_loop_rate": 10000, "open_loop_p99_ms": 5.0,
    "mid_rate": 4000, "mid_p99_ms": 3.0,
    "auth_vs_noop": 0.5, "engine_rss_mb": 300.0, "durable_per_s": 20000,
}


def _load(path, default=None):
    try:
        with open(path) as f:
            return json.load(f)
    except (FileNotFoundError, json.JSONDecodeError):
        return default


def _processes(results, phase):
    rows = {}
    try:
        with open(os.path.join(results, "processes.csv")) as f:
            next(f)
            for line in f:
                _, ph, name, _, cpu, rss = line.strip().split(",")
                if phase is not None and ph != phase:
                    continue
                r = rows.setdefault(name, {"cpu": [], "rss": []})
                r["cpu"].append(float(cpu))
                r["rss"].append(float(rss))
    except FileNotFoundError:
        pass
    return {n: {"cpu_avg_pct": round(sum(r["cpu"]) / len(r["cpu"]), 1), "cpu_max_pct": round(max(r["cpu"]), 1),
                "rss_max_mb": round(max(r["rss"]), 1), "samples": len(r["cpu"])} for n, r in rows.items() if r["cpu"]}


def _fmt(x, nd=2):
    return "-" if x is None else f"{x:,.{nd}f}"


def report(results):
    meta = _load(os.path.join(results, "meta.json"), {})
    phases = []
    for ph in meta.get("phases", []):
        name = ph["name"]
        k6 = _load(os.path.join(results, f"{name}.json"))
        before = _load(os.path.join(results, f"{name}.engine-before.json"), {})
        after = _load(os.path.join(results, f"{name}.engine-after.json"), {})
        rb = _load(os.path.join(results, f"{name}.relay-before.json"), {})
        ra = _load(os.path.join(results, f"{name}.relay-after.json"), {})
        seconds = (after.get("_time", 0) - before.get("_time", 0)) or None
        engine = {
            "queue_dropped": _delta(before, after, "vigil_outbox_enqueue_total{result=dropped}"),
            "queue_ok": _delta(before, after, "vigil_outbox_enqueue_total{result=ok}"),
            "xadd_ok": _delta(before, after, "vigil_outbox_xadd_total{result=ok}"),
            "degraded": _delta(before, after, "vigil_engine_degraded_total"),
            "load_shed": _delta(before, after, "vigil_engine_load_shed_total"),
            "fail_open": _delta(before, after, "vigil_engine_fail_open_total"),
            "velocity_errors": _delta(before, after, "vigil_velocity_errors_total"),
            "velocity_timeouts": _delta(before, after, "vigil_velocity_timeouts_total"),
        }
        codes = {}
        for k in after:
            if k.startswith(("vigil_engine_degraded_total{code=", "vigil_engine_fail_open_total{code=")):
                d = _delta(before, after, k)
                if d:
                    codes[k.split("{code=", 1)[1].rstrip("}")] = codes.get(k.split("{code=", 1)[1].rstrip("}"), 0) + int(d)
        engine["non_normal_by_code"] = codes
        published = _delta(rb, ra, "vigil_relay_published_total")
        relay = {"published": published,
                 "published_per_s": round(published / seconds, 1) if published is not None and seconds else None}
        phases.append({**ph, "k6": k6, "engine": engine, "relay": relay, "processes": _processes(results, name)})

    for p in phases:
        k6 = p["k6"]
        if k6 and k6["overall"]["requests"]:
            p["cpu_us_per_request"] = {
                n: round(v["cpu_avg_pct"] / 100.0 * k6["duration_s"] / k6["overall"]["requests"] * 1e6, 1)
                for n, v in p["processes"].items() if n in ("engine", "redis", "k6", "wrk", "kafka", "relay")}
    by = {p["name"]: p for p in phases}

    def part(phase, rate):
        p = by.get(phase)
        if not p or not p["k6"]:
            return None
        for label, v in p["k6"]["parts"].items():
            if v.get("target_rate") == rate:
                return v
        return None

    def overall(phase):
        p = by.get(phase)
        return p["k6"]["overall"] if p and p["k6"] else None

    verdicts = []

    def verdict(name, ok, detail):
        verdicts.append({"target": name, "ok": ok, "detail": detail})

    ladder_phase = "ladder"
    top = part(ladder_phase, TARGETS["open_loop_rate"])
    if top:
        drops = by[ladder_phase]["engine"]["queue_dropped"]
        errors = (top["failed_rate"] or 0) * top["requests"]
        held = top["rps"] is not None and top["rps"] >= 0.98 * TARGETS["open_loop_rate"] and top["dropped_iterations"] == 0
        ok = held and top["latency_ms"]["p99"] <= TARGETS["open_loop_p99_ms"] and errors == 0 and not drops
        verdict("open loop 10,000/s: held, p99 <= 5 ms, 0 errors, 0 queue drops", ok,
                f"{_fmt(top['rps'], 0)}/s achieved, p99 {_fmt(top['latency_ms']['p99'])} ms, errors {int(errors)}, "
                f"k6 dropped {top['dropped_iterations']}, queue drops (whole ladder) {_fmt(drops, 0)}")
    else:
        verdict("open loop 10,000/s", False, "no 10,000/s step in this profile")
    mid = part(ladder_phase, TARGETS["mid_rate"])
    if mid:
        verdict("p99 <= 3 ms at 4,000/s", mid["latency_ms"]["p99"] <= TARGETS["mid_p99_ms"],
                f"p99 {_fmt(mid['latency_ms']['p99'])} ms at {_fmt(mid['rps'], 0)}/s")
    auth_max, noop_max = overall("max-auth"), overall("max-noop")
    ratio = None
    if auth_max and noop_max and noop_max["rps"]:
        ratio = auth_max["rps"] / noop_max["rps"]
        verdict("AUTH >= 0.5 x no-op throughput", ratio >= TARGETS["auth_vs_noop"],
                f"AUTH {_fmt(auth_max['rps'], 0)}/s vs no-op {_fmt(noop_max['rps'], 0)}/s = {ratio:.2f}")
    rss = max((p["processes"].get("engine", {}).get("rss_max_mb", 0) for p in phases), default=0)
    verdict("engine RSS <= 300 MB", 0 < rss <= TARGETS["engine_rss_mb"], f"max {rss:.0f} MB over the run")
    drain = _load(os.path.join(results, "relay-drain.json"))
    if drain:
        verdict("durable decisions (reached Kafka) >= 20,000/s at saturation", drain["per_s"] >= TARGETS["durable_per_s"],
                f"relay drained {drain['published']:,} of a {drain['backlog']:,}-event backlog at {_fmt(drain['per_s'], 0)}/s")
    else:
        durable = by.get("max-auth", {}).get("relay", {}).get("published_per_s")
        verdict("durable decisions (reached Kafka) >= 20,000/s at saturation", False,
                f"no drain phase; {_fmt(durable, 0)}/s published during closed-loop AUTH (bounded by AUTH)"
                if durable is not None else "relay not running")

    wrk_auth, wrk_noop = overall("ceiling-auth-wrk"), overall("ceiling-noop-wrk")
    wrk_ratio = wrk_auth["rps"] / wrk_noop["rps"] if wrk_auth and wrk_noop and wrk_noop["rps"] else None

    dur_on, dur_off = overall("max-auth"), overall("max-auth-durability-off")
    durability = None
    if dur_on and dur_off and dur_off["rps"]:
        durability = {"max_on_rps": dur_on["rps"], "max_off_rps": dur_off["rps"], "max_ratio": round(dur_on["rps"] / dur_off["rps"], 3)}
        on_mid, off_mid = mid, part("constant-durability-off", TARGETS["mid_rate"])
        if on_mid and off_mid:
            durability.update({"p99_on_ms": on_mid["latency_ms"]["p99"], "p99_off_ms": off_mid["latency_ms"]["p99"]})

    summary = {"meta": meta, "phases": phases, "verdicts": verdicts, "relay_drain": drain,
               "ratios": {"auth_vs_noop": round(ratio, 3) if ratio else None,
                          "auth_vs_noop_wrk": round(wrk_ratio, 3) if wrk_ratio else None,
                          "ceiling_wrk": {"auth_rps": wrk_auth["rps"], "noop_rps": wrk_noop["rps"]} if wrk_ratio else None,
                          "durability": durability}}
    with open(os.path.join(results, "summary.json"), "w") as f:
        json.dump(summary, f, indent=2)
    md = markdown(summary)
    with open(os.path.join(results, "summary.md"), "w") as f:
        f.write(md)
    print(md)
    return summary


def markdown(s):
    m = s["meta"]
    out = [f"# Load benchmark {m.get('stamp', '')} ({m.get('profile', '')} profile)", "",
           f"Machine: {m.get('cpus', '?')} CPUs, {m.get('mem_gb', '?')} GiB; commit {m.get('commit', '?')}; "
           f"{m.get('k6_version', '?')}; engine JVM options `{m.get('engine_java_opts', '')}`.",
           f"Load average (1/5/15 min) before the run: {m.get('loadavg_before', '?')}, after: {m.get('loadavg_after', '?')} "
           "(other work on the machine; above ~2 the cores were shared with more than this benchmark).",
           "Everything (engine, Redis, Kafka, relay, k6) shares the same cores. Latency is k6's `http_req_duration`.", "",
           "## Phases", "",
           "| Phase | Part | Target /s | Achieved /s | p50 ms | p95 ms | p99 ms | max ms | Errors | Non-NORMAL | DECLINE | k6 dropped | Queue drops |",
           "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    notes = []
    for p in s["phases"]:
        k6 = p["k6"]
        if not k6:
            out.append(f"| {p['name']} | (no k6 summary) |||||||||||| ")
            continue
        rows = list(k6["parts"].items()) or [("overall", k6["overall"])]
        for label, v in rows:
            lat = v["latency_ms"] or {}
            errors = int(round((v["failed_rate"] or 0) * v["requests"]))
            non_normal = "-" if v["normal_rate"] is None else f"{(1 - v['normal_rate']) * 100:.2f}%"
            out.append(f"| {p['name']} | {label} | {_fmt(v.get('target_rate'), 0) if v.get('target_rate') else '-'} | "
                       f"{_fmt(v['rps'], 0)} | {_fmt(lat.get('p50'))} | {_fmt(lat.get('p95'))} | {_fmt(lat.get('p99'))} | "
                       f"{_fmt(lat.get('max'))} | {errors} | {non_normal} | {_fmt((v['declined_rate'] or 0) * 100, 1)}% | "
                       f"{v['dropped_iterations']} | {_fmt(p['engine']['queue_dropped'], 0)} |")
        if p["engine"].get("non_normal_by_code"):
            notes.append(f"- {p['name']}: non-NORMAL answers by engine_error_code: "
                         + ", ".join(f"{c} {n:,}" for c, n in sorted(p["engine"]["non_normal_by_code"].items())))
    if notes:
        out += [""] + notes
    out += ["", "## Processes (CPU % of one core, averaged over the phase; RSS max)", "",
            "| Phase | " + " | ".join(["engine", "redis", "kafka", "relay", "generator (k6 or wrk)"]) + " |", "|---|---|---|---|---|---|"]
    for p in s["phases"]:
        cells = []
        for n in ["engine", "redis", "kafka", "relay", "k6"]:
            v = p["processes"].get(n) or (p["processes"].get("wrk") if n == "k6" else None)
            cells.append(f"{v['cpu_avg_pct']:.0f}% / {v['rss_max_mb']:.0f} MB" if v else "-")
        out.append(f"| {p['name']} | " + " | ".join(cells) + " |")
    out += ["", "## CPU per request (microseconds of CPU per answered request, from the samples above)", "",
            "What a request costs each process, independent of how much of the machine others took during the run:",
            "the capacity of two free cores is about 2,000,000 / (sum of the row) requests per second.", "",
            "| Phase | engine | redis | kafka | relay | generator | sum |", "|---|---:|---:|---:|---:|---:|---:|"]
    for p in s["phases"]:
        if p.get("cpu_us_per_request"):
            c = p["cpu_us_per_request"]
            gen = c.get("k6", c.get("wrk"))
            out.append(f"| {p['name']} | " + " | ".join(_fmt(v, 0) for v in (c.get("engine"), c.get("redis"), c.get("kafka"), c.get("relay"), gen))
                       + f" | {_fmt(sum(v for v in c.values() if v is not None), 0)} |")
    r = s["ratios"]
    out += ["", "## Ratios (same run)", ""]
    out.append(f"- AUTH / no-op closed-loop throughput: {_fmt(r['auth_vs_noop'])}")
    if r.get("auth_vs_noop_wrk"):
        c = r["ceiling_wrk"]
        out.append(f"- AUTH / no-op with wrk (the engine's ceiling, light generator): {_fmt(r['auth_vs_noop_wrk'])} "
                   f"({_fmt(c['auth_rps'], 0)}/s vs {_fmt(c['noop_rps'], 0)}/s)")
    d = r["durability"]
    if d:
        out.append(f"- Durability on / off closed-loop throughput: {_fmt(d['max_ratio'])} "
                   f"({_fmt(d['max_on_rps'], 0)}/s vs {_fmt(d['max_off_rps'], 0)}/s)")
        if "p99_on_ms" in d:
            out.append(f"- p99 at 4,000/s, durability on vs off: {_fmt(d['p99_on_ms'])} ms vs {_fmt(d['p99_off_ms'])} ms")
    if s.get("relay_drain"):
        d = s["relay_drain"]
        out.append(f"- Relay drain (durable decisions at saturation): {d['published']:,} of {d['backlog']:,} events "
                   f"in {d['seconds']} s = {_fmt(d['per_s'], 0)}/s")
    out += ["", "## Verdict against the targets (reported, not asserted)", ""]
    for v in s["verdicts"]:
        out.append(f"- {'PASS' if v['ok'] else 'MISS'} {v['target']}: {v['detail']}")
    out.append("")
    return "\n".join(out)


if __name__ == "__main__":
    cmd = sys.argv[1] if len(sys.argv) > 1 else ""
    if cmd == "sample":
        sample(sys.argv[2], sys.argv[3], sys.argv[4])
    elif cmd == "scrape":
        scrape(sys.argv[2], sys.argv[3])
    elif cmd == "report":
        report(sys.argv[2])
    else:
        sys.exit(__doc__)
