"""The pure parts of the device benchmark (bench_devices.py): schedules, attribution, figures.

Nothing here starts a process or reads a clock, so all of it is tested
(tests/test_devices.py):

- `make_schedule`: each simulated device's cron ticks over a window, compressed in time
  (a 5-minute cron becomes every `period` seconds) with jitter as systemd's
  `RandomizedDelaySec` gives, and what the device does before each sync: nothing
  (most ticks), a few local edits, or — for a device that joins mid-window — its first
  sync of a large library;
- `percentile`, `spread`: the p50/p99 the tables print;
- `attribute`: which run made each request of gunicorn's access log (the run of that
  account in flight when the response was sent);
- `parse_shelf_requests`: the request count shelf-sync logs itself, a cross-check;
- `aggregate`: one device count's figures; `saturation`: where the machine ran out;
- `plot`: the SVG of the figures against the device count.
"""
from __future__ import annotations

import math
import random
import re
from collections import Counter
from dataclasses import dataclass, field

import svg_plot

IDLE, EDITS, FIRST = "idle", "edits", "first sync"
KINDS = (IDLE, EDITS, FIRST)


# MARK: - Schedules

@dataclass(frozen=True)
class Device:
    """A simulated device: its name (home folder), its account, when it joins (None: primed)."""

    name: str
    user: str
    joins_at: float | None = None


@dataclass(frozen=True)
class Tick:
    """One cron tick: at `at` seconds into the window, `device` runs `edits` edits, then a sync."""

    at: float
    device: str
    kind: str
    edits: int = 0


def make_schedule(devices: list[Device], duration: float, period: float, jitter: float,
                  edit_share: float, max_edits: int = 3, seed: int = 0) -> list[Tick]:
    """Every device's ticks within [0, duration), in time order.

    A primed device's first tick falls uniformly in [0, period) — devices were switched on
    at random moments, so their crons are out of phase — and each next one `period` later,
    moved by up to ±`jitter`. Each tick is an edit run with probability `edit_share`
    (1 to `max_edits` local edits first), else an idle run. A joining device has no tick
    before `joins_at`; its first is then its first sync, and it ticks on from there.
    """
    if period <= 0 or jitter < 0 or jitter >= period:
        raise ValueError("need period > 0 and 0 <= jitter < period")
    rng = random.Random(seed)
    ticks = []
    for device in devices:
        if device.joins_at is None:
            at = rng.uniform(0, period)
            first = False
        else:
            at = device.joins_at
            first = True
        while at < duration:
            if first:
                ticks.append(Tick(at, device.name, FIRST))
                first = False
            elif rng.random() < edit_share:
                ticks.append(Tick(at, device.name, EDITS, rng.randint(1, max_edits)))
            else:
                ticks.append(Tick(at, device.name, IDLE))
            at += period + rng.uniform(-jitter, jitter)
    return sorted(ticks, key=lambda t: (t.at, t.device))


def join_times(count: int, duration: float, seed: int = 0) -> list[float]:
    """When the joining devices arrive: spread over the window's second to sixth tenth,
    so each first sync meets the steady load and leaves time for the ticks after it."""
    rng = random.Random(f"join-{seed}")
    return sorted(rng.uniform(0.1 * duration, 0.6 * duration) for _ in range(count))


# MARK: - Percentiles

def percentile(values: list[float], q: float) -> float | None:
    """The q-th percentile (0–100) with linear interpolation between closest ranks.

    The same definition as numpy's default and the `statistics` module's "inclusive"
    quantiles, so p50 is the median and p100 the maximum.
    """
    if not values:
        return None
    if not 0 <= q <= 100:
        raise ValueError("q must be within 0..100")
    ordered = sorted(values)
    position = (len(ordered) - 1) * q / 100
    low = math.floor(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def spread(values: list[float]) -> dict | None:
    """n, p50, p99, max and mean of a list of figures (None when it is empty)."""
    if not values:
        return None
    return {"n": len(values), "p50": percentile(values, 50), "p99": percentile(values, 99),
            "max": max(values), "mean": sum(values) / len(values)}


# MARK: - Which run made which request

@dataclass
class Run:
    """One sync run as the harness saw it (Unix times), and what it did."""

    device: str
    user: str
    kind: str
    scheduled: float          # seconds into the window
    started: float            # Unix time the sync process was started
    ended: float              # Unix time it was reaped
    exit_code: int
    cpu_s: float = 0.0        # the sync process's own user+sys
    edits: int = 0
    edits_s: float = 0.0      # wall of the edit commands before it (not in the run's wall)
    edits_cpu_s: float = 0.0
    shelf_requests: int | None = None   # what shelf-sync's last log line says
    requests: int = 0                   # counted in the access log
    statuses: Counter = field(default_factory=Counter)
    ambiguous: int = 0
    error: str | None = None

    @property
    def wall_s(self) -> float:
        return self.ended - self.started


def attribute(runs: list[Run], accesses: list, slack_s: float = 1.0) -> dict:
    """Credit every access-log line to the run of its account in flight when it was answered.

    A line belongs to a run of its user whose [started, ended + slack] holds the line's end
    time (the slack covers a response logged just after the client exited). One device
    never runs twice at a time, so for accounts of one device there is one candidate;
    devices sharing an account can overlap, and then the latest-started candidate gets the
    line and it counts as `ambiguous`. Lines of no run (the harness's own requests,
    unknown users) are counted as `unattributed`. Returns those two totals.
    """
    by_user: dict[str, list[Run]] = {}
    for run in runs:
        by_user.setdefault(run.user, []).append(run)
    for user_runs in by_user.values():
        user_runs.sort(key=lambda r: r.started)
    unattributed = ambiguous = 0
    for access in accesses:
        candidates = [r for r in by_user.get(access.user, ())
                      if r.started <= access.end <= r.ended + slack_s]
        if not candidates:
            unattributed += 1
            continue
        run = max(candidates, key=lambda r: r.started)
        run.requests += 1
        run.statuses[str(access.status)] += 1
        if len(candidates) > 1:
            run.ambiguous += 1
            ambiguous += 1
    return {"unattributed": unattributed, "ambiguous": ambiguous}


SHELF_SUMMARY = re.compile(r"\((\d+) requests?, [\d.]+ ?m?s\)")


def parse_shelf_requests(log: str) -> int | None:
    """The request count in shelf-sync's last `… (N requests, T ms)` line, if it logged one.

    An idle run logs `nothing to do (1 request, 164 ms)`, a run with work
    `sync finished: synced (8 requests, 241 ms)`.
    """
    found = SHELF_SUMMARY.findall(log)
    return int(found[-1]) if found else None


# MARK: - One device count's figures

def round_or_none(value: float | None, digits: int = 4) -> float | None:
    return None if value is None else round(value, digits)


def _ms(summary: dict | None) -> dict | None:
    if summary is None:
        return None
    return {k: (v if k == "n" else round(v * 1000, 1)) for k, v in summary.items()}


def aggregate(runs: list[Run], *, devices: int, window_s: float, offered: int, skipped: int,
              server_cpu_s: dict, harness_cpu_s: float, machine_busy_cores: float | None,
              cpus: int, attribution: dict, schedule_s: float | None = None) -> dict:
    """The figures of one window: runs, wall p50/p99 (per kind too), requests, errors, CPU.

    `window_s` is the time from the first tick to the last run's end (the drain included),
    over which CPU is measured and runs are done; `schedule_s` (default: the same) the
    span the ticks were spread over. `server_cpu_s` maps a server ("kinto", "postgresql")
    to the CPU seconds its processes used during the window (procstat.py); per run is
    that over the runs done. `offered` is the ticks the schedule held, `skipped` those that came while the device's previous run
    was still going (a systemd timer skips them; cron would pile them up). The clients'
    CPU is the runs' own (`wait4`): the syncs', and the edit commands' before them.
    """
    done = len(runs)
    client_cpu_s = sum(r.cpu_s for r in runs)
    edits_cpu_s = sum(r.edits_cpu_s for r in runs)
    walls = [r.wall_s for r in runs]
    exit_codes = Counter(str(r.exit_code) for r in runs)
    statuses: Counter = Counter()
    for run in runs:
        statuses.update(run.statuses)
    failed = [r for r in runs if r.exit_code != 0]
    kinds = {}
    for kind in KINDS:
        mine = [r for r in runs if r.kind == kind]
        if not mine:
            continue
        kinds[kind] = {"runs": len(mine), "wall_ms": _ms(spread([r.wall_s for r in mine])),
                       "requests": spread([float(r.requests) for r in mine]),
                       "failed": sum(1 for r in mine if r.exit_code != 0)}
    server_total = sum(server_cpu_s.values())
    cpu = {
        **{f"{name}_s": round(value, 2) for name, value in server_cpu_s.items()},
        **{f"{name}_ms_per_run": round_or_none(1000 * value / done if done else None, 1)
           for name, value in server_cpu_s.items()},
        "server_ms_per_run": round_or_none(1000 * server_total / done if done else None, 1),
        "client_s": round(client_cpu_s, 2),
        "client_ms_per_run": round_or_none(1000 * client_cpu_s / done if done else None, 1),
        "edits_s": round(edits_cpu_s, 2),
        "harness_s": round(harness_cpu_s, 2),
        **{f"{name}_cores": round(value / window_s, 3) for name, value in server_cpu_s.items()},
        "client_cores": round(client_cpu_s / window_s, 3),
        "ours_cores": round((server_total + client_cpu_s + edits_cpu_s + harness_cpu_s) / window_s, 3),
        "machine_busy_cores": round_or_none(machine_busy_cores, 3),
        "cpus": cpus,
    }
    requests = [float(r.requests) for r in runs]
    shelf_counts = [r.shelf_requests for r in runs if r.shelf_requests is not None]
    return {
        "devices": devices,
        "window_s": round(window_s, 1),
        "schedule_s": round(schedule_s or window_s, 1),
        "ticks_offered": offered,
        "ticks_skipped": skipped,
        "runs_done": done,
        "runs_per_s": round(done / window_s, 3) if window_s else None,
        "offered_per_s": round(offered / (schedule_s or window_s), 3) if (schedule_s or window_s) else None,
        "wall_ms": _ms(spread(walls)),
        "by_kind": kinds,
        "requests_per_run": round_or_none(sum(requests) / done if done else None, 3),
        "requests": spread(requests),
        "shelf_logged_requests_per_run": round_or_none(
            sum(shelf_counts) / len(shelf_counts) if shelf_counts else None, 3),
        "http_statuses": dict(sorted(statuses.items())),
        "http_errors": sum(n for status, n in statuses.items() if int(status) >= 500),
        "exit_codes": dict(sorted(exit_codes.items())),
        "failed_runs": len(failed),
        "errors": [f"{r.device} ({r.kind}): exit {r.exit_code}: {r.error or ''}"[:300] for r in failed[:10]],
        "attribution": attribution,
        "cpu": cpu,
    }


def saturation(figures: list[dict], busy_fraction: float = 0.9) -> dict:
    """Where the benchmark saturated the machine, with the signs that say so.

    Signs, per device count: the benchmark's own processes (Kinto, PostgreSQL, clients,
    harness) used `busy_fraction` of the cores; runs fell behind the schedule (ticks
    skipped because the device was still syncing, or runs not done); p99 wall past 4×
    the smallest count's. `at_devices` is the first count with a sign (None: none).
    The machine being busy is reported apart (`machine_busy`): on a shared machine other
    work (a build) can fill the cores at any device count, and that is not this load's
    ceiling, though it lowers it.
    """
    ordered = sorted(figures, key=lambda f: f["devices"])
    if not ordered:
        return {"at_devices": None, "signs": {}, "machine_busy": {}}
    base_p99 = (ordered[0].get("wall_ms") or {}).get("p99")
    signs: dict[str, list[str]] = {}
    busy: dict[str, str] = {}
    for f in ordered:
        found = []
        cpu = f["cpu"]
        cores = cpu["cpus"]
        if cpu["ours_cores"] >= busy_fraction * cores:
            found.append(f"the benchmark's processes used {cpu['ours_cores']:.2f} of {cores} cores")
        machine = cpu.get("machine_busy_cores")
        if machine is not None and machine >= busy_fraction * cores:
            busy[str(f["devices"])] = (f"{machine:.2f} of {cores} cores busy, "
                                       f"{max(0.0, machine - cpu['ours_cores']):.2f} of them other work")
        offered, skipped = f["ticks_offered"], f["ticks_skipped"]
        if offered and skipped / offered > 0.01:
            found.append(f"{skipped} of {offered} ticks skipped (device still syncing)")
        elif offered and f["runs_done"] < 0.95 * (offered - skipped):
            found.append(f"only {f['runs_done']} of {offered - skipped} runs done")
        p99 = (f.get("wall_ms") or {}).get("p99")
        if base_p99 and p99 and f is not ordered[0] and p99 > 4 * base_p99:
            found.append(f"p99 wall {p99:.0f} ms, {p99 / base_p99:.1f}× the {ordered[0]['devices']}-device p99")
        if found:
            signs[str(f["devices"])] = found
    first = next((f["devices"] for f in ordered if str(f["devices"]) in signs), None)
    return {"at_devices": first, "signs": signs, "machine_busy": busy}


# MARK: - Plot

def plot(figures: list[dict], title: str) -> str:
    """Four panels against the device count (log axis): server CPU per run, run wall,
    cores used (with the machine's total, so saturation shows), and runs per second."""
    ordered = sorted(figures, key=lambda f: f["devices"])

    def series(name: str, pick) -> svg_plot.Series:
        points = [(float(f["devices"]), pick(f)) for f in ordered]
        return svg_plot.Series(name, [(x, y) for x, y in points if y is not None])

    x_label = "simulated devices (log scale)"
    # Series names stay under 18 characters: the legend column is 160 px wide.
    cpu_per_run = svg_plot.Panel("CPU per sync run", "ms of CPU", [
        series("Kinto (gunicorn)", lambda f: f["cpu"].get("kinto_ms_per_run")),
        series("PostgreSQL", lambda f: f["cpu"].get("postgresql_ms_per_run")),
        series("shelf-sync client", lambda f: f["cpu"].get("client_ms_per_run")),
    ], x_label=x_label)
    wall = svg_plot.Panel("sync run wall time", "ms", [
        series("p50", lambda f: (f.get("wall_ms") or {}).get("p50")),
        series("p99", lambda f: (f.get("wall_ms") or {}).get("p99")),
        series("idle runs p99", lambda f: ((f["by_kind"].get(IDLE) or {}).get("wall_ms") or {}).get("p99")),
    ], x_label=x_label)
    cpus = max((f["cpu"]["cpus"] for f in ordered), default=0)
    # The gap between the first two lines is other work on the machine (a build).
    cores = svg_plot.Panel(f"cores busy during the window (of {cpus})", "cores", [
        series("all processes", lambda f: f["cpu"].get("machine_busy_cores")),
        series("this benchmark", lambda f: f["cpu"].get("ours_cores")),
        series("Kinto + Postgres", lambda f: f["cpu"].get("kinto_cores", 0) + f["cpu"].get("postgresql_cores", 0)),
        series("shelf-sync", lambda f: f["cpu"].get("client_cores")),
    ], x_label=x_label)
    rate = svg_plot.Panel("sync runs per second", "runs / s", [
        series("scheduled", lambda f: f.get("offered_per_s")),
        series("done", lambda f: f.get("runs_per_s")),
    ], x_label=x_label)
    return svg_plot.figure(title, [cpu_per_run, wall, cores, rate])


def compare_plot(before: list[dict], after: list[dict], title: str, labels: tuple[str, str] = ("before", "after")) -> str:
    """Two runs of the fleet side by side (an engine before and after a change, or one server
    without and with a plugin, named by `labels`): server CPU per run, runs per second done,
    run wall p99, and the cores other work took meanwhile."""
    def series(name: str, figures: list[dict], pick) -> svg_plot.Series:
        points = [(float(f["devices"]), pick(f)) for f in sorted(figures, key=lambda f: f["devices"])]
        return svg_plot.Series(name, [(x, y) for x, y in points if y is not None])

    def server(f: dict) -> float | None:
        cpu = f["cpu"]
        kinto, pg = cpu.get("kinto_ms_per_run"), cpu.get("postgresql_ms_per_run")
        return None if kinto is None or pg is None else kinto + pg

    def other(f: dict) -> float | None:
        cpu = f["cpu"]
        busy, ours = cpu.get("machine_busy_cores"), cpu.get("ours_cores")
        return None if busy is None or ours is None else max(0.0, busy - ours)

    x_label = "simulated devices (log scale)"
    return svg_plot.figure(title, [
        svg_plot.Panel("server CPU per run (Kinto + PostgreSQL)", "ms", [
            series(labels[0], before, server), series(labels[1], after, server)], x_label=x_label),
        svg_plot.Panel("sync runs per second done", "runs / s", [
            series(labels[0], before, lambda f: f.get("runs_per_s")), series(labels[1], after, lambda f: f.get("runs_per_s")),
            series("scheduled", after, lambda f: f.get("offered_per_s"))],
            x_label=x_label),
        svg_plot.Panel("sync run wall p99", "ms", [
            series(labels[0], before, lambda f: (f.get("wall_ms") or {}).get("p99")),
            series(labels[1], after, lambda f: (f.get("wall_ms") or {}).get("p99"))], x_label=x_label),
        svg_plot.Panel("cores other work took (of the machine's 2)", "cores", [
            series(labels[0], before, other), series(labels[1], after, other)], x_label=x_label),
    ])
