"""The fault proxy does what it says: each action, against a counting upstream.

Run: python3 -m unittest discover -s Tests/FaultHarness -p 'test_*.py'
"""
import http.client
import http.server
import json
import pathlib
import socket
import subprocess
import sys
import threading
import time
import unittest

PROXY = pathlib.Path(__file__).resolve().parent / "fault_proxy.py"


class CountingUpstream(http.server.ThreadingHTTPServer):
    """Answers every request with its sequence number; remembers what it applied."""

    def __init__(self):
        super().__init__(("127.0.0.1", 0), CountingHandler)
        self.applied = []


class CountingHandler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def answer(self):
        length = int(self.headers.get("Content-Length", 0))
        body = self.rfile.read(length) if length else b""
        self.server.applied.append((self.command, self.path, body))
        payload = json.dumps({"n": len(self.server.applied), "padding": "x" * 200}).encode()
        self.send_response(201 if self.command == "POST" else 200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    do_GET = do_POST = do_PUT = do_DELETE = answer


def start_proxy(test, upstream):
    """Serves `upstream` on a thread and starts the proxy in front of it (its port in `test.port`)."""
    test.upstream = upstream
    threading.Thread(target=upstream.serve_forever, daemon=True).start()
    test.proxy = subprocess.Popen(
        [sys.executable, str(PROXY), "--upstream", f"http://127.0.0.1:{upstream.server_address[1]}"],
        stdout=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True)
    line = test.proxy.stdout.readline()
    test.assertTrue(line.startswith("ready "), line)
    test.port = int(line.split()[1])


class FaultProxyTests(unittest.TestCase):
    def setUp(self):
        start_proxy(self, CountingUpstream())

    def tearDown(self):
        self.proxy.terminate()
        self.proxy.wait(timeout=10)
        self.proxy.stdout.close()
        self.upstream.shutdown()
        self.upstream.server_close()

    def connection(self, timeout=5):
        return http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)

    def control(self, path, body=None):
        c = self.connection()
        c.request("POST" if body is not None else "GET", "/__faults__/" + path,
                  body=json.dumps(body).encode() if body is not None else None)
        reply = c.getresponse()
        payload = json.loads(reply.read())
        self.assertEqual(reply.status, 200, payload)
        return payload

    def test_forwards_and_keeps_the_connection_alive(self):
        c = self.connection()
        for n in (1, 2, 3):
            c.request("POST", "/v1/batch", body=b'{"a":1}')
            reply = c.getresponse()
            self.assertEqual(reply.status, 201)
            self.assertEqual(json.loads(reply.read())["n"], n)
        self.assertEqual([a[2] for a in self.upstream.applied], [b'{"a":1}'] * 3)

    def test_lose_reply_applies_the_request_and_answers_nothing(self):
        self.control("rules", {"rules": [{"action": "lose_reply", "method": "POST", "path": "/v1/batch"}]})
        c = self.connection()
        c.request("POST", "/v1/batch?x=1", body=b"change")
        with self.assertRaises((http.client.RemoteDisconnected, ConnectionError)):
            c.getresponse()
        self.assertEqual(self.upstream.applied, [("POST", "/v1/batch?x=1", b"change")])
        # count 1: the next one goes through
        c = self.connection()
        c.request("POST", "/v1/batch", body=b"again")
        self.assertEqual(c.getresponse().status, 201)
        log = self.control("log")
        self.assertEqual([(e["action"], e["query"]) for e in log], [("lose_reply", "x=1"), ("forward", "")])

    def test_cut_reply_sends_half_the_body(self):
        self.control("rules", {"rules": [{"action": "cut_reply"}]})
        c = self.connection()
        c.request("GET", "/v1/")
        reply = c.getresponse()
        with self.assertRaises(http.client.IncompleteRead):
            reply.read()
        self.assertEqual(len(self.upstream.applied), 1)

    def test_reset_never_reaches_the_server(self):
        self.control("rules", {"rules": [{"action": "reset", "body_contains": "secret-id"}]})
        c = self.connection()
        c.request("PUT", "/v1/r", body=b"other")
        reply = c.getresponse()
        reply.read()
        self.assertEqual(reply.status, 200)
        c.request("PUT", "/v1/r", body=b"with secret-id inside")
        with self.assertRaises((ConnectionError, http.client.RemoteDisconnected)):
            c.getresponse()
        self.assertEqual([a[2] for a in self.upstream.applied], [b"other"])

    def test_skip_lets_requests_through_first(self):
        self.control("rules", {"rules": [{"action": "status", "code": 503, "headers": {"Retry-After": "3"},
                                          "body": "{}", "skip": 2, "count": -1}]})
        statuses = []
        for _ in range(4):
            c = self.connection()
            c.request("GET", "/v1/")
            reply = c.getresponse()
            reply.read()
            statuses.append((reply.status, reply.getheader("Retry-After")))
        self.assertEqual(statuses, [(200, None), (200, None), (503, "3"), (503, "3")])

    def test_hang_holds_until_the_client_gives_up(self):
        self.control("rules", {"rules": [{"action": "hang", "seconds": 30}]})
        c = self.connection(timeout=0.5)
        started = time.monotonic()
        c.request("GET", "/v1/")
        with self.assertRaises(socket.timeout):
            c.getresponse()
        self.assertLess(time.monotonic() - started, 5)
        self.assertEqual(self.upstream.applied, [])

    def test_latency_and_random_faults_are_reproducible(self):
        self.control("config", {"latency_ms": 50})
        c = self.connection()
        started = time.monotonic()
        c.request("GET", "/v1/")
        c.getresponse().read()
        self.assertGreaterEqual(time.monotonic() - started, 0.05)

        def run(seed):
            self.control("clear", {})
            self.control("random", {"seed": seed, "lose_reply": 0.5, "methods": ["POST"]})
            outcome = []
            for _ in range(12):
                c = self.connection()
                c.request("POST", "/v1/batch", body=b"x")
                try:
                    c.getresponse().read()
                    outcome.append("ok")
                except (http.client.RemoteDisconnected, ConnectionError):
                    outcome.append("lost")
            return outcome

        first, second = run(11), run(11)
        self.assertEqual(first, second)
        self.assertIn("lost", first)
        self.assertIn("ok", first)
        stats = self.control("stats")
        self.assertEqual(stats["actions"]["lose_reply"], 2 * first.count("lost"))

    def test_refuses_a_rule_without_a_known_action(self):
        c = self.connection()
        c.request("POST", "/__faults__/rules", body=json.dumps({"rules": [{"action": "explode"}]}).encode())
        reply = c.getresponse()
        self.assertEqual(reply.status, 400)
        self.assertIn("explode", reply.read().decode())


if __name__ == "__main__":
    unittest.main()


# MARK: - Records hidden from pulls

def records(stamped):
    """Three records (one a tombstone) stamped from `stamped` on (ms since 1970), as Kinto would."""
    return [{"id": "a", "last_modified": stamped + 1}, {"id": "b", "last_modified": stamped + 2},
            {"id": "c", "last_modified": stamped + 3, "deleted": True}]


class RecordsHandler(http.server.BaseHTTPRequestHandler):
    """Every list is the same three records (one a tombstone); a batch answers each sub-request so."""
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def reply(self, payload):
        body = json.dumps(payload).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        self.reply({"data": records(self.server.stamped)})

    def do_POST(self):
        requests = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))["requests"]
        self.reply({"responses": [{"status": 200, "path": "/v1" + r["path"], "headers": {}, "body": {"data": records(self.server.stamped)}}
                                  for r in requests]})


class HidingTests(unittest.TestCase):
    tearDown = FaultProxyTests.tearDown
    connection = FaultProxyTests.connection
    control = FaultProxyTests.control

    def setUp(self):
        upstream = http.server.ThreadingHTTPServer(("127.0.0.1", 0), RecordsHandler)
        upstream.stamped = int(time.time() * 1000)
        start_proxy(self, upstream)

    def get(self, target):
        c = self.connection()
        c.request("GET", target)
        return [r["id"] for r in json.loads(c.getresponse().read())["data"]]

    def batch(self, *paths):
        c = self.connection()
        c.request("POST", "/v1/batch", body=json.dumps({"requests": [{"method": "GET", "path": p} for p in paths]}).encode())
        return [[r["id"] for r in response["body"]["data"]] for response in json.loads(c.getresponse().read())["responses"]]

    def test_hidden_versions_leave_every_pull_and_only_pulls(self):
        records = "/v1/buckets/default/collections/books/records"
        self.control("hide", {"seed": 1, "probability": 1, "seconds": 60})
        self.assertEqual(self.get(records + "?_since=0&_sort=last_modified"), [])
        self.assertEqual(self.get(records + "?_since=0&_fields=id,last_modified,deleted"), ["a", "b", "c"])
        self.assertEqual(self.get(records + "?_since=0&in_id=a,b"), ["a", "b", "c"])
        self.assertEqual(self.batch("/buckets/default/collections/books/records?_since=0",
                                    "/buckets/default/collections/books/records?_fields=id,last_modified"),
                         [[], ["a", "b", "c"]])
        self.assertEqual(self.control("stats")["hidden"], 3, "a version is one, through a batch or not")
        self.control("clear", {})
        self.assertEqual(self.get(records), [], "clear leaves the hidden versions hidden")
        self.control("hide", {"probability": 0})
        self.assertEqual(self.get(records), ["a", "b", "c"])

    def test_a_version_is_drawn_once_and_stays_hidden(self):
        records = "/v1/buckets/default/collections/books/records"
        self.control("hide", {"seed": 4, "probability": 0.5, "seconds": 60})
        first = self.get(records)
        for _ in range(5):
            self.assertEqual(self.get(records), first)
            self.assertEqual(self.batch("/buckets/default/collections/books/records"), [first])
        self.assertEqual(self.control("stats")["hidden"], 3 - len(first))

    def test_a_hidden_version_commits_its_seconds_after_its_stamp(self):
        records = "/v1/buckets/default/collections/books/records"
        self.control("hide", {"seed": 1, "probability": 1, "seconds": 1.5})
        self.assertEqual(self.get(records), [])
        time.sleep(max(0, (self.upstream.stamped + 3) / 1000 + 1.6 - time.time()))
        self.assertEqual(self.get(records), ["a", "b", "c"])
        self.assertEqual(self.control("stats")["hidden"], 3, "still counted as hidden once")
