"""Kinto on loopback with the PostgreSQL backends, configured like Shelf's test server.

The ini is generated from Fixtures/kinto/kinto-basicauth.ini (Basic auth, default bucket
plugin, batch limit 25) with storage, permission and cache moved to the private
PostgreSQL cluster; `kinto migrate` creates the schema, `kinto start` serves it.
"""
from __future__ import annotations

import configparser
import os
import pathlib
import signal
import subprocess
import time
import urllib.request

from postgres_cluster import PostgresCluster

ROOT = pathlib.Path(__file__).resolve().parent.parent
FIXTURE_INI = ROOT / "Fixtures" / "kinto" / "kinto-basicauth.ini"


class KintoError(RuntimeError):
    pass


def kinto_executable() -> pathlib.Path:
    path = ROOT / ".venv" / "bin" / "kinto"
    if not path.exists():
        raise KintoError(f"{path} is missing: run `make bench-setup`")
    return path


def write_ini(path: pathlib.Path, database_url: str) -> None:
    """The fixture ini with every backend on PostgreSQL."""
    config = configparser.RawConfigParser()
    config.optionxform = str  # keep the keys' case
    config.read(FIXTURE_INI)
    app = config["app:main"]
    for kind in ("storage", "permission", "cache"):
        app[f"kinto.{kind}_backend"] = f"kinto.core.{kind}.postgresql"
        app[f"kinto.{kind}_url"] = database_url
    # One pool per backend; with waitress's 4 threads, 10 connections never run out.
    app["kinto.storage_pool_size"] = "10"
    with path.open("w") as handle:
        config.write(handle)


class KintoServer:
    """`migrate()` once, then `start()`; `stop()` is safe to call at any time."""

    def __init__(self, folder: pathlib.Path, database: PostgresCluster, port: int) -> None:
        self.folder = folder
        self.ini = folder / "kinto.ini"
        self.log = folder / "kinto.log"
        self.port = port
        self.process: subprocess.Popen | None = None
        write_ini(self.ini, database.url)

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
        log = self.log.open("ab")
        # A session of its own: Ctrl-C reaches the harness only, which stops Kinto in order.
        self.process = subprocess.Popen(
            [str(kinto_executable()), "start", "--ini", str(self.ini), "--port", str(self.port)],
            stdin=subprocess.DEVNULL, stdout=log, stderr=log, start_new_session=True)
        log.close()
        on_spawn(self.process.pid)
        deadline = time.monotonic() + timeout
        while True:
            if self.process.poll() is not None:
                raise KintoError(f"kinto exited with {self.process.returncode} before answering:\n"
                                 + self.log.read_text(errors="replace")[-2000:])
            try:
                urllib.request.urlopen(self.root_url + "/v1/", timeout=2).read()
                return
            except OSError:
                if time.monotonic() > deadline:
                    raise KintoError(f"kinto did not answer on port {self.port} within {timeout:.0f} s")
                time.sleep(0.1)

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
