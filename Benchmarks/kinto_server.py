"""Kinto on loopback with the PostgreSQL backends, configured like Shelf's test server.

The ini is generated from Fixtures/kinto/kinto-basicauth.ini (Basic auth, default bucket
plugin, batch limit 25) with storage, permission and cache moved to the private
PostgreSQL cluster; `kinto migrate` creates the schema, `kinto start` serves it.

With `workers=N` it is served instead as a production node is: gunicorn with N worker
processes of `threads` threads each (`kinto_wsgi.py`), all on the same PostgreSQL. The
cache backend is then shared through PostgreSQL too — a `memory` cache would give every
process its own (a plural DELETE's `Next-Page` token, kept in the cache, would be unknown
to the next worker), so `start()` refuses it. gunicorn's access log (`access.log`, Unix
time with milliseconds, `gunicorn_access.py`) records every request with its Basic-auth
user, status and worker.
"""
from __future__ import annotations

import configparser
import os
import pathlib
import signal
import subprocess
import time
import urllib.request

import procstat
from postgres_cluster import PostgresCluster

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent
FIXTURE_INI = ROOT / "Fixtures" / "kinto" / "kinto-basicauth.ini"
# gunicorn's access-log line: end time (Unix seconds, ms; gunicorn_access.EpochLogger), the
# Basic-auth user, method, path, status, response bytes, request seconds, worker `<pid>`.
# `procstat.parse_access_line` reads it back.
ACCESS_FORMAT = "%(t)s %(u)s %(m)s %(U)s %(s)s %(B)s %(L)s %(p)s"


class KintoError(RuntimeError):
    pass


def kinto_executable() -> pathlib.Path:
    path = ROOT / ".venv" / "bin" / "kinto"
    if not path.exists():
        raise KintoError(f"{path} is missing: run `make bench-setup`")
    return path


def gunicorn_executable() -> pathlib.Path:
    path = ROOT / ".venv" / "bin" / "gunicorn"
    if not path.exists():
        raise KintoError(f"{path} is missing: run `make bench-setup` (gunicorn is pinned in "
                         "Fixtures/kinto/requirements-postgresql.txt)")
    return path


def write_ini(path: pathlib.Path, database_url: str, threads: int = 4, plugins: tuple[str, ...] = ()) -> None:
    """The fixture ini with every backend on PostgreSQL, and `plugins` (e.g.
    `kinto.plugins.history`) included beside the fixture's."""
    config = configparser.RawConfigParser()
    config.optionxform = str  # keep the keys' case
    config.read(FIXTURE_INI)
    app = config["app:main"]
    if plugins:
        app["kinto.includes"] = " ".join([app.get("kinto.includes", ""), *plugins]).strip()
    for kind in ("storage", "permission", "cache"):
        app[f"kinto.{kind}_backend"] = f"kinto.core.{kind}.postgresql"
        app[f"kinto.{kind}_url"] = database_url
    # One pool per process for storage and permission, one for the cache; a process never
    # holds more connections than it has threads (waitress's 4, or gunicorn's `threads`).
    app["kinto.storage_pool_size"] = str(max(10, threads))
    with path.open("w") as handle:
        config.write(handle)


def cache_is_shared(ini: pathlib.Path) -> bool:
    """Whether the ini's cache backend can be shared by several processes (not `memory`)."""
    config = configparser.RawConfigParser()
    config.read(ini)
    return "memory" not in config.get("app:main", "kinto.cache_backend", fallback="memory")


def gunicorn_command(ini: pathlib.Path, port: int, workers: int, threads: int,
                     access_log: pathlib.Path) -> list[str]:
    """gunicorn serving `kinto_wsgi:application` on 127.0.0.1:`port`.

    `gthread` workers (`threads` each, as waitress's thread pool); no `--preload`, so each
    worker opens its own database connections; a short graceful timeout, so `stop()` takes
    seconds, not gunicorn's default 30; no control socket (gunicorn 27 would otherwise
    create one in $HOME, shared with any other gunicorn of the same user).
    """
    return [str(gunicorn_executable()), "--pythonpath", str(HERE),
            "--bind", f"127.0.0.1:{port}", "--workers", str(workers), "--threads", str(threads),
            "--worker-class", "gthread", "--timeout", "300", "--graceful-timeout", "5",
            "--keep-alive", "5", "--no-control-socket", "--access-logfile", str(access_log),
            "--access-logformat", ACCESS_FORMAT, "--logger-class", "gunicorn_access.EpochLogger",
            "kinto_wsgi:application"]


class KintoServer:
    """`migrate()` once, then `start()`; `stop()` is safe to call at any time.

    `workers=0` (the default): `kinto start`, one waitress process with the ini's 4
    threads. `workers=N`: gunicorn, N processes × `threads` (see the module's doc).
    """

    def __init__(self, folder: pathlib.Path, database: PostgresCluster, port: int,
                 workers: int = 0, threads: int = 2, plugins: tuple[str, ...] = ()) -> None:
        self.folder = folder
        self.ini = folder / "kinto.ini"
        self.log = folder / "kinto.log"
        self.access_log = folder / "access.log"
        self.port = port
        self.workers = workers
        self.threads = threads
        self.process: subprocess.Popen | None = None
        self.plugins = plugins
        write_ini(self.ini, database.url, threads=threads if workers else 4, plugins=plugins)

    @property
    def description(self) -> str:
        plugins = "".join(f", with {plugin}" for plugin in self.plugins)
        if self.workers:
            return f"gunicorn, {self.workers} workers × {self.threads} threads{plugins}"
        return f"kinto start (waitress, 1 process × 4 threads){plugins}"

    def command(self) -> list[str]:
        if self.workers:
            return gunicorn_command(self.ini, self.port, self.workers, self.threads, self.access_log)
        return [str(kinto_executable()), "start", "--ini", str(self.ini), "--port", str(self.port)]

    @property
    def root_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def migrate(self) -> None:
        result = subprocess.run([str(kinto_executable()), "migrate", "--ini", str(self.ini)],
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        if result.returncode != 0:
            raise KintoError("kinto migrate failed:\n" + result.stdout.decode(errors="replace")[-2000:])

    def start(self, on_spawn=lambda pid: None, timeout: float = 60.0) -> None:
        """Start Kinto (telling `on_spawn` its pid at once) and wait until `/v1/` answers."""
        if self.workers > 1 and not cache_is_shared(self.ini):
            raise KintoError("several Kinto processes need a shared cache backend, not memory")
        env = {**os.environ, "KINTO_INI": str(self.ini)}
        log = self.log.open("ab")
        # A session of its own: Ctrl-C reaches the harness only, which stops Kinto in order.
        self.process = subprocess.Popen(self.command(), env=env, stdin=subprocess.DEVNULL,
                                        stdout=log, stderr=log, start_new_session=True)
        log.close()
        on_spawn(self.process.pid)
        deadline = time.monotonic() + timeout
        while True:
            if self.process.poll() is not None:
                raise KintoError(f"kinto exited with {self.process.returncode} before answering:\n"
                                 + self.log.read_text(errors="replace")[-2000:])
            try:
                urllib.request.urlopen(self.root_url + "/v1/", timeout=2).read()
                if self.workers:
                    self._wait_for_workers(deadline)
                return
            except OSError:
                if time.monotonic() > deadline:
                    raise KintoError(f"kinto did not answer on port {self.port} within {timeout:.0f} s")
                time.sleep(0.1)

    def _wait_for_workers(self, deadline: float) -> None:
        """Until gunicorn's master has all its workers (one answering is not all of them)."""
        while len(procstat.children(self.process.pid)) < self.workers:
            if time.monotonic() > deadline:
                raise KintoError(f"gunicorn started {len(procstat.children(self.process.pid))} "
                                 f"of {self.workers} workers")
            time.sleep(0.1)

    def pids(self) -> list[int]:
        """Kinto's processes now: the one `kinto start`, or gunicorn's master and workers."""
        if self.process is None or self.process.poll() is not None:
            return []
        return [self.process.pid, *procstat.children(self.process.pid)]

    def stop(self) -> None:
        process, self.process = self.process, None
        if process is None or process.poll() is not None:
            return
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
