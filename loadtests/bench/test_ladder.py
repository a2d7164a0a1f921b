"""Tests of the rate ladder's report (ladder.py): parsing and per-decision arithmetic, no clock, no network.

  python3 -m unittest discover -s loadtests/bench
"""
import contextlib
import io
import json
import os
import tempfile
import unittest

import ladder

COMMANDSTATS = """# Commandstats
cmdstat_evalsha:calls=2000,usec=744000,usec_per_call=372.00,rejected_calls=0,failed_calls=0
cmdstat_hgetall:calls=6000,usec=204000,usec_per_call=34.00,rejected_calls=0,failed_calls=0
cmdstat_xadd:calls=1000,usec=9000,usec_per_call=9.00,rejected_calls=0,failed_calls=0
"""


def step(rate, answered, normal, p99, codes=None, errors=0, achieved=None, published=None, cpu=None):
    return {"generator": {
        "rate_offered": rate, "achieved_rate": achieved if achieved is not None else rate, "answered": answered,
        "non200": errors, "transport_errors": 0,
        "latency_ms": {"p50": 0.5, "p90": 1.0, "p99": p99, "p999": p99 * 2, "max": p99 * 3},
        "modes": {"NORMAL": normal, "DEGRADED": answered - normal}, "codes": codes or {},
        "process_cpu_us": cpu or {}, "generator_cpu_us_per_request": 30.0},
        "redis_commandstats": ladder.parse_commandstats(COMMANDSTATS), "published": published}


class LadderTest(unittest.TestCase):
    def test_commandstats(self):
        s = ladder.parse_commandstats(COMMANDSTATS)
        self.assertEqual(s["evalsha"], {"calls": 2000, "usec": 744000, "usec_per_call": 372.0})
        self.assertEqual(set(s), {"evalsha", "hgetall", "xadd"})
        self.assertEqual(ladder.parse_commandstats("# Commandstats\n"), {})

    def test_counter_sums_every_series_and_only_that_name(self):
        text = ('# TYPE vigil_relay_published_total counter\n'
                'vigil_relay_published_total{topic="a"} 10.0\n'
                'vigil_relay_published_total{topic="b"} 5.0\n'
                'vigil_relay_published_total_other 99\n')
        self.assertEqual(ladder.parse_counter(text, "vigil_relay_published_total"), 15.0)
        self.assertIsNone(ladder.parse_counter("", "vigil_relay_published_total"))

    def test_info_dataset_and_forks(self):
        info = ladder.parse_info("# Persistence\r\naof_rewrites:3\r\naof_base_size:790667864\r\n"
                                 "# Stats\r\ntotal_forks:4\r\nlatest_fork_usec:118423\r\n"
                                 "# Memory\r\nused_memory:2652000000\r\nused_memory_human:2.47G\r\n"
                                 "# Keyspace\r\ndb0:keys=843585,expires=843000,avg_ttl=0\r\ndb1:keys=15,expires=0\r\n")
        self.assertEqual(info["used_memory_human"], "2.47G")
        d = ladder.redis_dataset(info, 775534)
        self.assertEqual(d["keys"], 843600)
        self.assertEqual((d["used_memory"], d["stream_length"], d["aof_rewrites"], d["total_forks"]),
                         (2652000000, 775534, 3, 4))
        self.assertEqual(ladder.keyspace_keys({}), 0)

    def test_step_counts_rewrites_and_forks_and_the_machine_s_other_cpu(self):
        cpu = {"engine": 4_000_000, "redis": 2_000_000, "relay": 1_000_000, "kafka": 500_000, "generator": 500_000}
        st = step(2000, 40000, 40000, 2.0, cpu=cpu)
        st["redis_before"] = {"keys": 10, "aof_rewrites": 1, "total_forks": 2, "latest_fork_usec": 9000}
        st["redis_after"] = {"keys": 90, "aof_rewrites": 3, "total_forks": 4, "latest_fork_usec": 115000}
        # 20 s on 2 CPUs at 100 jiffies/s: 3,000 busy jiffies = 1.5 cores busy, 0.4 of them ours (8 s / 20 s)
        st["machine_cpu"] = {"busy_jiffies": 3000, "seconds": 20.0, "clk_tck": 100, "cpus": 2}
        row = ladder.analyse_step(st)
        self.assertEqual((row["aof_rewrites"], row["forks"], row["last_fork_ms"]), (2, 2, 115.0))
        self.assertEqual(row["machine"], {"busy_cores": 1.5, "ours_cores": 0.4, "other_cores": 1.1, "cpus": 2})
        st["redis_after"]["total_forks"] = 2  # no fork in the step: no pause to report
        self.assertIsNone(ladder.analyse_step(st)["last_fork_ms"])

    def test_deadline_misses_by_cause(self):
        text = ('# TYPE vigil_velocity_deadline_missed_total counter\n'
                'vigil_velocity_deadline_missed_total{cause="engine_late"} 7.0\n'
                'vigil_velocity_deadline_missed_total{cause="store_slow"} 3.0\n'
                'vigil_velocity_deadline_missed_other{cause="store_slow"} 99\n')
        self.assertEqual(ladder.parse_by_label(text, "vigil_velocity_deadline_missed_total", "cause"),
                         {"engine_late": 7.0, "store_slow": 3.0})
        st = step(1000, 1000, 990, 3.0)
        st["deadline_missed_before"] = {"engine_late": 7.0, "store_slow": 3.0}
        st["deadline_missed_after"] = {"engine_late": 12.0, "store_slow": 8.0}
        self.assertEqual(ladder.analyse_step(st)["deadline_missed"], {"engine_late": 5, "store_slow": 5})
        self.assertIsNone(ladder.analyse_step(step(1000, 1000, 990, 3.0))["deadline_missed"])

    def test_proc_stat(self):
        busy, total = ladder.proc_stat_cpu("cpu  100 5 50 800 20 0 5 0 0 0\ncpu0 50 2 25 400 10 0 2 0 0 0\n")
        self.assertEqual((busy, total), (160, 980))

    def test_durations(self):
        self.assertEqual(ladder.parse_duration("20s"), 20)
        self.assertEqual(ladder.parse_duration("500ms"), 0.5)
        self.assertEqual(ladder.parse_duration("2m"), 120)

    def test_per_decision_costs(self):
        cpu = {"engine": 200_000, "redis": 600_000, "relay": 150_000, "kafka": 50_000, "generator": 40_000}
        row = ladder.analyse_step(step(1000, 1000, 936, 22.0, {"DEGRADED/VELOCITY_UNAVAILABLE": 64},
                                       published=800, cpu=cpu))
        self.assertEqual(row["cpu_us_per_decision"],
                         {"engine": 200.0, "redis": 600.0, "relay": 150.0, "kafka": 50.0, "generator": 40.0})
        self.assertEqual(row["pipeline_cpu_us_per_decision"], 1000.0)
        self.assertEqual(row["pipeline_cpu_us_per_durable_decision"], 1250.0)  # 1,000,000 µs / 800 events
        self.assertEqual(row["normal_share"], 0.936)
        self.assertEqual(row["redis"]["evalsha"], {"usec_per_call": 372.0, "calls_per_decision": 2.0})
        self.assertEqual(list(row["redis"])[0], "evalsha")  # the costliest command first
        self.assertEqual(row["redis_usec_per_decision"], 957.0)
        self.assertFalse(row["held"])

    def test_highest_held_needs_normal_latency_rate_and_no_errors(self):
        rows = [ladder.analyse_step(s) for s in (
            step(1000, 1000, 1000, 1.2),
            step(2000, 2000, 1999, 4.9),          # 99.95 % NORMAL, p99 4.9: held
            step(4000, 4000, 4000, 5.1),          # p99 above 5 ms
            step(6000, 6000, 5990, 2.0),          # 99.83 % NORMAL
            step(8000, 8000, 8000, 2.0, errors=1),
            step(10000, 9000, 9000, 2.0, achieved=9000),  # not achieved
        )]
        self.assertEqual([r["held"] for r in rows], [True, True, False, False, False, False])
        self.assertEqual(ladder.highest_held(rows), 2000)
        self.assertIsNone(ladder.highest_held(rows[2:]))

    def test_report_writes_summary_markdown_and_html(self):
        with tempfile.TemporaryDirectory() as d:
            for s in (step(2000, 2000, 1000, 9.0, {"DEGRADED/VELOCITY_UNAVAILABLE": 1000}), step(1000, 1000, 1000, 1.0)):
                with open(os.path.join(d, f"step-{s['generator']['rate_offered']}.json"), "w") as f:
                    json.dump(s, f)
            with open(os.path.join(d, "meta.json"), "w") as f:
                json.dump({"stamp": "T", "commit": "abc"}, f)
            s, md = ladder.report(d)
            self.assertEqual([r["offered"] for r in s["steps"]], [1000, 2000])
            self.assertEqual(s["highest_held"], 1000)
            self.assertIn("DEGRADED/VELOCITY_UNAVAILABLE 50.00 %", md)
            with open(os.path.join(d, "index.html")) as f:
                page = f.read()
            self.assertEqual(page.count("<svg"), 3)
            self.assertNotIn("http://", page.replace('xmlns="http://www.w3.org/2000/svg"', ""))  # nothing fetched
            with open(os.path.join(d, "summary.json")) as f:
                self.assertEqual(json.load(f)["highest_held"], 1000)

    def test_forced_rewrite_is_a_positive_offset_and_reported(self):
        for bad in ("0", "-3", "ten"):
            with self.assertRaises(SystemExit), contextlib.redirect_stderr(io.StringIO()):
                ladder.main(["run", "out", "--gen", "g", "--pool", "p", "--pids", "x", "--rewrite-at", bad])
        with tempfile.TemporaryDirectory() as d:
            with open(os.path.join(d, "step-2000.json"), "w") as f:
                json.dump(step(2000, 2000, 2000, 1.0), f)
            with open(os.path.join(d, "meta.json"), "w") as f:
                json.dump({"stamp": "T", "rewrite_at": "10", "redis_children": "idle"}, f)
            md = ladder.report(d)[1]
            self.assertIn("One AOF rewrite forced 10 s into every step.", md)
            self.assertIn("Redis' fork children (AOF rewrite): idle.", md)
            with open(os.path.join(d, "meta.json"), "w") as f:
                json.dump({"stamp": "T", "rewrite_at": ""}, f)
            self.assertNotIn("rewrite forced", ladder.report(d)[1])

    def test_compare_means_each_mode_over_its_ladders_and_divides_by_off(self):
        def summary(mode, engine_cpu, normal):
            cpu = {"engine": engine_cpu, "redis": 1_000_000, "relay": 500_000, "kafka": 500_000}
            rows = [ladder.analyse_step(step(1000, 10000, normal, 2.0, cpu=cpu, published=10000))]
            return mode, {"meta": {"stamp": mode, "loadavg_before": "1.0", "loadavg_after": "1.1"}, "steps": rows}
        c = ladder.compare([summary("off", 2_000_000, 10000), summary("jwt", 2_300_000, 9990),
                            summary("off", 2_200_000, 10000), summary("jwt", 2_420_000, 10000)])
        self.assertEqual((c["base"], c["modes"]), ("off", ["off", "jwt"]))
        st = c["steps"][0]
        self.assertAlmostEqual(st["modes"]["off"]["engine_us"], 210.0)
        self.assertAlmostEqual(st["modes"]["jwt"]["engine_us"], 236.0)
        self.assertEqual(st["modes"]["jwt"]["ladders"], 2)
        self.assertAlmostEqual(st["modes"]["jwt"]["normal_share"], 0.9995)
        self.assertEqual(st["ratios"]["jwt"]["engine"], round(236 / 210, 3))
        # durable: (engine + 2 ms of the others) per published event
        self.assertEqual(st["ratios"]["jwt"]["pipeline_per_durable"], round(436 / 410, 3))
        md = ladder.compare_markdown(c)
        self.assertIn("| 1,000 | jwt | 236.0 |", md)
        self.assertIn("Ratios jwt / off", md)

if __name__ == "__main__":
    unittest.main()
