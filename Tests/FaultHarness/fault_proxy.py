#!/usr/bin/env python3
"""A fault-injecting HTTP proxy in front of a real Kinto, for Shelf's convergence tests.

Shelf must converge when the network misbehaves in the ways that matter for sync: a
reply lost *after* the server applied the request, a reply cut in the middle, a
connection reset before the server saw anything, a server that never answers, a slow
link. This proxy sits between Shelf and Kinto and does exactly those things, on
demand (rules) or at random (reproducible from a seed).

Start:
    python3 fault_proxy.py --upstream http://127.0.0.1:KINTO_PORT [--port 0]

The first line on stdout is `ready <port>`. The proxy stops on SIGTERM or SIGINT, and
when its parent process dies (even by SIGKILL), so a crashed test never leaves it
behind. It uses the Python standard library only.

Every request is read whole (`Expect: 100-continue` answered), forwarded whole over a
keep-alive connection of its own to the upstream, and the upstream's reply read whole
before the chosen action decides what the client gets. Only loopback upstreams are
accepted.

Control, on the same port, JSON bodies (the paths never reach Kinto):

  POST /__faults__/config  {"latency_ms": 60, "jitter_ms": 10}
      delay added before each forwarded request.
  POST /__faults__/rules   {"rules": [{"action": "lose_reply", "method": "POST",
                            "path": "/v1/batch", "body_contains": "abc",
                            "skip": 0, "count": 1}]}
      appends rules. The first rule that matches and has count left fires
      (count -1 = always; skip N lets N matching requests through first; method,
      path — a prefix of the path without its query — and body_contains are
      optional filters). Actions:
        lose_reply  forward, let the server apply it and read its whole reply, then
                    close the client's connection without sending a byte
        cut_reply   forward, then send the status line, the headers and half the
                    body, then close
        reset       close the client's connection with a TCP reset, not forwarded
        hang        neither forward nor answer; hold the connection until the client
                    gives up (at most `seconds`, default 300)
        delay       forward after `ms` milliseconds
        status      do not forward; answer {"code": N, "headers": {...},
                    "body": "..."} as given
  POST /__faults__/random  {"seed": 7, "lose_reply": 0.1, "cut_reply": 0.05,
                            "reset": 0.02, "methods": ["POST", "PUT", "PATCH", "DELETE"]}
      random faults on requests with those methods (all methods when absent),
      reproducible from the seed. Rules are looked at first.
  POST /__faults__/hide    {"seed": 3, "probability": 0.2, "seconds": 3}
      writes that commit late: each version of a record (an id and its
      last_modified, a tombstone too) is, with that probability (drawn when a pull's
      list first shows it), taken out of every pull's list until that many seconds
      after its stamp — `GET …/records` without `_fields` or `in_id`, alone or inside
      a `POST /v1/batch` — as if its transaction committed only then. A reader that
      pulled later records meanwhile, and whose commit window is shorter, has moved
      past it for good: only a reconciliation finds it. Counts (`HEAD`), listings of
      ids and versions (`_fields`) and reads by id (`in_id`) show it all along.
      `clear` leaves it on; probability 0 turns it off.
  POST /__faults__/clear   no rules, no random faults, no latency.
  GET  /__faults__/log     [{"seq", "method", "path", "query", "action",
                             "upstream_status"}] for every proxied request.
  GET  /__faults__/stats   {"requests": N, "actions": {"forward": N, "lose_reply": N, ...},
                            "hidden": N}  (versions hidden from pulls so far)
"""
import argparse
import http.client
import json
import os
import random
import select
import signal
import socket
import socketserver
import struct
import sys
import threading
import time
import urllib.parse

CONTROL_PREFIX = "/__faults__/"
MAX_HEADER_BYTES = 64 * 1024
MAX_BODY_BYTES = 256 * 1024 * 1024
ACTIONS = {"lose_reply", "cut_reply", "reset", "hang", "delay", "status"}
HOP_BY_HOP = {"connection", "keep-alive", "transfer-encoding", "content-length",
              "proxy-connection", "upgrade", "te", "trailer"}


class BadRequest(Exception):
    pass


# MARK: - Fault state

class Faults:
    """What the proxy does to the next requests; shared by all connections."""

    def __init__(self):
        self.lock = threading.Lock()
        self.clear()
        self.log = []
        self.seq = 0
        self.hiding = Hiding()

    def clear(self):
        with getattr(self, "lock", threading.Lock()):
            self.latency_ms = 0
            self.jitter_ms = 0
            self.rules = []
            self.random = None
            self.rng = random.Random(0)
            self.latency_rng = random.Random(0)

    def configure(self, body):
        with self.lock:
            self.latency_ms = max(0, int(body.get("latency_ms", self.latency_ms)))
            self.jitter_ms = max(0, int(body.get("jitter_ms", self.jitter_ms)))

    def add_rules(self, rules):
        checked = []
        for rule in rules:
            if not isinstance(rule, dict) or rule.get("action") not in ACTIONS:
                raise BadRequest(f"a rule needs an action among {sorted(ACTIONS)}: {rule!r}")
            rule = dict(rule)
            rule.setdefault("count", 1)
            rule.setdefault("skip", 0)
            checked.append(rule)
        with self.lock:
            self.rules.extend(checked)

    def set_random(self, body):
        with self.lock:
            self.random = {
                "lose_reply": float(body.get("lose_reply", 0)),
                "cut_reply": float(body.get("cut_reply", 0)),
                "reset": float(body.get("reset", 0)),
                "methods": [m.upper() for m in body.get("methods", [])],
            }
            self.rng = random.Random(body.get("seed", 0))

    def delay_seconds(self):
        with self.lock:
            if not self.latency_ms and not self.jitter_ms:
                return 0.0
            jitter = self.latency_rng.uniform(-self.jitter_ms, self.jitter_ms) if self.jitter_ms else 0
            return max(0.0, (self.latency_ms + jitter) / 1000.0)

    def choose(self, method, path, body):
        """The action for one request: a rule's, a random one, or plain forwarding."""
        with self.lock:
            for rule in self.rules:
                if rule["count"] == 0:
                    continue
                if "method" in rule and rule["method"].upper() != method:
                    continue
                if "path" in rule and not path.startswith(rule["path"]):
                    continue
                if "body_contains" in rule and rule["body_contains"].encode() not in body:
                    continue
                if rule["skip"] > 0:
                    rule["skip"] -= 1
                    continue
                if rule["count"] > 0:
                    rule["count"] -= 1
                return rule
            chance = self.random
            if chance and (not chance["methods"] or method in chance["methods"]):
                draw = self.rng.random()
                for action in ("lose_reply", "cut_reply", "reset"):
                    if draw < chance[action]:
                        return {"action": action}
                    draw -= chance[action]
        return {"action": "forward"}

    def record(self, method, path, query, action, upstream_status):
        with self.lock:
            self.seq += 1
            self.log.append({"seq": self.seq, "method": method, "path": path, "query": query,
                             "action": action, "upstream_status": upstream_status})

    def stats(self):
        with self.lock:
            counts = {}
            for entry in self.log:
                counts[entry["action"]] = counts.get(entry["action"], 0) + 1
            return {"requests": len(self.log), "actions": counts, "hidden": self.hiding.count()}


# MARK: - Records hidden from pulls

class Hiding:
    """Versions of records taken out of every pull's list: what late commits leave."""

    def __init__(self):
        self.lock = threading.Lock()
        self.probability = 0.0
        self.seconds = 3.0
        self.rng = random.Random(0)
        self.decided = {}   # (collection path, id, last_modified) -> hidden until (ms since 1970), or None

    def set(self, body):
        with self.lock:
            self.probability = max(0.0, min(1.0, float(body.get("probability", 0))))
            self.seconds = max(0.0, float(body.get("seconds", self.seconds)))
            self.rng = random.Random(body.get("seed", 0))

    def count(self):
        with self.lock:
            return sum(1 for until in self.decided.values() if until is not None)

    @staticmethod
    def collection(path):
        """A list's path without the API's prefix: the same for a request and a sub-request."""
        return path[len("/v1"):] if path.startswith("/v1/") else path

    @staticmethod
    def is_pull(method, target):
        """A pull's list: not a count, not a listing of versions, not a read by id."""
        parsed = urllib.parse.urlsplit(target)
        query = urllib.parse.parse_qs(parsed.query)
        return (method == "GET" and parsed.path.endswith("/records")
                and "_fields" not in query and "in_id" not in query)

    def filter_list(self, collection, body):
        """The list body without its hidden versions (unchanged when nothing is hidden)."""
        with self.lock:
            if not self.probability:
                return body
            try:
                page = json.loads(body)
            except ValueError:
                return body
            records = page.get("data") if isinstance(page, dict) else None
            if not isinstance(records, list):
                return body
            kept, now = [], time.time() * 1000
            for record in records:
                stamp = record.get("last_modified") if isinstance(record, dict) else None
                key = (collection, record.get("id"), stamp) if isinstance(stamp, int) else None
                if key is not None and key not in self.decided:
                    self.decided[key] = stamp + self.seconds * 1000 if self.rng.random() < self.probability else None
                until = self.decided.get(key) if key is not None else None
                if until is None or until <= now:
                    kept.append(record)
            if len(kept) == len(records):
                return body
            page["data"] = kept
            return json.dumps(page).encode()

    def filter_reply(self, method, target, request_body, reply_headers, reply_body):
        """A reply to a pull, or to a batch of them, without the hidden versions."""
        encoded = any(name.lower() == "content-encoding" for name, _ in reply_headers)
        if encoded or not self.probability:
            return reply_body
        path = urllib.parse.urlsplit(target).path
        if self.is_pull(method, target):
            return self.filter_list(self.collection(path), reply_body)
        if method != "POST" or not path.endswith("/batch"):
            return reply_body
        try:
            requests, replies = json.loads(request_body)["requests"], json.loads(reply_body)
        except (ValueError, KeyError, TypeError):
            return reply_body
        responses = replies.get("responses") if isinstance(replies, dict) else None
        if not isinstance(responses, list) or not isinstance(requests, list):
            return reply_body
        changed = False
        for request, response in zip(requests, responses):
            sub_target = request.get("path", "") if isinstance(request, dict) else ""
            sub_method = str(request.get("method", "GET")).upper() if isinstance(request, dict) else "GET"
            if not self.is_pull(sub_method, sub_target) or not isinstance(response, dict):
                continue
            before = json.dumps(response.get("body")).encode()
            after = self.filter_list(self.collection(urllib.parse.urlsplit(sub_target).path), before)
            if after is not before:
                response["body"] = json.loads(after)
                changed = True
        return json.dumps(replies).encode() if changed else reply_body


# MARK: - One client connection

class ClientGone(Exception):
    pass


class Connection(socketserver.BaseRequestHandler):
    """One client connection: requests in order, each forwarded and answered (or not)."""

    def setup(self):
        self.buffer = b""
        self.upstream = None

    def handle(self):
        try:
            while True:
                request = self.read_request()
                if request is None:
                    return
                if not self.serve(*request):
                    return
        except (ClientGone, ConnectionError, BadRequest, socket.timeout):
            return
        finally:
            if self.upstream is not None:
                self.upstream.close()

    # MARK: Reading the request

    def recv_more(self):
        chunk = self.request.recv(65536)
        if not chunk:
            raise ClientGone()
        self.buffer += chunk

    def read_request(self):
        while b"\r\n\r\n" not in self.buffer:
            if len(self.buffer) > MAX_HEADER_BYTES:
                raise BadRequest("headers too large")
            try:
                self.recv_more()
            except ClientGone:
                return None
        head, self.buffer = self.buffer.split(b"\r\n\r\n", 1)
        lines = head.decode("iso-8859-1").split("\r\n")
        try:
            method, target, version = lines[0].split(" ", 2)
        except ValueError:
            raise BadRequest(f"bad request line {lines[0]!r}")
        headers = []
        for line in lines[1:]:
            name, _, value = line.partition(":")
            headers.append((name.strip(), value.strip()))
        lookup = {name.lower(): value for name, value in headers}
        if lookup.get("expect", "").lower() == "100-continue":
            self.request.sendall(b"HTTP/1.1 100 Continue\r\n\r\n")
        if "chunked" in lookup.get("transfer-encoding", "").lower():
            body = self.read_chunked()
        else:
            length = int(lookup.get("content-length", "0") or 0)
            if length < 0 or length > MAX_BODY_BYTES:
                raise BadRequest("body too large")
            while len(self.buffer) < length:
                self.recv_more()
            body, self.buffer = self.buffer[:length], self.buffer[length:]
        keep_alive = lookup.get("connection", "").lower() != "close" and version == "HTTP/1.1"
        return method.upper(), target, headers, body, keep_alive

    def read_chunked(self):
        body = b""
        while True:
            while b"\r\n" not in self.buffer:
                self.recv_more()
            size_line, self.buffer = self.buffer.split(b"\r\n", 1)
            size = int(size_line.split(b";")[0], 16)
            if size == 0:
                while b"\r\n" not in self.buffer:
                    self.recv_more()
                # Trailers are not used by Shelf; skip to the blank line.
                while not self.buffer.startswith(b"\r\n"):
                    _, self.buffer = self.buffer.split(b"\r\n", 1)
                    while b"\r\n" not in self.buffer:
                        self.recv_more()
                self.buffer = self.buffer[2:]
                return body
            while len(self.buffer) < size + 2:
                self.recv_more()
            body += self.buffer[:size]
            self.buffer = self.buffer[size + 2:]
            if len(body) > MAX_BODY_BYTES:
                raise BadRequest("body too large")

    # MARK: Serving it

    def serve(self, method, target, headers, body, keep_alive):
        parsed = urllib.parse.urlsplit(target)
        path, query = parsed.path, parsed.query
        faults = self.server.faults
        if path.startswith(CONTROL_PREFIX):
            return self.control(method, path[len(CONTROL_PREFIX):], body, keep_alive)

        rule = faults.choose(method, path, body)
        action = rule["action"]
        if action == "reset":
            faults.record(method, path, query, action, None)
            self.reset()
            return False
        if action == "hang":
            faults.record(method, path, query, action, None)
            self.hang(float(rule.get("seconds", 300)))
            return False
        if action == "status":
            faults.record(method, path, query, action, None)
            payload = rule.get("body", "")
            payload = payload.encode() if isinstance(payload, str) else json.dumps(payload).encode()
            self.send(int(rule.get("code", 503)), "Injected", list(rule.get("headers", {}).items()),
                      payload, keep_alive)
            return keep_alive

        delay = faults.delay_seconds() + (float(rule.get("ms", 0)) / 1000.0 if action == "delay" else 0)
        if delay:
            time.sleep(delay)
        status, reason, reply_headers, reply_body = self.forward(method, target, headers, body)
        if 200 <= status < 300:
            reply_body = faults.hiding.filter_reply(method, target, body, reply_headers, reply_body)
        faults.record(method, path, query, action, status)
        if action == "lose_reply":
            self.request.close()
            return False
        if action == "cut_reply":
            self.send(status, reason, reply_headers, reply_body, keep_alive=False,
                      cut_at=len(reply_body) // 2)
            self.request.close()
            return False
        self.send(status, reason, reply_headers, reply_body, keep_alive)
        return keep_alive

    def forward(self, method, target, headers, body):
        """The upstream's whole reply; one retry on a stale keep-alive connection."""
        upstream = self.server.upstream
        forwarded = {name: value for name, value in headers
                     if name.lower() not in HOP_BY_HOP and name.lower() not in ("expect", "host")}
        forwarded["Host"] = f"{upstream.hostname}:{upstream.port}"
        for attempt in range(2):
            if self.upstream is None:
                self.upstream = http.client.HTTPConnection(upstream.hostname, upstream.port, timeout=600)
            try:
                self.upstream.request(method, target, body=body if body or method in ("POST", "PUT", "PATCH") else None,
                                      headers=forwarded)
                reply = self.upstream.getresponse()
                reply_body = reply.read()
                return reply.status, reply.reason, reply.getheaders(), reply_body
            except (http.client.HTTPException, ConnectionError):
                self.upstream.close()
                self.upstream = None
                if attempt == 1:
                    raise
        raise AssertionError("unreachable")

    def send(self, status, reason, headers, body, keep_alive, cut_at=None):
        lines = [f"HTTP/1.1 {status} {reason}"]
        for name, value in headers:
            if name.lower() not in HOP_BY_HOP:
                lines.append(f"{name}: {value}")
        lines.append(f"Content-Length: {len(body)}")
        lines.append("Connection: keep-alive" if keep_alive else "Connection: close")
        head = ("\r\n".join(lines) + "\r\n\r\n").encode("iso-8859-1")
        payload = head + (body if cut_at is None else body[:cut_at])
        self.request.sendall(payload)

    def reset(self):
        # SO_LINGER on with a zero timeout: close() sends RST instead of FIN.
        self.request.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        self.request.close()

    def hang(self, seconds):
        deadline = time.monotonic() + seconds
        while True:
            left = deadline - time.monotonic()
            if left <= 0 or self.server.stopping.is_set():
                break
            readable, _, _ = select.select([self.request], [], [], min(left, 0.5))
            if readable:
                try:
                    if not self.request.recv(65536):
                        break  # the client gave up
                except OSError:
                    break
        self.request.close()

    # MARK: Control

    def control(self, method, command, body, keep_alive):
        faults = self.server.faults
        try:
            payload = json.loads(body or b"{}")
            if method == "POST" and command == "config":
                faults.configure(payload)
                answer = {"ok": True}
            elif method == "POST" and command == "rules":
                faults.add_rules(payload.get("rules", []))
                answer = {"ok": True}
            elif method == "POST" and command == "random":
                faults.set_random(payload)
                answer = {"ok": True}
            elif method == "POST" and command == "hide":
                faults.hiding.set(payload)
                answer = {"ok": True}
            elif method == "POST" and command == "clear":
                faults.clear()
                answer = {"ok": True}
            elif method == "GET" and command == "log":
                with faults.lock:
                    answer = list(faults.log)
            elif method == "GET" and command == "stats":
                answer = faults.stats()
            else:
                self.send(404, "Not Found", [("Content-Type", "application/json")],
                          json.dumps({"error": f"no control {method} {command}"}).encode(), keep_alive)
                return keep_alive
        except (ValueError, TypeError, BadRequest) as error:
            self.send(400, "Bad Request", [("Content-Type", "application/json")],
                      json.dumps({"error": str(error)}).encode(), keep_alive)
            return keep_alive
        self.send(200, "OK", [("Content-Type", "application/json")], json.dumps(answer).encode(), keep_alive)
        return keep_alive


class ProxyServer(socketserver.ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, address, upstream):
        super().__init__(address, Connection)
        self.upstream = upstream
        self.faults = Faults()
        self.stopping = threading.Event()


# MARK: - Main

def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--upstream", required=True, help="the Kinto origin, e.g. http://127.0.0.1:8889")
    parser.add_argument("--port", type=int, default=0, help="port to listen on (0: a free one)")
    args = parser.parse_args()

    upstream = urllib.parse.urlsplit(args.upstream)
    if upstream.scheme != "http" or upstream.hostname not in ("127.0.0.1", "localhost", "::1") or not upstream.port:
        sys.exit(f"fault_proxy: the upstream must be http://127.0.0.1:PORT, not {args.upstream!r}")

    # A process started from a thread of Swift's concurrency pool inherits a signal mask
    # with SIGTERM blocked; unblock everything so SIGTERM stops the proxy.
    signal.pthread_sigmask(signal.SIG_SETMASK, [])
    parent = os.getppid()
    server = ProxyServer(("127.0.0.1", args.port), upstream)

    def stop(*_):
        server.stopping.set()
        threading.Thread(target=server.shutdown, daemon=True).start()

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)

    def watch_parent():
        while not server.stopping.is_set():
            if os.getppid() != parent:
                stop()
                return
            time.sleep(0.2)

    threading.Thread(target=watch_parent, daemon=True).start()
    print(f"ready {server.server_address[1]}", flush=True)
    server.serve_forever(poll_interval=0.2)
    server.server_close()


if __name__ == "__main__":
    main()
