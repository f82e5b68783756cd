"""The processes a harness run drives: a real Kinto, the fault proxy, and devices.

Kinto is started by Scripts/kinto-supervised.py (a free loopback port, stopped when
this process dies) with the accounts plugin (bcrypt at its lowest cost as in the tests)
and the shop catalog seeded, in one of two shapes (`SERVER_SHAPES`): `memory`
(`Fixtures/kinto/kinto.ini`, the memory backend, the tests' server) or `production`
(`Fixtures/kinto/production.ini` on a private PostgreSQL cluster, optionally with N
worker processes). Only the second shows what concurrent writers do to one collection:
PostgreSQL stamps records inside open transactions, so they can commit out of stamp
order. The fault proxy sits in front of Kinto and every device talks to the proxy only. A device is a private HOME /
XDG_CONFIG_HOME / XDG_DATA_HOME with one account for the run's Kinto user; its password
reaches `shelf account add` through the environment, never argv.
"""
import base64
import json
import os
import pathlib
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent.parent
CLI_TIMEOUT = 60        # seconds; a `shelf` command that takes longer is a finding
SYNC_TIMEOUT = 120      # seconds; every wait ends
MAX_SERVER_PAGES = 50   # pages of 10,000 records when the harness reads Kinto itself
# The collections a reader writes (Domain's `CollectionName.writable`): with encryption on,
# the server holds only sealed records of these; the shop's products stay in the clear.
READER_COLLECTIONS = ("books", "notes", "tasks", "cart", "preferences", "sessions")
ENCRYPTION_TIMEOUT = 60  # seconds for `shelf encryption enable|join` (Argon2id: about 1 s)


class HarnessError(Exception):
    """The harness itself could not run (not a finding about Shelf)."""


# MARK: - Helper processes

def _start_ready(argv, what, env=None):
    process = subprocess.Popen(argv, stdout=subprocess.PIPE, stdin=subprocess.PIPE,
                               stderr=subprocess.DEVNULL, env=env, text=True)
    line = process.stdout.readline().strip()
    if not line.startswith("ready "):
        process.kill()
        raise HarnessError(f"{what} did not start: {line or 'no output'} (exit {process.wait()})")
    return process, int(line.split()[1])


# The Kinto a run talks to: the supervisor's arguments for each shape.
SERVER_SHAPES = {
    "memory": ["--ini", str(ROOT / "Fixtures" / "kinto" / "kinto.ini")],
    "production": ["--ini", str(ROOT / "Fixtures" / "kinto" / "production.ini"), "--postgresql"],
}


# Both shapes' plugins (their inis' `kinto.includes`) and the history's, for a run whose server
# keeps every bucket's history (`--history`).
HISTORY_INCLUDES = "kinto.plugins.default_bucket kinto.plugins.accounts kinto.plugins.history"


# Kinto processes of the production shape unless a run asks for another number: the shape
# Kinto's docs advise (several gunicorn workers over one PostgreSQL), as production.ini runs.
PRODUCTION_WORKERS = 4


def production_workers(server, workers):
    """The worker processes a run's server gets: `workers`, or PRODUCTION_WORKERS on the
    production shape; None (one process) on the memory one."""
    if workers is None and server == "production":
        return PRODUCTION_WORKERS
    return workers


def kinto_arguments(server="memory", workers=None):
    """The supervisor's arguments for a server shape; `workers` (production only) asks it
    for that many Kinto processes over the one database."""
    if server not in SERVER_SHAPES:
        raise HarnessError(f"unknown server shape {server!r} ({', '.join(SERVER_SHAPES)})")
    arguments = ["--seed-catalog", "--fast-password-hashing", *SERVER_SHAPES[server]]
    if workers is not None:
        if server != "production":
            raise HarnessError("--workers needs the production server (PostgreSQL): one memory store is one process")
        arguments += ["--workers", str(workers)]
    return arguments


class Servers:
    """Kinto and the fault proxy in front of it; `stop()` ends both."""

    def __init__(self, python=None, server="memory", workers=None, history=False):
        python = python or str(ROOT / ".venv" / "bin" / "python")
        if not os.access(python, os.X_OK):
            raise HarnessError(f"Kinto's Python not found at {python}: run 'make setup'")
        workers = production_workers(server, workers)
        self.shape = (server if workers is None else f"{server}, {workers} workers") + (", history" if history else "")
        env = {**os.environ, "KINTO_INCLUDES": HISTORY_INCLUDES} if history else None
        self.kinto, self.kinto_port = _start_ready(
            [python, str(ROOT / "Scripts" / "kinto-supervised.py"), *kinto_arguments(server, workers)],
            "Kinto", env=env)
        try:
            self.proxy, self.proxy_port = _start_ready(
                [sys.executable, str(HERE / "fault_proxy.py"), "--upstream", f"http://127.0.0.1:{self.kinto_port}"],
                "the fault proxy")
        except Exception:
            self._end(self.kinto)
            raise

    @property
    def proxy_url(self):
        return f"http://127.0.0.1:{self.proxy_port}/v1"

    def stop(self):
        for process in (getattr(self, "proxy", None), getattr(self, "kinto", None)):
            if process is not None:
                self._end(process)

    @staticmethod
    def _end(process):
        if process.poll() is None:
            process.terminate()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()

    # MARK: Proxy control

    def control(self, path, body=None):
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(f"http://127.0.0.1:{self.proxy_port}/__faults__/{path}",
                                         data=data, method="GET" if body is None else "POST")
        with urllib.request.urlopen(request, timeout=10) as reply:
            return json.loads(reply.read() or b"null")

    def calm(self, latency_ms, jitter_ms):
        """No rules and no random faults; only the latency."""
        self.control("clear", {})
        self.control("config", {"latency_ms": latency_ms, "jitter_ms": jitter_ms})

    # MARK: The server's own view

    def wipe(self, user, password, collection):
        """Deletes the user's collection on Kinto (its records and tombstones), as a
        server that lost its data would; the default bucket recreates it empty."""
        token = base64.b64encode(f"{user}:{password}".encode()).decode()
        url = f"http://127.0.0.1:{self.kinto_port}/v1/buckets/default/collections/{collection}"
        request = urllib.request.Request(url, method="DELETE", headers={"Authorization": f"Basic {token}"})
        try:
            with urllib.request.urlopen(request, timeout=10) as reply:
                reply.read()
        except urllib.error.HTTPError as error:
            if error.code not in (403, 404):
                raise HarnessError(f"could not delete {collection} on Kinto: HTTP {error.code}")

    def server_records(self, user, password, collections=("books", "notes", "tasks")):
        """The user's records as Kinto holds them (not through the proxy), every page."""
        return {collection: [_server_record(collection, r) for r in self._raw_records(user, password, collection, "")]
                for collection in collections}

    def sealed_view(self, user, password, collections=READER_COLLECTIONS):
        """The user's records as Kinto holds them, tombstones included (`_since=0`), not
        converted: what an encrypted account shows the server. A collection Kinto does
        not have yet is empty."""
        return {collection: self._raw_records(user, password, collection, "_since=0&")
                for collection in collections}

    def _raw_records(self, user, password, collection, query):
        """One collection's records straight from Kinto, page by page (at most
        MAX_SERVER_PAGES); a collection Kinto refuses or lacks is empty."""
        token = base64.b64encode(f"{user}:{password}".encode()).decode()
        url = (f"http://127.0.0.1:{self.kinto_port}/v1/buckets/default/collections/"
               f"{collection}/records?{query}_limit=10000")
        data = []
        for _ in range(MAX_SERVER_PAGES):
            request = urllib.request.Request(url, headers={"Authorization": f"Basic {token}"})
            try:
                with urllib.request.urlopen(request, timeout=30) as reply:
                    data += json.loads(reply.read())["data"]
                    url = reply.headers.get("Next-Page")
            except urllib.error.HTTPError as error:
                if error.code not in (403, 404):
                    raise
                url = None
            if not url:
                return data
        raise HarnessError(f"{collection} on Kinto has more than {MAX_SERVER_PAGES} pages")

    def kinto_request(self, user, password, method, path, body=None):
        """One request straight to Kinto (not through the proxy), as its operator would make
        it: `path` under the user's default bucket. Returns (status, JSON body or None);
        an HTTP error is a status, not an exception."""
        token = base64.b64encode(f"{user}:{password}".encode()).decode()
        url = f"http://127.0.0.1:{self.kinto_port}/v1/buckets/default/{path}"
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(url, data=data, method=method, headers={
            "Authorization": f"Basic {token}", "Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=30) as reply:
                raw = reply.read()
                return reply.status, (json.loads(raw) if raw else None)
        except urllib.error.HTTPError as error:
            return error.code, None

    def put_record(self, user, password, collection, record):
        """Writes `record` straight into Kinto, past every device (the self-tests' way to
        make the server hold something no device has)."""
        token = base64.b64encode(f"{user}:{password}".encode()).decode()
        url = (f"http://127.0.0.1:{self.kinto_port}/v1/buckets/default/collections/"
               f"{collection}/records/{record['id']}")
        body = json.dumps({"data": {k: v for k, v in record.items() if k != "id"}}).encode()
        request = urllib.request.Request(url, data=body, method="PUT", headers={
            "Authorization": f"Basic {token}", "Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=10) as reply:
            return json.loads(reply.read())["data"]


def _server_record(collection, record):
    """A Kinto record in the CLI's `--json` shape (the wire names are the Domain's
    except `author_name`, `finished`/`done` and `book_id`; unknown ones are kept)."""
    if collection == "books":
        return {"id": record.get("id"), "title": record.get("title"),
                "author": record.get("author", record.get("author_name")),
                "isFinished": record.get("isFinished", record.get("finished", record.get("is_finished", False)))}
    if collection == "notes":
        return {"id": record.get("id"), "title": record.get("title"), "body": record.get("body", ""),
                "bookID": record.get("bookID", record.get("book_id"))}
    return {"id": record.get("id"), "title": record.get("title"),
            "isDone": record.get("isDone", record.get("done", record.get("is_done", False)))}


# MARK: - Devices

class CommandResult:
    def __init__(self, argv, status, stdout, stderr, seconds):
        self.argv, self.status, self.stdout, self.stderr, self.seconds = argv, status, stdout, stderr, seconds

    def json(self):
        return json.loads(self.stdout)

    def __str__(self):
        return f"shelf {' '.join(self.argv)} -> {self.status}\n{self.stdout}{self.stderr}"


class Device:
    """One reader's machine: its own XDG folders, the same Kinto user as the others."""

    def __init__(self, index, root, shelf, shelf_sync, passphrase=None, commit_window=None):
        self.index = index
        self.commit_window = commit_window   # shelf-sync's --commit-window, when not the default
        self.root = pathlib.Path(root) / f"device-{index}"
        self.root.mkdir(parents=True, exist_ok=True)
        self.shelf, self.shelf_sync = shelf, shelf_sync
        self.env = {
            "PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "HOME": str(self.root),
            "XDG_CONFIG_HOME": str(self.root / "config"), "XDG_DATA_HOME": str(self.root / "data"),
        }
        if passphrase is not None:
            # As a reader keeps it: a file only its owner can read (shelf refuses a looser
            # one), named by SHELF_PASSPHRASE_FILE for every shelf and shelf-sync run.
            secret = self.root / "passphrase"
            descriptor = os.open(secret, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            with os.fdopen(descriptor, "w") as file:
                file.write(passphrase + "\n")
            os.chmod(secret, 0o600)
            self.env["SHELF_PASSPHRASE_FILE"] = str(secret)
        self.running = None   # the background shelf-sync, if any
        self.sync_count = 0

    def shelf_command(self, *argv, extra_env=None):
        env = dict(self.env, **(extra_env or {}))
        started = time.monotonic()
        try:
            done = subprocess.run([self.shelf, *argv], env=env, capture_output=True, text=True,
                                  timeout=CLI_TIMEOUT, stdin=subprocess.DEVNULL)
        except subprocess.TimeoutExpired as timeout:
            return CommandResult(list(argv), "timeout", timeout.stdout or "", timeout.stderr or "",
                                 time.monotonic() - started)
        return CommandResult(list(argv), done.returncode, done.stdout, done.stderr, time.monotonic() - started)

    def keep_output(self, name, result):
        """Writes a command's output into the device's folder (kept when a run fails)."""
        (self.root / name).write_text(f"shelf {' '.join(result.argv)} -> {result.status}\n{result.stdout}{result.stderr}")

    def add_account(self, server, user, password, create=False):
        """`shelf account add`; the first device signs the user up (`--create`)."""
        argv = ["account", "add", "harness", "--server", server, "--user", user] + (["--create"] if create else [])
        result = self.shelf_command(*argv, extra_env={"SHELF_PASSWORD": password})
        if result.status != 0:
            raise HarnessError(f"device {self.index}: account add failed: {result}")
        return result

    def encryption(self, verb):
        """`shelf encryption enable|join` with the device's passphrase file (a bounded wait:
        Argon2id takes about a second on two cores)."""
        started = time.monotonic()
        try:
            done = subprocess.run([self.shelf, "encryption", verb], env=self.env, capture_output=True, text=True,
                                  timeout=ENCRYPTION_TIMEOUT, stdin=subprocess.DEVNULL)
        except subprocess.TimeoutExpired as timeout:
            return CommandResult(["encryption", verb], "timeout", timeout.stdout or "", timeout.stderr or "",
                                 time.monotonic() - started)
        return CommandResult(["encryption", verb], done.returncode, done.stdout, done.stderr,
                             time.monotonic() - started)

    # MARK: shelf-sync

    def start_sync(self, kill_after_ms=None, via="shelf-sync", reconcile=False):
        """Starts `shelf-sync` (or `shelf sync` with `via="shelf"`); with `kill_after_ms`, a
        timer sends SIGKILL after that long; with `reconcile`, it reconciles every collection."""
        if self.running is not None:
            raise HarnessError(f"device {self.index}: a sync is already running")
        self.sync_count += 1
        report = self.root / f"report-{self.sync_count}.json"
        log = open(self.root / f"sync-{self.sync_count}.log", "wb")
        argv = ([self.shelf, "--json", "sync"] if via == "shelf"
                else [self.shelf_sync, "--report", str(report), "--log-format", "json"])
        if via != "shelf" and self.commit_window:
            argv += ["--commit-window", self.commit_window]
        if reconcile:
            argv.append("--reconcile")
        process = subprocess.Popen(argv,
                                   env=self.env, stdout=log, stderr=log, stdin=subprocess.DEVNULL)
        log.close()
        timer = None
        if kill_after_ms is not None:
            timer = threading.Timer(kill_after_ms / 1000.0, _kill, args=(process,))
            timer.start()
        self.running = SyncRun(process, report, timer, kill_after_ms, via, self.root / f"sync-{self.sync_count}.log")
        return self.running

    def wait_sync(self):
        """Waits for the background sync; returns its SyncRun (None if none ran)."""
        run, self.running = self.running, None
        if run is not None:
            run.wait()
        return run

    def sync(self, kill_after_ms=None, reconcile=False):
        self.start_sync(kill_after_ms, reconcile=reconcile)
        return self.wait_sync()

    # MARK: Snapshot

    def snapshot(self, encrypted=False):
        """What the device lists, as the checker reads it; with `encrypted`, its
        `shelf encryption status` too (`encryption`)."""
        out = {}
        for name, argv in (("books", ("books",)), ("notes", ("notes",)), ("tasks", ("tasks",)),
                           ("status", ("status",)), ("conflicts", ("conflicts",)), ("failed", ("failed",))):
            result = self.shelf_command("--json", *argv)
            if result.status != 0:
                raise HarnessError(f"device {self.index}: {result}")
            data = result.json()
            out[name] = data["sync"] if name == "status" else data[name]
        if encrypted:
            result = self.shelf_command("--json", "encryption", "status")
            if result.status != 0:
                raise HarnessError(f"device {self.index}: {result}")
            out["encryption"] = result.json()
        return out


def _kill(process):
    if process.poll() is None:
        try:
            process.send_signal(signal.SIGKILL)
        except ProcessLookupError:
            pass


class SyncRun:
    def __init__(self, process, report, timer, kill_after_ms, via="shelf-sync", log_path=None):
        self.process, self.report_path, self.timer, self.kill_after_ms = process, report, timer, kill_after_ms
        self.via = via
        self.log_path = log_path
        self.status = None

    def wait(self):
        try:
            self.status = self.process.wait(timeout=SYNC_TIMEOUT)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.status = "timeout"
            self.process.wait()
        if self.timer is not None:
            self.timer.cancel()
        return self.status

    @property
    def killed(self):
        """True when SIGKILL ended the run before it finished on its own."""
        return self.status == -signal.SIGKILL

    def report(self):
        try:
            return json.loads(self.report_path.read_text())
        except (OSError, ValueError):
            return None

    def says(self, text):
        """True when the run's output (stdout and stderr, kept in its log) holds `text`."""
        try:
            return text in self.log_path.read_text(errors="replace")
        except (OSError, AttributeError):
            return False

    def pushed(self):
        report = self.report() or {}
        return sum(c.get("pushed", 0) for a in report.get("accounts", [])
                   for c in (a.get("collections") or {}).values())

    def reconciled(self):
        """Records a reconciliation of this run found (fetched, or deleted by a tombstone it listed)."""
        report = self.report() or {}
        found = [c.get("reconciliation") or {} for a in report.get("accounts", [])
                 for c in (a.get("collections") or {}).values()]
        return sum(r.get("fetched", 0) + r.get("deleted", 0) for r in found)
