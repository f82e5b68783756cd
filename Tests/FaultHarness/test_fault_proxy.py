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


class FaultProxyTests(unittest.TestCase):
    def setUp(self):
        self.upstream = CountingUpstream()
        threading.Thread(target=self.upstream.serve_forever, daemon=True).start()
        self.proxy = subprocess.Popen(
            [sys.executable, str(PROXY), "--upstream", f"http://127.0.0.1:{self.upstream.server_address[1]}"],
            stdout=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True)
        line = self.proxy.stdout.readline()
        self.assertTrue(line.startswith("ready "), line)
        self.port = int(line.split()[1])

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
