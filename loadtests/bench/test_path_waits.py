"""Tests of the outage bench's per-slice waits (environments/local/bench/path-waits.py): the differences it
reports, and one read of a real redis-server (skipped without one).

  python3 -m unittest discover -s loadtests/bench
"""
import importlib.util
import os
import shutil
import socket
import subprocess
import tempfile
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SPEC = importlib.util.spec_from_file_location(
    "path_waits", os.path.join(HERE, "..", "..", "environments", "local", "bench", "path-waits.py"))
path_waits = importlib.util.module_from_spec(SPEC)
SPEC.loader.exec_module(path_waits)


class DeltaTest(unittest.TestCase):
    def test_waits_events_and_counters_of_one_slice(self):
        a = {"redis_pid": "7", "redis_run": 1_000_000, "redis_wait": 2_000_000, "redis_involuntary": 3,
             "loops": {"11": [0, 1_000_000], "12": [0, 5_000_000]}, "latency": {"aof-write": 9},
             "aof_delayed_fsync": 1, "expired_keys": 100, "total_forks": 0}
        b = {"redis_pid": "7", "redis_run": 41_000_000, "redis_wait": 14_500_000, "redis_involuntary": 10,
             "loops": {"11": [0, 9_000_000], "12": [0, 6_000_000], "13": [0, 99_000_000]},
             "latency": {"expire-cycle": 6}, "aof_delayed_fsync": 2, "expired_keys": 350, "total_forks": 1}
        d = path_waits.delta(a, b)
        self.assertEqual(d["redis_wait_ms"], 12.5)
        self.assertEqual(d["redis_run_ms"], 40.0)
        self.assertEqual(d["redis_involuntary"], 7)
        # the busiest loop of those seen at both ends (a loop started during the slice has no start)
        self.assertEqual(d["loop_wait_ms_max"], 8.0)
        # the events read after the slice are the slice's (the read before reset them)
        self.assertEqual(d["redis_events"], {"expire-cycle": 6})
        self.assertEqual((d["aof_delayed_fsync"], d["expired_keys"], d["total_forks"]), (1, 250, 1))

    def test_jit_and_safepoints_of_one_engine(self):
        a = {"engine_pid": "5", "jvm": {"jit_compiles": 10, "jit_ticks": 1_000_000, "safepoint_ticks": 0, "ticks_per_s": 1_000_000_000}}
        b = {"engine_pid": "5", "jvm": {"jit_compiles": 17, "jit_ticks": 251_000_000, "safepoint_ticks": 3_500_000, "ticks_per_s": 1_000_000_000}}
        d = path_waits.delta(a, b)
        self.assertEqual((d["jit_compiles"], d["jit_ms"], d["safepoint_ms"]), (7, 250.0, 3.5))
        b["engine_pid"] = "6"  # another engine: its counters started from zero
        self.assertNotIn("jit_compiles", path_waits.delta(a, b))

    def test_a_restarted_redis_gives_no_redis_differences(self):
        a = {"redis_pid": "7", "redis_run": 5, "redis_wait": 5, "redis_involuntary": 5, "expired_keys": 900}
        b = {"redis_pid": "8", "redis_run": 1, "redis_wait": 1, "redis_involuntary": 1, "expired_keys": 0}
        d = path_waits.delta(a, b)
        self.assertNotIn("redis_wait_ms", d)
        self.assertNotIn("expired_keys", d)

    def test_nothing_read_gives_no_figures(self):
        self.assertEqual(path_waits.delta({}, {}), {"redis_events": {}})


@unittest.skipIf(shutil.which("redis-server") is None, "no redis-server")
class SnapTest(unittest.TestCase):
    def setUp(self):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        self.dir = tempfile.mkdtemp()
        self.redis = subprocess.Popen(["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
                                       "--dir", self.dir], stdout=subprocess.DEVNULL)
        for _ in range(100):
            try:
                path_waits.redis_call(self.port, "PING")
                return
            except OSError:
                time.sleep(0.05)

    def tearDown(self):
        self.redis.terminate()
        self.redis.wait(10)
        shutil.rmtree(self.dir, ignore_errors=True)

    def test_reads_redis_and_turns_its_latency_monitor_on(self):
        pid = str(self.redis.pid)
        snap = path_waits.snap(self.port, pid, "")
        self.assertEqual(snap["redis_pid"], pid)
        self.assertGreater(snap["redis_run"], 0)
        self.assertIn("expired_keys", snap)
        self.assertEqual(path_waits.redis_call(self.port, "CONFIG", "GET", "latency-monitor-threshold"),
                         ["latency-monitor-threshold", "1"])

    def test_a_redis_that_does_not_answer_gives_what_could_be_read(self):
        self.redis.terminate()
        self.redis.wait(10)
        self.assertEqual(path_waits.snap(self.port, "", ""), {})


JAVA = os.path.join(os.environ["JAVA_HOME"], "bin", "java") if os.environ.get("JAVA_HOME") else shutil.which("java")


@unittest.skipIf(JAVA is None or not os.path.exists(JAVA), "no java")
class JvmCountersTest(unittest.TestCase):
    def test_reads_a_running_jvms_perf_data(self):
        with tempfile.TemporaryDirectory() as d:
            source = os.path.join(d, "Sleep.java")
            with open(source, "w") as f:
                f.write("class Sleep { public static void main(String[] a) throws Exception { Thread.sleep(120_000); } }")
            # the source launcher compiles Sleep.java in the JVM: the JIT has work before main runs
            jvm = subprocess.Popen([JAVA, "-XX:+UsePerfData", source], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            try:
                counters = {}
                for _ in range(600):
                    counters = path_waits.jvm_counters(jvm.pid)
                    if counters.get("jit_compiles", 0) > 0 and len(counters) == len(path_waits.JVM_COUNTERS):
                        break
                    time.sleep(0.1)
                self.assertGreater(counters.get("jit_compiles", 0), 0, counters)
                self.assertGreater(counters["jit_ticks"], 0)
                self.assertGreater(counters["ticks_per_s"], 0)
                self.assertIn("safepoint_ticks", counters)
            finally:
                jvm.kill()
                jvm.wait(10)

    def test_no_perf_data_gives_nothing(self):
        self.assertEqual(path_waits.jvm_counters(2 ** 22 + 12345), {})
