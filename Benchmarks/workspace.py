"""The benchmark's private temporary folder, and the sweep of ones left behind.

Everything a run creates — the PostgreSQL cluster, Kinto's ini and log, client
stores — lives in one `shelf-bench-*` folder under the system temp directory. The
folder records which process owns it and which server processes it started, so a
later run can stop and remove what a killed run (SIGKILL, power loss) left behind.
Ctrl-C and failures are handled by the normal clean-up path, not by the sweep.
"""
from __future__ import annotations

import json
import os
import pathlib
import shutil
import signal
import subprocess
import tempfile
import time

PREFIX = "shelf-bench-run-"
OWNER_FILE = "owner.json"


# MARK: - Workspace

class Workspace:
    """A fresh folder, removed (with everything in it) by `close()`."""

    def __init__(self) -> None:
        self.path = pathlib.Path(tempfile.mkdtemp(prefix=PREFIX))
        # PostgreSQL runs as the `postgres` user and must reach its folder inside.
        self.path.chmod(0o711)
        self._owner: dict = {"pid": os.getpid(), "kinto_pid": None, "pg_data": None, "pg_ctl": None}
        self._write_owner()

    def subdir(self, name: str) -> pathlib.Path:
        path = self.path / name
        path.mkdir(parents=True, exist_ok=True)
        return path

    def fresh_dir(self, prefix: str) -> pathlib.Path:
        return pathlib.Path(tempfile.mkdtemp(prefix=prefix, dir=self.path))

    def record(self, **entries) -> None:
        """Remember a started server process so a later sweep can stop it."""
        self._owner.update(entries)
        self._write_owner()

    def close(self) -> None:
        shutil.rmtree(self.path, ignore_errors=True)

    def _write_owner(self) -> None:
        (self.path / OWNER_FILE).write_text(json.dumps(self._owner))


# MARK: - Sweep of abandoned workspaces

def _alive(pid: int | None) -> bool:
    if not pid:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def sweep_abandoned(log=print) -> None:
    """Stop the servers of workspaces whose owner process is gone, then remove them."""
    for folder in pathlib.Path(tempfile.gettempdir()).glob(PREFIX + "*"):
        try:
            owner = json.loads((folder / OWNER_FILE).read_text())
        except (OSError, ValueError):
            continue
        if _alive(owner.get("pid")):
            continue
        kinto_pid = owner.get("kinto_pid")
        if _alive(kinto_pid) and b"kinto" in _cmdline(kinto_pid):
            os.kill(kinto_pid, signal.SIGTERM)
            for _ in range(50):
                if not _alive(kinto_pid):
                    break
                time.sleep(0.1)
        pg_data, pg_ctl = owner.get("pg_data"), owner.get("pg_ctl")
        if pg_data and pg_ctl and (pathlib.Path(pg_data) / "postmaster.pid").exists():
            argv = [pg_ctl, "-D", pg_data, "-m", "immediate", "stop"]
            if os.geteuid() == 0:
                argv = ["runuser", "-u", "postgres", "--"] + argv
            subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
        shutil.rmtree(folder, ignore_errors=True)
        log(f"removed an abandoned benchmark workspace: {folder}")


def _cmdline(pid: int) -> bytes:
    try:
        return pathlib.Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return b""


def exit_on_termination_signals() -> None:
    """SIGTERM and SIGHUP end a benchmark as an exception would (status 128 + signal), so
    its `finally` blocks and context managers stop every server and client it started."""
    def terminate(signum, _frame):
        raise SystemExit(128 + signum)

    signal.signal(signal.SIGTERM, terminate)
    signal.signal(signal.SIGHUP, terminate)
