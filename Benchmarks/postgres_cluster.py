"""A private PostgreSQL cluster on loopback for Kinto's storage, started and stopped here.

Debian's server binaries (`/usr/lib/postgresql/<version>/bin`) run a cluster in a
folder of the benchmark's workspace: its own port, its Unix socket in that folder,
TCP only on 127.0.0.1, trust authentication (nothing but this machine can reach it).
PostgreSQL refuses to run as root, so when the harness is root the cluster belongs
to the `postgres` user and its commands run through `runuser`.
"""
from __future__ import annotations

import glob
import os
import pathlib
import shutil
import subprocess


class PostgresError(RuntimeError):
    pass


# MARK: - Finding the server

def find_bin_dir() -> pathlib.Path:
    """The newest installed PostgreSQL server's bin folder (PG_BIN overrides)."""
    if os.environ.get("PG_BIN"):
        return pathlib.Path(os.environ["PG_BIN"])
    candidates = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"),
                        key=lambda p: int(pathlib.Path(p).parent.parent.name)
                        if pathlib.Path(p).parent.parent.name.isdigit() else 0)
    if not candidates:
        raise PostgresError("PostgreSQL server binaries not found under /usr/lib/postgresql: "
                            "run `make bench-setup` (installs the `postgresql` package)")
    return pathlib.Path(candidates[-1]).parent


# MARK: - The cluster

class PostgresCluster:
    """initdb + pg_ctl start on `port`; `stop()` is safe to call at any time.

    `max_connections` must cover every Kinto process's pools: a gunicorn Kinto with many
    workers opens up to two connections per thread of each worker (storage, cache).
    """

    def __init__(self, folder: pathlib.Path, port: int, max_connections: int = 60) -> None:
        self.bin = find_bin_dir()
        self.folder = folder
        self.data = folder / "data"
        self.log = folder / "postgres.log"
        self.port = port
        self.database = "kinto"
        self.max_connections = max_connections
        self._started = False
        self._as_postgres = os.geteuid() == 0

    @property
    def url(self) -> str:
        """SQLAlchemy URL Kinto's PostgreSQL backends use (TCP on loopback)."""
        return f"postgresql://postgres@127.0.0.1:{self.port}/{self.database}"

    @property
    def pg_ctl(self) -> str:
        return str(self.bin / "pg_ctl")

    def start(self) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        if self._as_postgres:
            shutil.chown(self.folder, user="postgres", group="postgres")
        self._run([str(self.bin / "initdb"), "-D", str(self.data), "-U", "postgres",
                   "-A", "trust", "-E", "UTF8", "--locale=C", "--no-sync"], "initdb")
        options = (f"-p {self.port} -k {self.folder} -c listen_addresses=127.0.0.1 "
                   f"-c timezone=UTC -c max_connections={self.max_connections}")
        # From here on `stop()` must act: an interrupted `pg_ctl -w start` may have started it.
        self._started = True
        self._run([self.pg_ctl, "-D", str(self.data), "-l", str(self.log), "-o", options,
                   "-w", "-t", "60", "start"], "pg_ctl start", new_session=True)
        self.psql(f"CREATE DATABASE {self.database}", database="postgres")

    def stop(self) -> None:
        if not self._started:
            return
        self._started = False
        self._run([self.pg_ctl, "-D", str(self.data), "-m", "fast", "-w", "-t", "60", "stop"],
                  "pg_ctl stop", check=False)

    def postmaster_pid(self) -> int | None:
        """The server's main process (first line of `postmaster.pid`): its backends are its children."""
        try:
            return int((self.data / "postmaster.pid").read_text().splitlines()[0])
        except (OSError, ValueError, IndexError):
            return None

    # MARK: SQL through psql

    def psql(self, sql: str | None = None, stdin: bytes | None = None, database: str | None = None) -> str:
        """Run SQL (or a script on stdin, COPY data included) and return psql's output.

        Unaligned, tuples only: one row per line, columns separated by `|`.
        """
        argv = [str(self.bin / "psql"), "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1",
                "-h", str(self.folder), "-p", str(self.port), "-U", "postgres",
                "-d", database or self.database]
        argv += ["-c", sql] if sql is not None else ["-f", "-"]
        result = subprocess.run(argv, input=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        if result.returncode != 0:
            what = sql if sql is not None else "script"
            raise PostgresError(f"psql failed on {what[:200]!r}: {result.stderr.decode(errors='replace')[-800:]}")
        return result.stdout.decode()

    # MARK: Running server commands

    def _run(self, argv: list[str], what: str, check: bool = True, new_session: bool = False) -> None:
        if self._as_postgres:
            argv = ["runuser", "-u", "postgres", "--"] + argv
        # pg_ctl's postmaster inherits this session: a Ctrl-C on the harness's terminal
        # then reaches only the harness, which stops the cluster in order.
        result = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                start_new_session=new_session)
        if check and result.returncode != 0:
            tail = result.stdout.decode(errors="replace")[-1500:]
            if self.log.exists():
                tail += "\n--- postgres.log ---\n" + self.log.read_text(errors="replace")[-1500:]
            raise PostgresError(f"{what} failed ({result.returncode}):\n{tail}")
