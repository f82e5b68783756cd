"""CPU time of server processes from /proc, and gunicorn's access log read back.

The device benchmark charges each server its own CPU: Kinto's (the gunicorn master and
its workers, or the one `kinto start`) and PostgreSQL's (the postmaster and every backend
it forked). Processes come and go between two readings — a PostgreSQL backend for each
new connection — so a tree's CPU is summed over its live processes *with* their reaped
children (`cutime`/`cstime`): a backend that exited moved its time into the postmaster's
children's time when it was reaped, and is counted once either way.

`/proc/<pid>/stat` is parsed after the last `)`: the command name (field 2) may itself
hold spaces and parentheses.
"""
from __future__ import annotations

import os
import pathlib
from dataclasses import dataclass

PROC = pathlib.Path("/proc")
CLOCK_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


# MARK: - One process

@dataclass(frozen=True)
class ProcStat:
    pid: int
    comm: str
    ppid: int
    utime: int    # clock ticks
    stime: int
    cutime: int   # reaped children's, clock ticks
    cstime: int

    @property
    def ticks(self) -> int:
        """Own and reaped children's CPU, user and system."""
        return self.utime + self.stime + self.cutime + self.cstime


def parse_stat(text: str) -> ProcStat:
    """`/proc/<pid>/stat` → the fields the CPU accounting needs."""
    head, _, rest = text.rpartition(")")
    pid_text, _, comm = head.partition(" (")
    fields = rest.split()
    # After the name: state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt
    # utime stime cutime cstime … (fields 3 to 17 of proc(5)).
    return ProcStat(pid=int(pid_text), comm=comm, ppid=int(fields[1]), utime=int(fields[11]),
                    stime=int(fields[12]), cutime=int(fields[13]), cstime=int(fields[14]))


def read_stat(pid: int, proc: pathlib.Path = PROC) -> ProcStat | None:
    try:
        return parse_stat((proc / str(pid) / "stat").read_text())
    except (OSError, ValueError, IndexError):
        return None


def all_stats(proc: pathlib.Path = PROC) -> dict[int, ProcStat]:
    """Every live process's stat, by pid (those that exit while being read are left out)."""
    stats = {}
    for entry in proc.iterdir():
        if entry.name.isdigit():
            stat = read_stat(int(entry.name), proc)
            if stat is not None:
                stats[stat.pid] = stat
    return stats


# MARK: - Process trees

def descendants(root: int, stats: dict[int, ProcStat]) -> list[int]:
    """Children, grandchildren… of `root` among `stats`, breadth first."""
    by_parent: dict[int, list[int]] = {}
    for stat in stats.values():
        by_parent.setdefault(stat.ppid, []).append(stat.pid)
    found, frontier = [], [root]
    while frontier:
        nxt = []
        for pid in frontier:
            kids = sorted(by_parent.get(pid, []))
            found += kids
            nxt += kids
        frontier = nxt
    return found


def children(pid: int, proc: pathlib.Path = PROC) -> list[int]:
    """The live direct children of `pid`."""
    return sorted(s.pid for s in all_stats(proc).values() if s.ppid == pid)


def tree_ticks(root: int, stats: dict[int, ProcStat]) -> int:
    """CPU ticks of `root` and its descendants, reaped children's included (module doc)."""
    pids = [root, *descendants(root, stats)] if root in stats else []
    return sum(stats[pid].ticks for pid in pids)


def ticks_to_s(ticks: int) -> float:
    return ticks / CLOCK_TICKS


# MARK: - The whole machine

def parse_machine(text: str) -> tuple[int, int]:
    """`/proc/stat`'s `cpu` line → (busy ticks, all ticks), all CPUs together.

    Busy is everything but idle and iowait; guest time is already inside user.
    """
    for line in text.splitlines():
        if line.startswith("cpu "):
            values = [int(v) for v in line.split()[1:]]
            idle = values[3] + (values[4] if len(values) > 4 else 0)
            total = sum(values[:8])  # user nice system idle iowait irq softirq steal
            return total - idle, total
    raise ValueError("no cpu line in /proc/stat")


def machine_ticks(proc: pathlib.Path = PROC) -> tuple[int, int]:
    return parse_machine((proc / "stat").read_text())


# MARK: - gunicorn's access log (kinto_server.ACCESS_FORMAT)

@dataclass(frozen=True)
class Access:
    end: float        # Unix time the response was sent
    user: str         # Basic-auth user, "-" without credentials
    method: str
    path: str
    status: int
    seconds: float    # time gunicorn spent on the request
    worker: int


def parse_access_line(line: str) -> Access | None:
    """One access-log line, or None for a line that is not one (a truncated last line)."""
    parts = line.split()
    if len(parts) != 8 or not (parts[7].startswith("<") and parts[7].endswith(">")):
        return None
    try:
        return Access(end=float(parts[0]), user=parts[1], method=parts[2], path=parts[3],
                      status=int(parts[4]), seconds=float(parts[6]), worker=int(parts[7][1:-1]))
    except ValueError:
        return None


def read_access_log(path: pathlib.Path, offset: int = 0) -> tuple[list[Access], int]:
    """The complete lines written from byte `offset` on, and the offset after them."""
    try:
        with path.open("rb") as handle:
            handle.seek(offset)
            data = handle.read()
    except FileNotFoundError:
        return [], offset
    end = data.rfind(b"\n") + 1
    lines = data[:end].decode("utf-8", "replace").splitlines()
    return [a for a in map(parse_access_line, lines) if a is not None], offset + end
