"""Run one client process and measure what it alone cost: wall time, CPU, peak memory.

CPU: `os.wait4` returns the resource usage of exactly the child it reaps (plus any
grandchildren that child reaped), so the figures never include the harness, the
proxy, Kinto or PostgreSQL — only the client under test.

Peak RSS needs one more step. On Linux a process's `ru_maxrss` starts from the
high-water mark of the memory it had before `exec` — for a child of the harness,
the harness's own size (a 200 MB parent makes `/bin/true` report 200 MB). So the
client is started by GNU time (`/usr/bin/time -f %M`), a 2 MB process, and its
peak RSS is the one GNU time reports for its own child. GNU time's CPU (about a
millisecond) is inside the wait4 figures; without GNU time, RSS is not reported.
"""
from __future__ import annotations

import os
import pathlib
import signal
import statistics
import subprocess
import tempfile
import threading
import time
from dataclasses import dataclass, field


# MARK: - One measured run

@dataclass
class Sample:
    """What one process run cost, and how it ended."""

    wall_s: float
    user_s: float
    sys_s: float
    maxrss_kb: int
    exit_code: int
    stdout: str = ""
    stderr: str = ""
    timed_out: bool = False
    extra: dict = field(default_factory=dict)

    @property
    def cpu_s(self) -> float:
        return self.user_s + self.sys_s

    @property
    def ok(self) -> bool:
        return self.exit_code == 0 and not self.timed_out

    def as_dict(self) -> dict:
        return {
            "wall_s": round(self.wall_s, 4),
            "user_s": round(self.user_s, 4),
            "sys_s": round(self.sys_s, 4),
            "cpu_s": round(self.cpu_s, 4),
            "maxrss_kb": self.maxrss_kb,
            "exit_code": self.exit_code,
            "timed_out": self.timed_out,
            **self.extra,
        }


GNU_TIME = pathlib.Path("/usr/bin/time")


def has_gnu_time() -> bool:
    return GNU_TIME.is_file() and os.access(GNU_TIME, os.X_OK)


def run_measured(argv: list[str], env: dict | None = None, cwd: str | None = None,
                 timeout: float = 900.0, keep_output: int = 4000) -> Sample:
    """Start `argv`, wait for it with `wait4`, and return its own rusage.

    Output goes to temporary files (never pipes, which could fill and stall the
    child); the last `keep_output` characters of each are kept for the report. A
    process still running after `timeout` seconds is killed and marked timed out.
    """
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err, \
            tempfile.NamedTemporaryFile(prefix="rss-") as rss:
        if has_gnu_time():
            argv = [str(GNU_TIME), "-f", "%M", "-o", rss.name, "--", *argv]
        started = time.perf_counter()
        proc = subprocess.Popen(argv, env=env, cwd=cwd, stdin=subprocess.DEVNULL,
                                stdout=out, stderr=err)
        killed = threading.Event()

        def kill_late():
            killed.set()
            try:
                os.kill(proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass

        timer = threading.Timer(timeout, kill_late)
        timer.daemon = True
        timer.start()
        try:
            _, status, usage = os.wait4(proc.pid, 0)
        except BaseException:
            # Ctrl-C or SIGTERM while the client runs: do not leave it behind.
            timer.cancel()
            if proc.poll() is None:
                proc.kill()
                proc.wait()
            raise
        wall = time.perf_counter() - started
        timer.cancel()
        # wait4 reaped the child; tell Popen so it does not try again.
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        stdout = out.read().decode("utf-8", "replace")
        stderr = err.read().decode("utf-8", "replace")
        maxrss = _gnu_time_rss(pathlib.Path(rss.name)) if has_gnu_time() else 0
    return Sample(wall_s=wall, user_s=usage.ru_utime, sys_s=usage.ru_stime,
                  maxrss_kb=maxrss, exit_code=proc.returncode,
                  stdout=stdout[-keep_output:], stderr=stderr[-keep_output:],
                  timed_out=killed.is_set())


def _gnu_time_rss(path: pathlib.Path) -> int:
    """The last line of GNU time's output file is `%M` (earlier lines report exit statuses)."""
    lines = [line for line in path.read_text(errors="replace").splitlines() if line.strip()]
    try:
        return int(lines[-1])
    except (IndexError, ValueError):
        return 0


# MARK: - Summaries

def spread(values: list[float]) -> dict | None:
    """Median with min and max: the figure the tables print as `median [min–max]`."""
    if not values:
        return None
    return {"median": statistics.median(values), "min": min(values), "max": max(values), "n": len(values)}


def summarize(samples: list[Sample]) -> dict:
    """Spreads of every figure over the successful samples of one contender."""
    good = [s for s in samples if s.ok]
    summary = {
        "runs": len(samples),
        "failed": len(samples) - len(good),
        "wall_s": spread([s.wall_s for s in good]),
        "cpu_s": spread([s.cpu_s for s in good]),
        "user_s": spread([s.user_s for s in good]),
        "sys_s": spread([s.sys_s for s in good]),
        "maxrss_kb": spread([float(s.maxrss_kb) for s in good if s.maxrss_kb]),
    }
    for key in ("requests", "bytes_down", "bytes_up"):
        values = [s.extra[key] for s in good if key in s.extra]
        if values:
            summary[key] = spread([float(v) for v in values])
    return summary


def median_of(summary: dict | None, key: str) -> float | None:
    """The median of one figure in a summary, or None when it was not measured."""
    if not summary or not summary.get(key):
        return None
    return summary[key]["median"]
