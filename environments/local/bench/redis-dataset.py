#!/usr/bin/env python3
"""What a Redis dataset is made of, and what forking it costs (ADR 0028).

  python3 redis-dataset.py <port> [--sample N] [--rewrite] [--pid PID]

Per kind of key (the key's first ':'-separated word: vel = velocity hashes, veld = distinct sets,
veltx = idempotency markers, vigil = the decision streams, ...): how many keys, their bytes
(MEMORY USAGE of up to N keys per kind, default 2,000, scaled to the count) and TTLs, against
used_memory and the process' RSS. --rewrite then forces one BGREWRITEAOF, waits for it and reports
the fork (latest_fork_usec, µs per MB of RSS), the rewrite's wall time, the child's CPU time (read
from /proc while it runs: needs the server's pid, from INFO or --pid, on this machine) and its
copy-on-write bytes. Uses redis-cli (no client library); reads only, apart from the rewrite.
"""
import argparse
import os
import random
import subprocess
import sys
import time

TICK = os.sysconf("SC_CLK_TCK")


def cli(port, *args, stdin=None):
    """redis-cli's raw replies, one a line (a pipeline when the commands come on stdin)."""
    out = subprocess.run(["redis-cli", "-p", str(port), *args],
                         input=stdin, capture_output=True, text=True, check=True)
    return out.stdout.splitlines()


def info(port, section):
    values = {}
    for line in cli(port, "INFO", section):
        if ":" in line and not line.startswith("#"):
            k, v = line.split(":", 1)
            values[k] = v.strip()
    return values


def kind_of(key):
    return key.split(":", 1)[0] if ":" in key else "(other)"


def dataset(port, sample):
    keys = [k for k in cli(port, "--scan") if k]
    by_kind = {}
    for k in keys:
        by_kind.setdefault(kind_of(k), []).append(k)
    rows = []
    for kind, ks in sorted(by_kind.items(), key=lambda kv: -len(kv[1])):
        picked = ks if len(ks) <= sample else random.Random(7).sample(ks, sample)
        sizes = [int(x) for x in cli(port, stdin="".join("MEMORY USAGE %s SAMPLES 0\n" % k for k in picked)) if x.strip().lstrip("-").isdigit()]
        ttls = [int(x) for x in cli(port, stdin="".join("PTTL %s\n" % k for k in picked)) if x.strip().lstrip("-").isdigit()]
        mean = sum(sizes) / len(sizes) if sizes else 0
        live = sorted(t for t in ttls if t >= 0)
        rows.append({
            "kind": kind, "keys": len(ks), "bytes_mean": mean, "bytes_total": mean * len(ks),
            "ttl_s_median": live[len(live) // 2] / 1000 if live else None,
            "no_ttl": sum(1 for t in ttls if t == -1) * len(ks) // max(1, len(picked)),
        })
    return rows


def rss_mb(pid):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def cpu_s(pid):
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


def children(pid):
    try:
        with open("/proc/%d/task/%d/children" % (pid, pid)) as f:
            return [int(c) for c in f.read().split()]
    except OSError:
        return []


def rewrite(port, pid):
    while info(port, "persistence").get("aof_rewrite_in_progress") == "1" or \
            info(port, "persistence").get("aof_rewrite_scheduled") == "1":
        time.sleep(0.1)
    before_rss = rss_mb(pid)
    rewrites = int(info(port, "persistence").get("aof_rewrites", "0"))
    t0 = time.monotonic()
    cli(port, "BGREWRITEAOF")
    child_cpu, seen = 0.0, set()
    while True:
        for c in children(pid):
            seen.add(c)
            try:
                child_cpu = max(child_cpu, cpu_s(c))
            except OSError:
                pass
        p = info(port, "persistence")
        if p.get("aof_rewrite_in_progress") == "0" and int(p.get("aof_rewrites", "0")) > rewrites:
            break
        time.sleep(0.005)
    wall = time.monotonic() - t0
    stats = info(port, "stats")
    fork_us = int(stats.get("latest_fork_usec", "0"))
    return {
        "rss_mb": before_rss, "fork_ms": fork_us / 1000, "fork_us_per_mb": fork_us / before_rss if before_rss else 0,
        "rewrite_wall_s": wall, "child_cpu_s": child_cpu, "children_seen": len(seen),
        "cow_mb": int(p.get("aof_last_cow_size", "0")) / 1e6,
        "base_mb": int(p.get("aof_base_size", "0")) / 1e6,
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("port", type=int)
    ap.add_argument("--sample", type=int, default=2000)
    ap.add_argument("--rewrite", action="store_true")
    ap.add_argument("--pid", type=int)
    a = ap.parse_args()
    if a.sample < 1:
        sys.exit("--sample must be at least 1, was %d" % a.sample)
    mem = info(a.port, "memory")
    pid = a.pid or int(info(a.port, "server")["process_id"])
    print("used_memory %.1f MB, dataset %.1f MB, RSS %.1f MB (process %d), allocator fragmentation %s" % (
        int(mem["used_memory"]) / 1e6, int(mem.get("used_memory_dataset", "0")) / 1e6, rss_mb(pid), pid,
        mem.get("allocator_frag_ratio", "?")))
    print("| kind | keys | bytes per key (MEMORY USAGE, mean) | MB in all | share | TTL median s | keys without TTL |")
    print("|---|---|---|---|---|---|---|")
    rows = dataset(a.port, a.sample)
    total = sum(r["bytes_total"] for r in rows) or 1
    for r in rows:
        print("| %s | %d | %.0f | %.1f | %.0f %% | %s | %d |" % (
            r["kind"], r["keys"], r["bytes_mean"], r["bytes_total"] / 1e6, 100 * r["bytes_total"] / total,
            "-" if r["ttl_s_median"] is None else "%.0f" % r["ttl_s_median"], r["no_ttl"]))
    if a.rewrite:
        r = rewrite(a.port, pid)
        print("rewrite: RSS %.1f MB, fork %.2f ms (%.0f µs per MB of RSS), wall %.2f s, child CPU %.2f s, "
              "copy-on-write %.1f MB, new base %.1f MB" % (
                  r["rss_mb"], r["fork_ms"], r["fork_us_per_mb"], r["rewrite_wall_s"], r["child_cpu_s"],
                  r["cow_mb"], r["base_mb"]))


if __name__ == "__main__":
    main()
