#!/usr/bin/env python3
"""Summary of an async-profiler collapsed-stacks file (bench-engine-cpu.sh): the methods with the
most self samples, the methods with the most inclusive samples (each counted once per stack), and
the share of a few areas of the engine's request path, and the threads. Samples of the JIT compiler
threads are counted apart and left out of the rest (a warming JVM on a busy machine would otherwise
hide the request path). Usage: profile-summary.py <file.collapsed> [top]"""
import collections
import sys

# Areas of the request path: a sample under the outbox writer is the outbox's; otherwise the frame
# nearest the leaf that matches an area names the sample's area.
AREAS = [
    ("outbox: event JSON", ("io/vigil/engine/outbox/DecisionEvents", "io.vigil.engine.outbox.DecisionEvents")),
    ("outbox: XADD (Vert.x Redis)", ("io/vigil/engine/outbox/RedisStreamAppender", "io.vigil.engine.outbox.RedisStreamAppender")),
    ("velocity (store, client, guard)", ("io/vigil/engine/velocity", "io.vigil.engine.velocity", "io/smallrye/faulttolerance", "io.smallrye.faulttolerance")),
    ("Redis client I/O (netty, velocity + outbox)", ("io/vertx/redis", "io.vertx.redis")),
    ("parse (TransactionReader)", ("io/vigil/rules/txn/TransactionReader", "io.vigil.rules.txn.TransactionReader")),
    ("rules evaluation", ("io/vigil/rules/eval", "io.vigil.rules.eval")),
    ("answer JSON", ("io/vigil/engine/http/AnswerJson", "io.vigil.engine.http.AnswerJson", "io/vigil/engine/http/JsonWriter", "io.vigil.engine.http.JsonWriter")),
    ("metrics (Micrometer)", ("io/micrometer", "io.micrometer")),
    ("logging", ("org/jboss/logmanager", "org.jboss.logmanager", "org/jboss/logging", "org.jboss.logging")),
    ("HTTP server (Vert.x web, netty HTTP)", ("io/vertx/ext/web", "io.vertx.ext.web", "io/vertx/core/http", "io.vertx.core.http", "io/netty/handler/codec/http", "io.netty.handler.codec.http")),
    ("GC", ("GCTaskThread", "G1", "ParallelGC", "SerialGC", "ZThread")),
]


def main():
    path = sys.argv[1]
    top = int(sys.argv[2]) if len(sys.argv) > 2 else 25
    self_counts = collections.Counter()
    incl = collections.Counter()
    areas = collections.Counter()
    threads = collections.Counter()
    jit = 0
    total = 0
    with open(path) as f:
        for line in f:
            line = line.rstrip("\n")
            if not line:
                continue
            stack, _, n = line.rpartition(" ")
            n = int(n)
            frames = stack.split(";")
            if frames[0].startswith("[") and " tid=" in frames[0]:  # collected with "threads": the root frame is the thread
                thread = frames[0].strip("[]").split(" tid=")[0]
                frames = frames[1:] or ["?"]
                if "CompilerThre" in thread:
                    jit += n
                    continue
                threads[thread.rstrip("0123456789-")] += n
            if any("CompileBroker" in fr for fr in frames):
                jit += n
                continue
            total += n
            self_counts[frames[-1]] += n
            for fr in set(frames):
                incl[fr] += n
            area = "other (netty event loop, syscalls, JVM)"
            # the outbox writer's own thread first: its JSON goes through the same JsonWriter as answers
            outbox = next((name for name, prefixes in AREAS[:2] if any(p in fr for fr in frames for p in prefixes)), None)
            if outbox:
                area = outbox
            else:
                for fr in reversed(frames):
                    hit = next((name for name, prefixes in AREAS if any(p in fr for p in prefixes)), None)
                    if hit:
                        area = hit
                        break
            areas[area] += n
    print(f"samples: {total} (and {jit} in JIT compiler threads, left out below)")
    if threads:
        print("\nby thread:")
        for name, n in threads.most_common(12):
            print(f"  {n * 100 / total:5.1f}%  {name}")
    print("\nby area (the matching frame nearest the leaf decides):")
    for name, n in areas.most_common():
        print(f"  {n * 100 / total:5.1f}%  {name}")
    print(f"\ntop {top} self:")
    for fr, n in self_counts.most_common(top):
        print(f"  {n * 100 / total:5.1f}%  {fr}")
    print(f"\ntop {top} inclusive (io.vigil, io.vertx, io.micrometer, io.smallrye, jackson frames):")
    shown = 0
    for fr, n in incl.most_common():
        if any(k in fr for k in ("vigil", "vertx", "micrometer", "smallrye", "jackson")):
            print(f"  {n * 100 / total:5.1f}%  {fr}")
            shown += 1
            if shown >= top:
                break


if __name__ == "__main__":
    main()
