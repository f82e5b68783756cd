"""A counting reverse proxy on loopback, so "requests made" is a measured figure.

Every client under test talks to Kinto through this proxy. It forwards each request
on a kept-alive upstream connection (one per client connection), streams the
response back in 64 KiB chunks as it arrives (never buffering a whole page), and
records method, path, status and the bytes that crossed it each way (request and
status lines, headers and bodies). The Host header is passed through unchanged, so
Kinto's `Next-Page` URLs point back at the proxy and paging stays counted.

Its own cost is measured by the harness (the curl floor with and without it) and
reported with the results.
"""
from __future__ import annotations

import http.client
import http.server
import threading
import time
from collections import Counter

HOP_BY_HOP = {"connection", "keep-alive", "proxy-authenticate", "proxy-authorization", "te",
              "trailer", "trailers", "transfer-encoding", "upgrade", "expect", "http2-settings"}
CHUNK = 64 * 1024


# MARK: - The record of what passed

class Traffic:
    """Thread-safe log of forwarded exchanges; `take()` returns and clears it.

    A client can exit the moment it has read the last byte, before the proxy thread
    that sent it has logged the exchange; `take()` therefore waits (briefly) until
    no exchange is in flight.
    """

    def __init__(self) -> None:
        self._done = threading.Condition()
        self._entries: list[dict] = []
        self._in_flight = 0

    def begin(self) -> None:
        with self._done:
            self._in_flight += 1

    def end(self, entry: dict) -> None:
        with self._done:
            self._in_flight -= 1
            self._entries.append(entry)
            self._done.notify_all()

    def take(self, settle_s: float = 5.0) -> list[dict]:
        with self._done:
            self._done.wait_for(lambda: self._in_flight == 0, timeout=settle_s)
            entries, self._entries = self._entries, []
        return entries

    @staticmethod
    def summary(entries: list[dict]) -> dict:
        statuses = Counter(str(e["status"]) for e in entries)
        kinds = Counter(f"{e['method']} {_kind(e['path'])}" for e in entries)
        return {
            "requests": len(entries),
            "bytes_up": sum(e["bytes_up"] for e in entries),
            "bytes_down": sum(e["bytes_down"] for e in entries),
            "statuses": dict(sorted(statuses.items())),
            "by_kind": dict(sorted(kinds.items())),
        }


def _kind(path: str) -> str:
    """`/v1/buckets/default/collections/books/records?_since=…` → `…/books/records`."""
    bare = path.split("?", 1)[0]
    parts = bare.strip("/").split("/")
    if len(parts) > 6 and parts[-2] == "records":
        return "/".join(parts[:-1]) + "/<id>"
    return bare


# MARK: - The proxy

class CountingProxy:
    def __init__(self, upstream_host: str, upstream_port: int) -> None:
        self.traffic = Traffic()
        handler = _make_handler(upstream_host, upstream_port, self.traffic)
        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]
        self._thread = threading.Thread(target=self.server.serve_forever, name="counting-proxy", daemon=True)

    @property
    def root_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def _make_handler(upstream_host: str, upstream_port: int, traffic: Traffic):
    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"  # keep-alive towards the client
        disable_nagle_algorithm = True
        upstream: http.client.HTTPConnection | None = None

        def log_message(self, *args) -> None:  # quiet: the traffic log is the record
            pass

        def _forward(self) -> None:
            started = time.perf_counter()
            traffic.begin()
            entry = {"method": self.command, "path": self.path, "status": 0, "bytes_up": 0, "bytes_down": 0}
            try:
                body = self._read_body()
                headers = {k: v for k, v in self.headers.items() if k.lower() not in HOP_BY_HOP}
                if body is not None:
                    headers["Content-Length"] = str(len(body))
                entry["bytes_up"] = (len(self.raw_requestline) + 2 + (len(body) if body else 0)
                                     + sum(len(k) + len(v) + 4 for k, v in self.headers.items()))
                response = self._exchange(body, headers)
                entry["status"] = response.status
                entry["bytes_down"] = self._relay(response)
            except (OSError, http.client.HTTPException) as error:
                # The client went away mid-response, or Kinto did: log it, drop the connection.
                entry["error"] = type(error).__name__
                self.close_connection = True
            finally:
                entry["duration_s"] = time.perf_counter() - started
                traffic.end(entry)

        do_GET = do_HEAD = do_POST = do_PUT = do_PATCH = do_DELETE = do_OPTIONS = _forward

        # MARK: Request side

        def _read_body(self) -> bytes | None:
            if "chunked" in self.headers.get("Transfer-Encoding", "").lower():
                parts = []
                while True:
                    size = int(self.rfile.readline().split(b";")[0].strip(), 16)
                    if size == 0:
                        while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                            pass
                        return b"".join(parts)
                    parts.append(self.rfile.read(size))
                    self.rfile.readline()
            length = int(self.headers.get("Content-Length") or 0)
            return self.rfile.read(length) if length else (b"" if self.command in ("POST", "PUT", "PATCH") else None)

        def _exchange(self, body: bytes | None, headers: dict) -> http.client.HTTPResponse:
            """Send upstream; only a read (GET/HEAD) is retried, on a fresh connection.

            A write is never sent twice: the first copy may already be applied.
            """
            attempts = 2 if self.command in ("GET", "HEAD") else 1
            for attempt in range(1, attempts + 1):
                if self.upstream is None:
                    self.upstream = http.client.HTTPConnection(upstream_host, upstream_port, timeout=300)
                try:
                    self.upstream.request(self.command, self.path, body=body, headers=headers)
                    return self.upstream.getresponse()
                except (http.client.HTTPException, ConnectionError):
                    # Kinto closed the kept-alive upstream connection: drop it.
                    self.upstream.close()
                    self.upstream = None
                    if attempt == attempts:
                        raise
            raise AssertionError("unreachable")

        # MARK: Response side

        def _relay(self, response: http.client.HTTPResponse) -> int:
            """Stream the response to the client; returns the bytes written."""
            self.send_response_only(response.status, response.reason)
            has_body = self.command != "HEAD" and response.status not in (204, 304) and response.status >= 200
            length = response.getheader("Content-Length")
            chunked = has_body and length is None
            for key, value in response.getheaders():
                if key.lower() not in HOP_BY_HOP:
                    self.send_header(key, value)
            if chunked:
                self.send_header("Transfer-Encoding", "chunked")
            if response.will_close:
                self.send_header("Connection", "close")
                self.close_connection = True
            written = sum(len(line) for line in self._headers_buffer) + 2
            self.end_headers()
            if has_body:
                while True:
                    chunk = response.read1(CHUNK) if hasattr(response, "read1") else response.read(CHUNK)
                    if not chunk:
                        break
                    if chunked:
                        self.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
                    else:
                        self.wfile.write(chunk)
                    written += len(chunk)
                if chunked:
                    self.wfile.write(b"0\r\n\r\n")
            # Reading past the end closes the response, so the upstream connection can
            # carry the next request (http.client refuses while a response is open).
            response.read()
            response.close()
            self.wfile.flush()
            if response.will_close:
                self.upstream.close()
                self.upstream = None
            return written

        def finish(self) -> None:
            try:
                super().finish()
            finally:
                if self.upstream is not None:
                    self.upstream.close()

    return Handler
