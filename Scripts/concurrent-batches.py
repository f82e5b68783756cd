#!/usr/bin/env python3
"""Show that concurrent batches into one collection can hide records from `_since` pulls.

Why: Kinto's PostgreSQL trigger stamps a record's `last_modified` inside its still-open
transaction, and takes no lock. Two transactions writing one collection can commit in
the opposite order to their stamps, so a reader asking `_since=<cursor>` between the two
commits moves its cursor past a record it could not see yet, and never sees it. Shelf's
pulls are such readers; this measures how often it happens on a given server
(Fixtures/kinto/README.md, "Several worker processes", has the figures).

What it does, on 127.0.0.1 only: signs up a fresh account (accounts plugin; with plain
Basic auth any password is an account), creates one collection in its `default` bucket,
then WRITERS threads each send BATCHES batches of SIZE `PUT`s of new records (POST
/v1/batch) while one thread pulls `?_since=<cursor>&_sort=last_modified` in a loop,
following Next-Page and moving its cursor to the newest stamp it saw, as a sync client
does. After the writers finish it pulls once more, then lists every record the server
holds and prints:

    server holds   records in the collection at the end
    puller saw     distinct records the `_since` puller received
    missed         held by the server, never seen by the puller (the hazard)
    409            batch sub-responses answered 409 (a conflict between the writers)

Bounded: at most WRITERS × BATCHES batches (defaults 4 × 20 × 20 = 1,600 records), each
request times out after 30 s, and everything stops at --deadline seconds.

    Scripts/concurrent-batches.py http://127.0.0.1:8888        # e.g. make server-production
    Scripts/concurrent-batches.py --start-server 4             # its own server, 4 workers

--start-server N starts Kinto itself (Scripts/kinto-supervised.py, kinto.ini's accounts
plugin, --postgresql --workers N, fast password hashing), reports how long it took to
answer, and stops it at the end.
"""
import argparse
import base64
import http.client
import json
import os
import pathlib
import subprocess
import sys
import threading
import time
import urllib.parse
import uuid

ROOT = pathlib.Path(__file__).resolve().parent.parent
REQUEST_TIMEOUT = 30


class Kinto:
    """One keep-alive connection to the server, for one thread."""

    def __init__(self, port, auth):
        self.port = port
        self.auth = auth
        self.connection = None

    def call(self, method, path, body=None, headers=None):
        """(status, headers, decoded JSON or None); reconnects once if the connection dropped."""
        data = None if body is None else json.dumps(body).encode()
        sent = {"Authorization": self.auth, "Content-Type": "application/json", **(headers or {})}
        for attempt in (1, 2):
            if self.connection is None:
                self.connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=REQUEST_TIMEOUT)
            try:
                self.connection.request(method, path, body=data, headers=sent)
                response = self.connection.getresponse()
                raw = response.read()
                return response.status, response.headers, (json.loads(raw) if raw else None)
            except (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError):
                self.connection.close()
                self.connection = None
                if attempt == 2:
                    raise


def loopback_port(url):
    """The port of an http://127.0.0.1 URL; anything else is refused."""
    parts = urllib.parse.urlsplit(url)
    if parts.scheme != "http" or parts.hostname not in ("127.0.0.1", "localhost"):
        sys.exit(f"concurrent-batches: {url!r}: only http://127.0.0.1:<port> is allowed")
    return parts.port or 80


def start_server(workers, threads):
    """Scripts/kinto-supervised.py on PostgreSQL with `workers` processes: (process, port, seconds)."""
    started = time.monotonic()
    process = subprocess.Popen(
        [sys.executable, str(ROOT / "Scripts" / "kinto-supervised.py"), "--postgresql",
         "--workers", str(workers), "--threads", str(threads), "--fast-password-hashing"],
        stdout=subprocess.PIPE, stdin=subprocess.DEVNULL)
    line = process.stdout.readline().decode().strip()  # the supervisor gives up after 30 s
    if not line.startswith("ready "):
        process.terminate()
        process.wait(timeout=60)
        sys.exit(f"concurrent-batches: the server did not start (said {line!r})")
    return process, int(line.split()[1]), time.monotonic() - started


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("url", nargs="?", default="http://127.0.0.1:8888")
    parser.add_argument("--start-server", type=int, metavar="WORKERS", default=0)
    parser.add_argument("--threads", type=int, default=2, help="threads per worker with --start-server")
    parser.add_argument("--writers", type=int, default=4)
    parser.add_argument("--batches", type=int, default=20, help="batches per writer")
    parser.add_argument("--size", type=int, default=20, help="PUTs per batch (≤ the server's batch_max_requests)")
    parser.add_argument("--deadline", type=float, default=180, help="seconds for the whole run")
    args = parser.parse_args()
    if not (1 <= args.writers <= 16 and 1 <= args.batches <= 100 and 1 <= args.size <= 25):
        parser.error("keep it small: 1–16 writers, 1–100 batches, 1–25 requests a batch")

    server = None
    if args.start_server:
        server, port, seconds = start_server(args.start_server, args.threads)
        print(f"server         {args.start_server} gunicorn workers × {args.threads} threads on PostgreSQL, "
              f"answered after {seconds:.1f} s (port {port})")
    else:
        port = loopback_port(args.url)
    try:
        run(port, args)
    finally:
        if server is not None:
            server.terminate()
            server.wait(timeout=60)


def run(port, args):
    deadline = time.monotonic() + args.deadline
    user, password = f"batches-{uuid.uuid4().hex[:12]}", uuid.uuid4().hex
    auth = "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode()
    setup = Kinto(port, auth)
    status, _, root = setup.call("GET", "/v1/")
    if status != 200:
        sys.exit(f"concurrent-batches: GET /v1/ answered {status}")
    if "accounts" in root.get("capabilities", {}):
        status, _, body = setup.call("PUT", f"/v1/accounts/{user}", {"data": {"password": password}},
                                     {"If-None-Match": "*"})
        if status not in (200, 201):
            sys.exit(f"concurrent-batches: sign-up answered {status}: {body}")
    collection = "/v1/buckets/default/collections/hazard"
    status, _, body = setup.call("PUT", collection, {"data": {}})
    if status not in (200, 201):
        sys.exit(f"concurrent-batches: creating the collection answered {status}: {body}")

    statuses = {}            # sub-response status → count
    answered_ok = set()      # ids whose PUT was answered 2xx
    conflict = []            # the first 409's message, to say what the conflict was
    with_conflict = []       # (ids, index of the first 409) of each batch that had one
    lock = threading.Lock()
    writers_done = threading.Event()

    def writer(number):
        kinto = Kinto(port, auth)
        for batch in range(args.batches):
            if time.monotonic() > deadline:
                return
            ids = [f"w{number}-b{batch:03d}-r{index:02d}" for index in range(args.size)]
            requests = [{"path": f"{collection}/records/{id}", "body": {"data": {"writer": number, "batch": batch}}}
                        for id in ids]
            status, _, body = kinto.call("POST", "/v1/batch", {"defaults": {"method": "PUT"}, "requests": requests})
            with lock:
                if status != 200:
                    statuses[f"batch {status}"] = statuses.get(f"batch {status}", 0) + 1
                    continue
                codes = [response["status"] for response in body["responses"]]
                if 409 in codes:
                    with_conflict.append((ids, codes.index(409)))
                for id, response in zip(ids, body["responses"]):
                    statuses[response["status"]] = statuses.get(response["status"], 0) + 1
                    if 200 <= response["status"] < 300:
                        answered_ok.add(id)
                    elif response["status"] == 409 and not conflict:
                        conflict.append((response.get("body") or {}).get("message", ""))

    seen = set()
    pulls = [0]

    def pull(kinto, cursor):
        """One `_since` pull, every page: the new cursor."""
        path = f"{collection}/records?_since={cursor}&_sort=last_modified&_fields=id,last_modified&_limit=500"
        while path and time.monotonic() < deadline:
            status, headers, body = kinto.call("GET", path)
            if status != 200:
                raise RuntimeError(f"pull answered {status}: {body}")
            for record in body["data"]:
                seen.add(record["id"])
                cursor = max(cursor, record["last_modified"])
            next_page = headers.get("Next-Page")
            path = urllib.parse.urlsplit(next_page)._replace(scheme="", netloc="").geturl() if next_page else None
        pulls[0] += 1
        return cursor

    def puller():
        kinto, cursor = Kinto(port, auth), 0
        while not writers_done.is_set() and time.monotonic() < deadline:
            cursor = pull(kinto, cursor)
        pull(kinto, cursor)  # once more after the last commit, as the next sync would

    started = time.monotonic()
    threads = [threading.Thread(target=writer, args=(n,), daemon=True) for n in range(args.writers)]
    pulling = threading.Thread(target=puller, daemon=True)
    pulling.start()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(max(0, deadline - time.monotonic()))
    writers_done.set()
    pulling.join(max(0, deadline - time.monotonic()) + REQUEST_TIMEOUT)
    elapsed = time.monotonic() - started
    if any(thread.is_alive() for thread in threads + [pulling]):
        print(f"concurrent-batches: stopped at the {args.deadline:.0f} s deadline; figures are partial",
              file=sys.stderr)

    held = set()
    path = f"{collection}/records?_fields=id&_limit=10000"
    while path:
        status, headers, body = setup.call("GET", path)
        held.update(record["id"] for record in body["data"])
        next_page = headers.get("Next-Page")
        path = urllib.parse.urlsplit(next_page)._replace(scheme="", netloc="").geturl() if next_page else None

    missed = held - seen
    lost = answered_ok - held
    print(f"sent           {args.writers} writers × {args.batches} batches × {args.size} PUTs in {elapsed:.1f} s; "
          f"{pulls[0]} `_since` pulls meanwhile")
    print(f"sub-responses  " + ", ".join(f"{status}: {count}" for status, count in sorted(statuses.items(), key=str)))
    print(f"server holds   {len(held)}")
    print(f"puller saw     {len(seen & held)}")
    print(f"missed         {len(missed)}")
    print(f"409            {statuses.get(409, 0)}" + (f" (first: {conflict[0]!r})" if conflict else ""))
    if lost:
        # Seen here: in a batch with a 409, sub-requests answered 201 are not all kept.
        before = sum(1 for ids, first in with_conflict for id in ids[:first] if id in lost)
        after = sum(1 for ids, first in with_conflict for id in ids[first + 1:] if id in lost)
        print(f"answered 2xx but not held: {len(lost)} ({before} before the batch's first 409, "
              f"{after} after it; {len(with_conflict)} batches had a 409)")


if __name__ == "__main__":
    main()
