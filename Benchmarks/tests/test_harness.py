"""Tests of the benchmark harness itself: the proxy, the measurements, the plumbing.

    make bench-test      (or: .venv/bin/python -m unittest discover -s Benchmarks/tests)

The end-to-end tests start the real harness (PostgreSQL + Kinto) with a stand-in
Shelf (tests/fake_shelf.py) and check that every scenario produced figures, and that
nothing is left running after a normal end, a Ctrl-C, or a SIGKILL followed by the
next run's sweep.
"""
from __future__ import annotations

import http.client
import http.server
import json
import os
import pathlib
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import unittest

HERE = pathlib.Path(__file__).resolve().parent
BENCH = HERE.parent
ROOT = BENCH.parent
sys.path.insert(0, str(BENCH))

import curl_floor  # noqa: E402
import measure  # noqa: E402
from proxy import CountingProxy  # noqa: E402
from scenarios import parse_throughput, rotate  # noqa: E402
from workspace import sweep_abandoned  # noqa: E402

BIG = os.urandom(3_000_000)


# MARK: - Proxy

class Upstream(http.server.BaseHTTPRequestHandler):
    """Records every request it receives; serves fixed answers by path."""

    protocol_version = "HTTP/1.1"
    received: list = []

    def log_message(self, *args):
        pass

    def _answer(self):
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        Upstream.received.append((self.command, self.path, body))
        if self.path == "/big":
            self._send(200, BIG)
        elif self.path == "/chunked":
            self.send_response(200)
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            for part in (BIG[:100_000], BIG[100_000:]):
                self.wfile.write(b"%x\r\n%s\r\n" % (len(part), part))
            self.wfile.write(b"0\r\n\r\n")
        elif self.path == "/not-modified":
            self.send_response(304)
            self.send_header("ETag", '"1"')
            self.end_headers()
        else:
            self._send(200, json.dumps({"echo": len(body)}).encode(), headers={"Next-Page": "http://x/next"})

    def _send(self, status, body, headers=None):
        self.send_response(status)
        self.send_header("Content-Length", str(len(body)))
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    do_GET = do_POST = do_PUT = do_HEAD = _answer


class ProxyTests(unittest.TestCase):
    def setUp(self):
        Upstream.received = []
        self.upstream = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Upstream)
        threading.Thread(target=self.upstream.serve_forever, daemon=True).start()
        self.proxy = CountingProxy("127.0.0.1", self.upstream.server_address[1])
        self.proxy.start()
        self.client = http.client.HTTPConnection("127.0.0.1", self.proxy.port, timeout=10)

    def tearDown(self):
        self.client.close()
        self.proxy.stop()
        self.upstream.shutdown()
        self.upstream.server_close()

    def request(self, method, path, body=None):
        self.client.request(method, path, body=body)
        response = self.client.getresponse()
        return response, response.read()

    def test_writes_on_a_kept_alive_connection_reach_the_server_exactly_once(self):
        for index in range(5):
            response, body = self.request("POST", "/v1/batch", body=b"x" * (index + 1) * 1000)
            self.assertEqual(response.status, 200)
            self.assertEqual(json.loads(body), {"echo": (index + 1) * 1000})
        self.assertEqual([m for m, _, _ in Upstream.received], ["POST"] * 5)
        traffic = self.proxy.traffic.take()
        self.assertEqual(len(traffic), 5)
        self.assertEqual(sum(e["bytes_up"] for e in traffic) > 15_000, True)

    def test_large_and_chunked_bodies_arrive_intact_and_are_counted(self):
        _, big = self.request("GET", "/big")
        _, chunked = self.request("GET", "/chunked")
        self.assertEqual(big, BIG)
        self.assertEqual(chunked, BIG)
        summary = self.proxy.traffic.summary(self.proxy.traffic.take())
        self.assertEqual(summary["requests"], 2)
        self.assertGreater(summary["bytes_down"], 2 * len(BIG))
        self.assertLess(summary["bytes_down"], 2 * len(BIG) + 2000)

    def test_head_and_304_carry_no_body_and_the_connection_goes_on(self):
        head, body = self.request("HEAD", "/big")
        self.assertEqual((head.status, body), (200, b""))
        not_modified, body = self.request("GET", "/not-modified")
        self.assertEqual((not_modified.status, body), (304, b""))
        after, body = self.request("GET", "/plain")
        self.assertEqual(after.status, 200)
        self.assertEqual(after.getheader("Next-Page"), "http://x/next")
        summary = self.proxy.traffic.summary(self.proxy.traffic.take())
        self.assertEqual(summary["statuses"], {"200": 2, "304": 1})


# MARK: - Measurement

@unittest.skipUnless(measure.has_gnu_time(), "GNU time is not installed (make bench-setup)")
class MeasureTests(unittest.TestCase):
    def test_peak_rss_is_the_clients_not_the_harness_size(self):
        ballast = bytearray(300 * 1024 * 1024)
        for index in range(0, len(ballast), 4096):
            ballast[index] = 1
        small = measure.run_measured(["/bin/true"])
        self.assertLess(small.maxrss_kb, 20 * 1024)
        big = measure.run_measured([sys.executable, "-c",
                                    "b = bytearray(120 * 1024 * 1024)\nfor i in range(0, len(b), 4096): b[i] = 1"])
        self.assertGreater(big.maxrss_kb, 120 * 1024)
        del ballast

    def test_cpu_time_is_the_clients(self):
        busy = measure.run_measured([sys.executable, "-c", "import time\nt = time.process_time()\n"
                                     "while time.process_time() - t < 0.3: pass"])
        self.assertGreater(busy.cpu_s, 0.28)
        self.assertLess(busy.cpu_s, 0.6)

    def test_exit_codes_and_timeouts(self):
        self.assertEqual(measure.run_measured(["sh", "-c", "exit 3"]).exit_code, 3)
        slow = measure.run_measured(["sleep", "10"], timeout=0.5)
        self.assertTrue(slow.timed_out)
        self.assertFalse(slow.ok)
        self.assertLess(slow.wall_s, 5)

    def test_summaries_leave_failed_runs_out(self):
        good = measure.Sample(1.0, 0.5, 0.1, 1000, 0)
        bad = measure.Sample(9.0, 9.0, 9.0, 9000, 1)
        summary = measure.summarize([good, bad, measure.Sample(3.0, 0.5, 0.1, 3000, 0)])
        self.assertEqual((summary["runs"], summary["failed"]), (3, 1))
        self.assertEqual(summary["wall_s"], {"median": 2.0, "min": 1.0, "max": 3.0, "n": 2})


# MARK: - Parsing

class ParsingTests(unittest.TestCase):
    def test_throughput_headline_is_the_last_line(self):
        text = "records: 10000\njson.loads only: 270.5 MB/s\nbytes to stored records: 57.25 MB/s\n"
        self.assertEqual(parse_throughput(text), [("json.loads only", 270.5), ("bytes to stored records", 57.25)])
        self.assertEqual(parse_throughput("88 MB/s"), [("throughput", 88.0)])
        with self.assertRaises(ValueError):
            parse_throughput("fast\n")

    def test_next_page_header(self):
        headers = "HTTP/1.1 200 OK\r\nEtag: \"1\"\r\nNext-Page: http://h/v1/x?_token=a\r\n\r\n"
        self.assertEqual(curl_floor.next_page(headers), "http://h/v1/x?_token=a")
        self.assertIsNone(curl_floor.next_page("HTTP/1.1 200 OK\r\n\r\n"))

    def test_runs_alternate_the_order(self):
        self.assertEqual([rotate(["a", "b", "c"], r) for r in range(4)],
                         [["a", "b", "c"], ["b", "c", "a"], ["c", "a", "b"], ["a", "b", "c"]])


# MARK: - End to end

def leftovers(workspace: str) -> list[str]:
    """Processes whose command line mentions the workspace (postgres, kinto)."""
    found = []
    for proc in pathlib.Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            cmdline = (proc / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if workspace in cmdline:
            found.append(f"{proc.name}: {cmdline[:120]}")
    return found


@unittest.skipUnless(shutil.which("curl") and pathlib.Path(ROOT / ".venv" / "bin" / "kinto").exists()
                     and list(pathlib.Path("/usr/lib/postgresql").glob("*/bin/initdb")),
                     "needs make bench-setup (PostgreSQL, Kinto in .venv, curl)")
class EndToEndTests(unittest.TestCase):
    def setUp(self):
        self.tmp = pathlib.Path(tempfile.mkdtemp(prefix="bench-test-"))
        for name in ("shelf-sync", "shelf", "shelf-bench-local-edits"):
            (self.tmp / name).symlink_to(HERE / "fake_shelf.py")
        self.results = self.tmp / "results"

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def harness(self, *extra: str) -> subprocess.Popen:
        argv = [sys.executable, str(BENCH / "bench.py"), "--quick", "--runs", "1",
                "--shelf-sync", str(self.tmp / "shelf-sync"), "--shelf", str(self.tmp / "shelf"),
                "--shelf-edits", str(self.tmp / "shelf-bench-local-edits"),
                "--swift-json", str(BENCH / "json_throughput.py"), "--results", str(self.results),
                "--push-records", "30", "--no-guard", *extra]
        return subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                start_new_session=True)

    def wait_for_line(self, proc: subprocess.Popen, pattern: str, seen: list) -> re.Match:
        for line in proc.stderr:
            seen.append(line)
            match = re.search(pattern, line)
            if match:
                return match
        self.fail("harness ended before printing " + pattern + ":\n" + "".join(seen[-20:]))

    def test_a_quick_run_measures_every_scenario_and_leaves_nothing_behind(self):
        proc = self.harness()
        seen = []
        workspace = self.wait_for_line(proc, r"workspace (\S+)", seen).group(1)
        out, err = proc.communicate(timeout=600)
        self.assertEqual(proc.returncode, 0, "".join(seen) + err)
        results = json.loads((self.results / "latest.json").read_text())
        by_id = {e["scenario"]: e for e in results["scenarios"]}
        # NB: only a push of 1,000 books is called "push"; this one pushes 30.
        by_id["push"] = by_id["push_books_30"]
        for scenario in ("first_sync", "no_change", "delta", "push"):
            for name in ("peer", "shelf"):
                row = by_id[scenario]["contenders"][name]
                self.assertEqual(row["summary"]["failed"], 0, (scenario, name, row.get("errors")))
        self.assertEqual(by_id["first_sync"]["contenders"]["curl"]["summary"]["failed"], 0)
        self.assertEqual(by_id["first_sync"]["checks"]["shelf_books"]["books"], 20_000)
        self.assertEqual(by_id["no_change"]["contenders"]["peer"]["summary"]["requests"]["median"], 5)
        self.assertEqual(by_id["push"]["contenders"]["peer"]["summary"]["requests"]["median"], 1 + 2)
        self.assertIn("mb_per_s", by_id["json"]["contenders"]["swift"])
        self.assertEqual(len([k for k in by_id["local_reads"]["contenders"] if "summary" in by_id["local_reads"]["contenders"][k]]), 3)
        self.assertIn("first sync 20k", out)
        self.assertEqual(leftovers(workspace), [])
        self.assertFalse(pathlib.Path(workspace).exists())

    def test_ctrl_c_stops_the_servers_and_removes_the_workspace(self):
        proc = self.harness()
        seen = []
        workspace = self.wait_for_line(proc, r"workspace (\S+)", seen).group(1)
        self.wait_for_line(proc, r"first sync 20000 #1", seen)
        self.assertNotEqual(leftovers(workspace), [])
        os.killpg(proc.pid, signal.SIGINT)  # what a terminal's Ctrl-C does
        proc.communicate(timeout=120)
        self.assertEqual(proc.returncode, 130)
        self.assertEqual(leftovers(workspace), [])
        self.assertFalse(pathlib.Path(workspace).exists())

    def test_the_next_run_sweeps_what_a_killed_run_left(self):
        proc = self.harness()
        seen = []
        workspace = self.wait_for_line(proc, r"workspace (\S+)", seen).group(1)
        self.wait_for_line(proc, r"seeded \d+ books", seen)
        os.kill(proc.pid, signal.SIGKILL)
        proc.communicate(timeout=30)
        self.assertNotEqual(leftovers(workspace), [])
        sweep_abandoned(log=lambda message: None)
        deadline = time.monotonic() + 10
        while leftovers(workspace) and time.monotonic() < deadline:
            time.sleep(0.1)
        self.assertEqual(leftovers(workspace), [])
        self.assertFalse(pathlib.Path(workspace).exists())


if __name__ == "__main__":
    unittest.main()
