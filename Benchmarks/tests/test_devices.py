"""Tests of the device benchmark's pure parts and of its process engine, with no server.

    make bench-test      (or: .venv/bin/python -m unittest discover -s Benchmarks/tests)

Schedules, percentiles, the access log and /proc parsing, request attribution, the
figures and saturation verdict, the plot, the gunicorn command line, the push summary;
and `bench_devices.Engine` running small shell scripts in place of `shelf-sync` (skipped
ticks, exit codes, the logged request count, a run killed at the end of its drain).
"""
from __future__ import annotations

import collections
import pathlib
import stat
import sys
import tempfile
import time
import unittest
import xml.etree.ElementTree as ET

HERE = pathlib.Path(__file__).resolve().parent
BENCH = HERE.parent
sys.path.insert(0, str(BENCH))

import bench_devices  # noqa: E402
import devices as dv  # noqa: E402
import kinto_server  # noqa: E402
import procstat  # noqa: E402
import report  # noqa: E402
import svg_plot  # noqa: E402
from kinto_api import Account  # noqa: E402

SVG = "{http://www.w3.org/2000/svg}"


# MARK: - Schedules

class ScheduleTests(unittest.TestCase):
    def fleet(self, count=20):
        return [dv.Device(f"d{i}", f"u{i}") for i in range(count)]

    def test_each_device_ticks_once_a_period_within_the_jitter(self):
        ticks = dv.make_schedule(self.fleet(), duration=60, period=10, jitter=2, edit_share=0.2, seed=3)
        by_device = collections.defaultdict(list)
        for tick in ticks:
            by_device[tick.device].append(tick.at)
        self.assertEqual(len(by_device), 20)
        for times in by_device.values():
            self.assertLess(times[0], 10)            # out of phase, within the first period
            self.assertGreaterEqual(times[0], 0)
            self.assertTrue(all(t < 60 for t in times))
            gaps = [b - a for a, b in zip(times, times[1:])]
            self.assertTrue(all(8 <= g <= 12 for g in gaps), gaps)
        self.assertEqual([t.at for t in ticks], sorted(t.at for t in ticks))

    def test_the_phases_spread_over_the_period(self):
        firsts = {}
        for tick in dv.make_schedule(self.fleet(200), duration=10, period=10, jitter=1, edit_share=0, seed=1):
            firsts.setdefault(tick.device, tick.at)
        buckets = collections.Counter(int(at) for at in firsts.values())
        self.assertEqual(len(buckets), 10)           # every second of the period has some
        self.assertLess(max(buckets.values()), 40)

    def test_edit_runs_are_about_their_share_with_one_to_three_edits(self):
        ticks = dv.make_schedule(self.fleet(100), duration=100, period=10, jitter=2, edit_share=0.2, seed=5)
        edits = [t for t in ticks if t.kind == dv.EDITS]
        self.assertAlmostEqual(len(edits) / len(ticks), 0.2, delta=0.05)
        self.assertEqual({t.edits for t in edits}, {1, 2, 3})
        self.assertTrue(all(t.edits == 0 for t in ticks if t.kind == dv.IDLE))

    def test_a_joining_device_starts_with_its_first_sync(self):
        fleet = [dv.Device("new", "reader", joins_at=25.0)]
        ticks = dv.make_schedule(fleet, duration=60, period=10, jitter=0, edit_share=0, seed=1)
        self.assertEqual(ticks[0], dv.Tick(25.0, "new", dv.FIRST))
        self.assertEqual([t.at for t in ticks], [25.0, 35.0, 45.0, 55.0])
        self.assertEqual({t.kind for t in ticks[1:]}, {dv.IDLE})

    def test_a_device_joining_after_the_window_never_ticks(self):
        self.assertEqual(dv.make_schedule([dv.Device("late", "r", joins_at=61)], 60, 10, 1, 0.5), [])

    def test_the_same_seed_gives_the_same_schedule(self):
        one = dv.make_schedule(self.fleet(), 60, 10, 2, 0.2, seed=9)
        self.assertEqual(one, dv.make_schedule(self.fleet(), 60, 10, 2, 0.2, seed=9))
        self.assertNotEqual(one, dv.make_schedule(self.fleet(), 60, 10, 2, 0.2, seed=10))

    def test_jitter_must_stay_below_the_period(self):
        self.assertRaises(ValueError, dv.make_schedule, self.fleet(), 60, 10, 10, 0)
        self.assertRaises(ValueError, dv.make_schedule, self.fleet(), 60, 0, 0, 0)

    def test_join_times_fall_in_the_windows_middle(self):
        times = dv.join_times(50, duration=60, seed=2)
        self.assertEqual(times, sorted(times))
        self.assertTrue(all(6 <= t <= 36 for t in times))


# MARK: - Percentiles

class PercentileTests(unittest.TestCase):
    def test_known_values(self):
        values = [5, 1, 4, 2, 3]
        self.assertEqual(dv.percentile(values, 50), 3)
        self.assertEqual(dv.percentile(values, 0), 1)
        self.assertEqual(dv.percentile(values, 100), 5)
        self.assertEqual(dv.percentile(values, 25), 2)
        self.assertAlmostEqual(dv.percentile([1, 2], 50), 1.5)
        self.assertAlmostEqual(dv.percentile(list(range(1, 101)), 99), 99.01)

    def test_edges(self):
        self.assertIsNone(dv.percentile([], 50))
        self.assertEqual(dv.percentile([7.5], 99), 7.5)
        self.assertRaises(ValueError, dv.percentile, [1], 101)

    def test_spread(self):
        s = dv.spread([0.1, 0.2, 0.3, 1.0])
        self.assertEqual(s["n"], 4)
        self.assertAlmostEqual(s["p50"], 0.25)
        self.assertAlmostEqual(s["mean"], 0.4)
        self.assertEqual(s["max"], 1.0)
        self.assertIsNone(dv.spread([]))


# MARK: - /proc and the access log

class ProcTests(unittest.TestCase):
    LINE = ("4242 (gunicorn: worker (kinto)) S 4200 4200 4200 0 -1 4194560 2000 0 0 0 "
            "150 30 7 3 20 0 3 0 12345 100000000 5000 18446744073709551615")

    def test_parse_stat_survives_a_name_with_spaces_and_parentheses(self):
        s = procstat.parse_stat(self.LINE)
        self.assertEqual((s.pid, s.comm, s.ppid), (4242, "gunicorn: worker (kinto)", 4200))
        self.assertEqual((s.utime, s.stime, s.cutime, s.cstime), (150, 30, 7, 3))
        self.assertEqual(s.ticks, 190)

    def test_a_tree_counts_live_processes_and_their_reaped_children_once(self):
        def stat(pid, ppid, own, reaped=0):
            return procstat.ProcStat(pid, "p", ppid, own, 0, reaped, 0)
        stats = {1: stat(1, 0, 1), 10: stat(10, 1, 5, reaped=40),   # master, 40 ticks of dead workers
                 11: stat(11, 10, 100), 12: stat(12, 10, 200), 13: stat(13, 12, 7), 20: stat(20, 1, 999)}
        self.assertEqual(procstat.descendants(10, stats), [11, 12, 13])
        self.assertEqual(procstat.tree_ticks(10, stats), 5 + 40 + 100 + 200 + 7)
        self.assertEqual(procstat.tree_ticks(99, stats), 0)   # gone: nothing

    def test_this_process_is_found_in_proc(self):
        import os
        me = procstat.read_stat(os.getpid())
        self.assertEqual(me.pid, os.getpid())
        self.assertIn(os.getpid(), procstat.children(os.getppid()))

    def test_machine_line(self):
        text = "cpu  100 5 50 800 20 3 2 0 0 0\ncpu0 50 2 25 400 10 1 1 0 0 0\n"
        self.assertEqual(procstat.parse_machine(text), (160, 980))
        self.assertRaises(ValueError, procstat.parse_machine, "intr 1\n")

    def test_access_lines_follow_the_launchers_format(self):
        # The format gunicorn is given, with the atoms filled in as gunicorn does.
        atoms = {"t": "1796135738.927", "u": "reader-0001", "m": "POST", "U": "/v1/batch", "s": "200",
                 "B": "1234", "L": "0.056100", "p": "<8116>"}
        line = kinto_server.ACCESS_FORMAT % atoms
        access = procstat.parse_access_line(line)
        self.assertEqual(access, procstat.Access(1796135738.927, "reader-0001", "POST", "/v1/batch", 200, 0.0561, 8116))
        self.assertIsNone(procstat.parse_access_line("1796135738.9 reader GET /v1/ 20"))   # cut short
        self.assertIsNone(procstat.parse_access_line("garbage"))

    def test_the_log_is_read_in_whole_lines_from_an_offset(self):
        with tempfile.TemporaryDirectory() as folder:
            path = pathlib.Path(folder) / "access.log"
            first = "1.000 a GET /v1/ 200 10 0.001 <1>\n"
            path.write_text(first + "2.000 b GET /v1/ 200 10 0.001 <2>\n3.0 c GE")
            lines, offset = procstat.read_access_log(path)
            self.assertEqual([a.user for a in lines], ["a", "b"])
            with path.open("a") as handle:
                handle.write("T /v1/ 304 0 0.002 <3>\n")
            more, offset2 = procstat.read_access_log(path, offset)
            self.assertEqual([(a.user, a.status) for a in more], [("c", 304)])
            self.assertEqual(offset2, path.stat().st_size)
            self.assertEqual(procstat.read_access_log(pathlib.Path(folder) / "none"), ([], 0))


# MARK: - Attribution and figures

def run(device="d", user="u", started=100.0, ended=100.2, kind=dv.IDLE, code=0, cpu=0.02, **extra):
    return dv.Run(device=device, user=user, kind=kind, scheduled=0, started=started, ended=ended,
                  exit_code=code, cpu_s=cpu, **extra)


def access(user, end, status=200):
    return procstat.Access(end, user, "POST", "/v1/batch", status, 0.01, 1)


class AttributionTests(unittest.TestCase):
    def test_requests_go_to_the_run_of_their_account_in_flight(self):
        a1, a2, b1 = run("a", "ua", 100, 100.3), run("a", "ua", 110, 110.4), run("b", "ub", 100.1, 100.2)
        totals = dv.attribute([a1, a2, b1], [access("ua", 100.2), access("ua", 100.9), access("ua", 110.1),
                                             access("ub", 100.15, 503), access("ua", 105.0), access("zz", 100.2)])
        self.assertEqual((a1.requests, a2.requests, b1.requests), (2, 1, 1))   # 100.9: within the 1 s slack
        self.assertEqual(b1.statuses, collections.Counter({"503": 1}))
        self.assertEqual(totals, {"unattributed": 2, "ambiguous": 0})

    def test_overlapping_devices_of_one_account_are_counted_as_ambiguous(self):
        first, second = run("h1", "home", 100, 101), run("h2", "home", 100.5, 101.5)
        totals = dv.attribute([first, second], [access("home", 100.2), access("home", 100.8)])
        self.assertEqual((first.requests, second.requests), (1, 1))
        self.assertEqual(totals["ambiguous"], 1)

    def test_shelfs_own_count(self):
        self.assertEqual(dv.parse_shelf_requests(
            "2026-12-01T14:39:26.601Z INFO [default] nothing to do (1 request, 164 ms)\n"), 1)
        self.assertEqual(dv.parse_shelf_requests(
            "… products: pulled 20 records\n… sync finished: synced (8 requests, 241 ms)\n"), 8)
        self.assertIsNone(dv.parse_shelf_requests("error: the server refused the credentials\n"))


class AggregateTests(unittest.TestCase):
    def figures(self, runs, **overrides):
        arguments = dict(devices=3, window_s=10.0, offered=5, skipped=1,
                         server_cpu_s={"kinto": 0.5, "postgresql": 0.25}, harness_cpu_s=0.05,
                         machine_busy_cores=1.2, cpus=2, attribution={"unattributed": 0, "ambiguous": 0})
        arguments.update(overrides)
        return dv.aggregate(runs, **arguments)

    def test_one_windows_figures(self):
        runs = [run(started=0, ended=0.1, requests=1), run(started=0, ended=0.3, requests=1),
                run(started=0, ended=0.2, kind=dv.EDITS, requests=2, edits=2, edits_cpu_s=0.05),
                run(started=0, ended=2.0, kind=dv.FIRST, code=75, requests=8, error="server busy",
                    statuses=collections.Counter({"200": 7, "503": 1}))]
        f = self.figures(runs)
        self.assertEqual(f["runs_done"], 4)
        self.assertEqual(f["wall_ms"]["p50"], 250.0)
        self.assertEqual(f["requests_per_run"], 3.0)
        self.assertEqual(f["exit_codes"], {"0": 3, "75": 1})
        self.assertEqual(f["http_errors"], 1)
        self.assertEqual(f["failed_runs"], 1)
        self.assertIn("server busy", f["errors"][0])
        self.assertEqual(f["by_kind"][dv.IDLE]["runs"], 2)
        self.assertEqual(f["by_kind"][dv.FIRST]["requests"]["mean"], 8)
        cpu = f["cpu"]
        self.assertEqual(cpu["kinto_ms_per_run"], 125.0)
        self.assertEqual(cpu["postgresql_ms_per_run"], 62.5)
        self.assertEqual(cpu["server_ms_per_run"], 187.5)
        self.assertEqual(cpu["client_ms_per_run"], 20.0)
        self.assertEqual(cpu["kinto_cores"], 0.05)
        self.assertEqual(cpu["ours_cores"], round((0.75 + 0.08 + 0.05 + 0.05) / 10, 3))
        self.assertEqual((f["runs_per_s"], f["offered_per_s"]), (0.4, 0.5))
        # Ticks spread over a 5 s schedule, runs done (and CPU counted) over 10 s with the drain.
        self.assertEqual(self.figures(runs, schedule_s=5.0)["offered_per_s"], 1.0)

    def test_no_runs_gives_no_per_run_figures(self):
        f = self.figures([])
        self.assertIsNone(f["wall_ms"])
        self.assertIsNone(f["cpu"]["kinto_ms_per_run"])
        self.assertIsNone(f["requests_per_run"])

    def size(self, devices, p99, ours, machine=None, offered=100, skipped=0, done=None):
        return {"devices": devices, "wall_ms": {"p99": p99}, "ticks_offered": offered, "ticks_skipped": skipped,
                "runs_done": offered - skipped if done is None else done,
                "cpu": {"cpus": 2, "ours_cores": ours, "machine_busy_cores": machine if machine is not None else ours}}

    def test_saturation_names_the_first_count_and_why(self):
        verdict = dv.saturation([self.size(200, 3000, 1.95, skipped=30), self.size(10, 400, 0.2),
                                 self.size(50, 700, 0.9, machine=1.9)])
        self.assertEqual(verdict["at_devices"], 200)
        self.assertEqual(len(verdict["signs"]["200"]), 3)       # cores, skipped ticks, p99
        self.assertNotIn("50", verdict["signs"])                 # the machine was busy with other work
        self.assertIn("1.00 of them other work", verdict["machine_busy"]["50"])

    def test_no_saturation(self):
        verdict = dv.saturation([self.size(10, 400, 0.2), self.size(50, 500, 0.8)])
        self.assertIsNone(verdict["at_devices"])
        self.assertEqual(dv.saturation([]), {"at_devices": None, "signs": {}, "machine_busy": {}})

    def test_runs_behind_without_skips(self):
        verdict = dv.saturation([self.size(10, 400, 0.2), self.size(50, 500, 0.5, offered=100, done=80)])
        self.assertEqual(verdict["at_devices"], 50)
        self.assertIn("only 80 of 100 runs done", verdict["signs"]["50"][0])


# MARK: - Plot

class PlotTests(unittest.TestCase):
    def test_four_panels_against_devices(self):
        sizes = []
        for devices, per_run, p99, busy in ((10, 80.0, 400.0, 0.3), (50, 85.0, 600.0, 1.2), (200, 90.0, 4000.0, 2.0)):
            f = AggregateTests().size(devices, p99, busy)
            f.update({"wall_ms": {"p50": p99 / 2, "p99": p99}, "by_kind": {dv.IDLE: {"wall_ms": {"p99": p99}}},
                      "offered_per_s": devices / 10, "runs_per_s": min(devices / 10, 12.0)})
            f["cpu"].update({"kinto_ms_per_run": per_run, "postgresql_ms_per_run": per_run / 3,
                             "client_ms_per_run": 25.0, "kinto_cores": busy / 2, "postgresql_cores": busy / 6,
                             "client_cores": busy / 4})
            sizes.append(f)
        text = dv.plot(sizes, "devices <test>")
        root = ET.fromstring(text.split("?>", 1)[1])
        titles = [t.text for t in root.iter(f"{SVG}text") if t.get("font-weight") == "bold"]
        self.assertEqual(titles, ["CPU per sync run", "sync run wall time", "cores busy during the window (of 2)",
                                  "sync runs per second"])
        lines = {p.get("data-name"): p.get("points") for p in root.iter(f"{SVG}polyline")}
        self.assertIn("Kinto (gunicorn)", lines)
        self.assertIn("this benchmark", lines)
        self.assertTrue(all(len(name) < 18 for name in lines), list(lines))
        self.assertEqual(len(lines["p99"].split()), 3)
        labels = [t.text for t in root.iter(f"{SVG}text")]
        self.assertIn("simulated devices (log scale)", labels)
        self.assertIn("devices <test>", labels)

    def test_before_and_after_side_by_side(self):
        def run(per_run):
            sizes = []
            for devices, busy in ((10, 0.3), (50, 1.2)):
                f = AggregateTests().size(devices, 500.0, busy)
                f.update({"wall_ms": {"p99": 500.0}, "offered_per_s": devices / 10, "runs_per_s": devices / 12})
                f["cpu"].update({"kinto_ms_per_run": per_run, "postgresql_ms_per_run": per_run / 3, "ours_cores": busy / 2})
                sizes.append(f)
            return sizes
        root = ET.fromstring(dv.compare_plot(run(90.0), run(60.0), "before/after").split("?>", 1)[1])
        titles = [t.text for t in root.iter(f"{SVG}text") if t.get("font-weight") == "bold"]
        self.assertEqual(len(titles), 4)
        names = [p.get("data-name") for p in root.iter(f"{SVG}polyline")]
        self.assertEqual(names.count("before"), 4)
        self.assertEqual(names.count("after"), 4)
        self.assertIn("scheduled", names)

    def test_the_scale_plots_axis_label_is_unchanged(self):
        text = svg_plot.figure("t", [svg_plot.Panel("p", "s", [svg_plot.Series("a", [(1e4, 1.0), (1e5, 2.0)])])])
        self.assertIn(">records (log scale)<", text)


# MARK: - The launcher and the push summary

class LauncherTests(unittest.TestCase):
    def test_gunicorn_serves_kinto_with_workers_and_threads_on_loopback(self):
        argv = kinto_server.gunicorn_command(pathlib.Path("/x/kinto.ini"), 8123, 4, 2, pathlib.Path("/x/a.log"))
        self.assertTrue(argv[0].endswith("/gunicorn"))
        joined = " ".join(argv)
        for part in ("--bind 127.0.0.1:8123", "--workers 4", "--threads 2", "--worker-class gthread",
                     "--no-control-socket", "--access-logfile /x/a.log", "gunicorn_access.EpochLogger"):
            self.assertIn(part, joined)
        self.assertNotIn("--preload", argv)
        self.assertEqual(argv[-1], "kinto_wsgi:application")

    def test_every_backend_is_on_postgresql_and_the_pool_covers_the_threads(self):
        with tempfile.TemporaryDirectory() as folder:
            ini = pathlib.Path(folder) / "kinto.ini"
            kinto_server.write_ini(ini, "postgresql://postgres@127.0.0.1:5/kinto", threads=16)
            text = ini.read_text()
            self.assertIn("kinto.cache_backend = kinto.core.cache.postgresql", text)
            self.assertIn("kinto.storage_pool_size = 16", text)
            self.assertTrue(kinto_server.cache_is_shared(ini))
            ini.write_text(text.replace("kinto.core.cache.postgresql", "kinto.core.cache.memory"))
            self.assertFalse(kinto_server.cache_is_shared(ini))

    def test_push_summary_gives_the_ratio_requests_and_verdict(self):
        def row(wall, requests, batches):
            return {"summary": {"wall_s": {"median": wall, "min": wall, "max": wall, "n": 1}},
                    "samples": [{"exit_code": 0, "requests": requests, "batch_requests": batches, "server_cpu_s": 9.5}]}
        results = {"meta": {"kinto_server": {"description": "gunicorn, 4 workers × 2 threads"}}, "scenarios": [
            {"scenario": "push", "records": 1000, "layout": "books",
             "contenders": {"peer": row(16.0, 41, 40), "shelf": row(15.2, 49, 40)}},
            {"scenario": "push_spread_1000", "records": 1000, "layout": "spread",
             "contenders": {"peer": row(18.0, 41, 40), "shelf": row(8.0, 50, 40)}},
            {"scenario": "push_books_10000", "records": 10000, "layout": "books",
             "contenders": {"peer": row(150.0, 401, 400), "shelf": {"skipped": "no shelf-sync"}}}]}
        lines = report.push_summary(results)
        self.assertIn("push 1,000 edits into books (gunicorn, 4 workers × 2 threads): Shelf 15.20 s, "
                      "kinto-http 16.00 s = 0.95× wall; requests Shelf 49 (40 POST /v1/batch), "
                      "kinto-http 41 (40 POST /v1/batch)", lines[0])
        self.assertTrue(lines[0].endswith("MISSED"))
        self.assertIn("across 4 collections", lines[1])
        self.assertTrue(lines[1].endswith("target ≤ 0.5×: MET"))
        self.assertIn("not compared (no shelf-sync)", lines[2])


class EnrolmentTests(unittest.TestCase):
    class FakeAPI:
        """Answers each batch with the next list of statuses, and keeps what was asked."""

        def __init__(self, answers):
            self.account = Account("reader-0001", "pw")
            self.answers = list(answers)
            self.asked = []

        def json(self, method, path, body):
            self.asked.append([r["path"].rsplit("/", 1)[1] for r in body["requests"]])
            return {"responses": [{"status": s} for s in self.answers.pop(0)]}

    def test_only_the_sub_requests_answered_409_are_sent_again(self):
        api = self.FakeAPI([[201, 409, 201, 409, 201, 201], [201, 412]])
        bench_devices.enrol_one(api)
        self.assertEqual(api.asked, [list(bench_devices.READER_COLLECTIONS), ["notes", "cart"]])

    def test_other_failures_and_endless_conflicts_stop_the_run(self):
        self.assertRaises(RuntimeError, bench_devices.enrol_one, self.FakeAPI([[201, 403, 201, 201, 201, 201]]))
        self.assertRaises(RuntimeError, bench_devices.enrol_one, self.FakeAPI([[409] * 6] * 2), attempts=2)


# MARK: - The engine, with shell scripts in place of Shelf

class EngineTests(unittest.TestCase):
    def setUp(self):
        self.folder = tempfile.TemporaryDirectory()
        root = pathlib.Path(self.folder.name)
        # A stand-in shelf-sync: sleeps $SLEEP seconds, logs as shelf-sync does, exits $CODE.
        sync = root / "shelf-sync"
        sync.write_text('#!/bin/sh\nsleep "${SLEEP:-0}"\n'
                        'echo "INFO [default] nothing to do (1 request, 5 ms)" >&2\nexit "${CODE:-0}"\n')
        shelf = root / "shelf"
        shelf.write_text('#!/bin/sh\necho "$@" >> "$HOME/edits"\n')
        for path in (sync, shelf):
            path.chmod(path.stat().st_mode | stat.S_IXUSR)
        self.root = root
        self.config = bench_devices.Config(sizes=[1], workers=1, threads=1, window_s=2, period_s=1, jitter_s=0,
                                           edit_share=0, shared=0, joins_per=50, library=10, drain_s=1,
                                           shelf_sync=sync, shelf=shelf, results_dir=root, seed=1)

    def tearDown(self):
        self.folder.cleanup()

    def home(self, name, **env):
        folder = self.root / name
        folder.mkdir()
        return bench_devices.DeviceHome(dv.Device(name, name), Account(name, "pw"),
                                        {"PATH": "/usr/bin:/bin", "HOME": str(folder), **env}, folder / "sync.log")

    def test_runs_skips_exit_codes_and_edits(self):
        homes = {"slow": self.home("slow", SLEEP="0.7"), "bad": self.home("bad", CODE="75"),
                 "editor": self.home("editor")}
        ticks = [dv.Tick(0.0, "slow", dv.IDLE), dv.Tick(0.3, "slow", dv.IDLE),    # still busy: skipped
                 dv.Tick(0.0, "bad", dv.IDLE), dv.Tick(0.1, "editor", dv.EDITS, 3), dv.Tick(5.0, "slow", dv.IDLE)]
        runs, skipped = bench_devices.Engine(homes, self.config).run(ticks, until_s=2, drain_s=2)
        self.assertEqual(skipped, 1)
        by_device = {r.device: r for r in runs}
        self.assertEqual(set(by_device), {"slow", "bad", "editor"})   # the tick at 5 s is past the window
        self.assertEqual(by_device["bad"].exit_code, 75)
        self.assertEqual(by_device["slow"].exit_code, 0)
        self.assertGreaterEqual(by_device["slow"].wall_s, 0.6)
        self.assertEqual(by_device["slow"].shelf_requests, 1)
        editor = by_device["editor"]
        self.assertEqual(editor.edits, 3)
        self.assertGreater(editor.edits_s, 0)
        edits = (self.root / "editor" / "edits").read_text().splitlines()
        self.assertEqual([line.split()[1:3] for line in edits], [["book", "add"], ["task", "add"], ["book", "add"]])
        self.assertEqual(editor.started < editor.ended, True)

    def test_a_run_past_the_drain_is_killed_and_failed(self):
        homes = {"stuck": self.home("stuck", SLEEP="30")}
        started = time.monotonic()
        runs, _ = bench_devices.Engine(homes, self.config).run([dv.Tick(0.0, "stuck", dv.IDLE)], until_s=0.5, drain_s=0.5)
        self.assertLess(time.monotonic() - started, 5)
        self.assertEqual([(r.exit_code, r.error) for r in runs], [(-9, "still running when the window and its drain ended")])

    def test_priming_waits_for_a_free_slot_instead_of_skipping(self):
        homes = {f"d{i}": self.home(f"d{i}", SLEEP="0.2") for i in range(6)}
        ticks = [dv.Tick(0.0, name, dv.FIRST) for name in homes]
        runs, skipped = bench_devices.Engine(homes, self.config).run(ticks, until_s=1, drain_s=10, max_in_flight=2)
        self.assertEqual((len(runs), skipped), (6, 0))
        starts = sorted(r.started for r in runs)
        self.assertGreater(starts[2] - starts[0], 0.15)       # the third waited for one of the first two


if __name__ == "__main__":
    unittest.main()
