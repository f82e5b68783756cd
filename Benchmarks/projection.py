#!/usr/bin/env python3
"""What a fleet of Shelf devices costs the servers: a model fed by measured per-run costs.

    python3 Benchmarks/projection.py [--devices 10000,100000,1000000] [--results DIR] [--json]

Every input below is a figure measured on this machine (Benchmarks/README.md, "A projection
to a million devices", says by which command and when) or a stated assumption of the mix.
For each device count the model adds up one day of every device's runs — idle runs, runs
that push edits, first syncs of new devices, daily reconciliations — for Shelf as it was
before range reconciliation ("today"), after it ("after"), after it with the worker
resting after idle runs (`shelf-sync --rest-when-idle 4`: "after, resting 4"; a tick that
rests asks the server nothing, `contact_share` below), and after it on a Kinto that keeps the
bucket's history ("after, bucket history": idle runs read it, writes cost a history row), and
gives:

- **server cores**: Kinto's and PostgreSQL's CPU seconds a day, divided by the seconds of a
  day, times the peak factor (cron ticks bunch up; the busiest minute against the average);
- **PostgreSQL**: statements a second (an idle run's, counted in process with cProfile over
  Kinto's app: 78 through the `default` alias, 66 naming the bucket), and rows written a
  second (one per pushed edit, and its timestamp row);
- **egress**: bytes the servers send a day, and requests a second.

It prints one table (Markdown) and writes the plot to `results/projection.svg` (server
cores and egress against devices, both engines); `make bench-projection` turns it into a
PNG with rsvg-convert when librsvg2-bin is installed.
"""
from __future__ import annotations

import argparse
import json
import pathlib
import sys
from dataclasses import asdict, dataclass, replace

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from svg_plot import Panel, Series, figure  # noqa: E402


# MARK: - Inputs

@dataclass(frozen=True)
class Costs:
    """What one operation costs, measured (Benchmarks/README.md names each measurement)."""
    idle_server_ms: float           # Kinto + PostgreSQL CPU of an idle run (one POST /batch)
    idle_bytes: float               # bytes the server sends for it
    idle_queries: float             # SQL statements Kinto runs for it (SQLAlchemy's count, in process)
    edit_server_ms: float           # Kinto + PostgreSQL CPU per pushed edit (batched, 25 a request)
    edit_bytes: float               # bytes sent back per pushed edit
    first_sync_server_ms_per_record: float
    first_sync_bytes_per_record: float
    reconcile_server_ms: float      # one daily reconciliation of the mix's library (all its collections)
    reconcile_bytes: float
    reconcile_requests: float
    rest_when_idle: int = 1         # the worker's `--rest-when-idle N` (1: every tick asks the server)
    extra_per_edit: float = 0       # SQL statements and rows a pushed record adds beyond the mix's (a history entry)


@dataclass(frozen=True)
class Mix:
    """How a device is used: assumptions, stated."""
    period_min: float = 5           # the cron period (shelf-sync's documented crontab line)
    edit_run_share: float = 0.05    # runs that push something: a reader edits in one run of twenty
    edits_per_edit_run: float = 2
    remote_change_share: float = 0.0  # runs that find another device's change (the reader's other devices)
    library: int = 10_000           # records of the device's reader (the figure)
    new_device_share: float = 0.002  # devices syncing for the first time a day (a new device every ~18 months)
    peak_factor: float = 2.0        # the busiest minute against the day's average (ticks jittered by cron)
    queries_per_edit: float = 6.0   # SQL statements per pushed record (a write, its timestamp, permissions)

    @property
    def runs_per_day(self) -> float:
        return 24 * 60 / self.period_min


# The measured inputs, per engine (Benchmarks/README.md, "A projection to a million devices",
# names each run): "today" is Shelf before this round's changes, "after" is Shelf now.
# - idle run: `make bench-devices`' idle probe, one device alone on gunicorn 4 × 2 (server
#   CPU from /proc, 30 runs); bytes from `make bench-scale`'s proxy (the run's response);
# - an edit pushed: the push benchmark's Kinto + PostgreSQL CPU per record (1,000 edits,
#   batches of 25, gunicorn 4 × 2), the same for both engines (the body differs by a few bytes);
# - a first sync: the server's CPU of a 100,000-book first sync on `kinto start` (0.019 ms a
#   record), bytes from `make bench-scale` (302 bytes a record);
# - a daily reconciliation of a 10,000-book library and its six small collections:
#   `make bench-scale` at 10k, the run's server CPU and bytes less an idle run's (the whole
#   list for "today", ranges for "after").
ENGINES: dict[str, Costs] = {
    "today": Costs(
        idle_server_ms=80.3, idle_bytes=6_000, idle_queries=78,
        edit_server_ms=13.0, edit_bytes=420,
        first_sync_server_ms_per_record=0.019, first_sync_bytes_per_record=302,
        reconcile_server_ms=160.0, reconcile_bytes=750_000, reconcile_requests=5),
    "after": Costs(
        idle_server_ms=78.3, idle_bytes=6_000, idle_queries=66,
        edit_server_ms=13.0, edit_bytes=420,
        first_sync_server_ms_per_record=0.019, first_sync_bytes_per_record=302,
        reconcile_server_ms=140.0, reconcile_bytes=72_000, reconcile_requests=5),
}


ENGINES["after, resting 4"] = replace(ENGINES["after"], rest_when_idle=4)

# On a Kinto with `kinto.plugins.history` an idle run reads the bucket's history instead of
# every collection (`HistoryGate`), and every write adds a history row. Measured side by side,
# without and with the plugin, on 2026-12-07 (Benchmarks/README.md, "Reading the bucket's
# history"), and applied to "after" as ratios, since that session's machine was faster than
# the one "after" was measured on:
# - the idle run's server CPU: `make bench-devices`' idle probe, 53.3–62.0 ms (median 56.0)
#   without, 14.8–24.5 ms (median 17.9) with: × 0.32;
# - the bytes of its answer: 5,312 → 973 (the two batches' bodies): × 0.18;
# - its SQL statements, counted by PostgreSQL (`log_statement = all`): 12 (the ordinary
#   batch counted 64 the same way, against cProfile's 66);
# - a pushed record: 7.45–9.25 ms (mean 8.2) of the server's CPU without, 7.95–10.55 ms
#   (mean 9.1) with, 12.2 → 14.2 statements: × 1.11, and two more statements and rows (the
#   history entry and its permission) per record.
ENGINES["after, bucket history"] = replace(
    ENGINES["after"], idle_server_ms=round(78.3 * 17.9 / 56.0, 1), idle_bytes=round(6_000 * 973 / 5_312),
    idle_queries=12, edit_server_ms=round(13.0 * 9.1 / 8.2, 1), extra_per_edit=2)
ENGINES["after, bucket history, resting 4"] = replace(ENGINES["after, bucket history"], rest_when_idle=4)


# MARK: - The model

def contact_share(local_change_share: float, longest: int, remote_change_share: float = 0.0,
                  most_idle_runs: int = 24) -> float:
    """The share of ticks that ask the server when the worker rests after idle runs, as
    `IdleRest` (Modules/Sync/Rules/IdleRest.swift) decides: before a tick the reader makes a
    local change with probability `local_change_share` (it is sent at once, and its run,
    bringing nothing, keeps the streak), and a run finds another device's change with
    probability `remote_change_share` (it ends the streak); the n-th idle run in a row rests
    min(2^(n-1), longest) − 1 ticks. The chain's stationary distribution, by iteration (exact
    to ~1e-9; no sampling)."""
    if longest <= 1:
        return 1.0
    # states: (idle runs in a row, capped; ticks left to rest) -> probability
    states = {(0, 0): 1.0}
    contacts = 0.0
    for _ in range(2_000):
        nxt: dict[tuple[int, int], float] = {}
        contacts = 0.0
        for (runs, rest), p in states.items():
            asks = p if rest == 0 else p * local_change_share
            if rest > 0:
                nxt[(runs, rest - 1)] = nxt.get((runs, rest - 1), 0.0) + p - asks
            contacts += asks
            # a run: another device's change ends the streak; otherwise it lengthens
            nxt[(0, 0)] = nxt.get((0, 0), 0.0) + asks * remote_change_share
            after = min(runs + 1, most_idle_runs)
            spacing = min(1 << min(after - 1, 20), longest)
            nxt[(after, spacing - 1)] = nxt.get((after, spacing - 1), 0.0) + asks * (1 - remote_change_share)
        states = nxt
    return contacts



def day(costs: Costs, mix: Mix, devices: int) -> dict:
    """One day of `devices` devices: totals, and the peak load they make."""
    ticks = devices * mix.runs_per_day
    # NB: a rested tick costs the server nothing; every edit run asks it.
    runs = ticks * contact_share(mix.edit_run_share, costs.rest_when_idle, mix.remote_change_share)
    edit_runs = ticks * mix.edit_run_share
    edits = edit_runs * mix.edits_per_edit_run
    first_syncs = devices * mix.new_device_share
    server_ms = (runs * costs.idle_server_ms + edits * costs.edit_server_ms
                 + first_syncs * mix.library * costs.first_sync_server_ms_per_record
                 + devices * costs.reconcile_server_ms)
    egress = (runs * costs.idle_bytes + edits * costs.edit_bytes
              + first_syncs * mix.library * costs.first_sync_bytes_per_record + devices * costs.reconcile_bytes)
    requests = runs + edit_runs + first_syncs * (mix.library / 10_000 + 7) + devices * costs.reconcile_requests
    queries = runs * costs.idle_queries + edits * (mix.queries_per_edit + costs.extra_per_edit)
    seconds = 86_400
    return {
        "devices": devices,
        "runs_asking_per_tick": round(runs / ticks, 3),
        "server_cpu_s": round(server_ms / 1000),
        "server_cores_average": round(server_ms / 1000 / seconds, 2),
        "server_cores_peak": round(server_ms / 1000 / seconds * mix.peak_factor, 1),
        "share_idle": round(runs * costs.idle_server_ms / server_ms, 3),
        "share_reconcile": round(devices * costs.reconcile_server_ms / server_ms, 3),
        "pg_queries_per_s": round(queries / seconds * mix.peak_factor),
        "pg_rows_written_per_s": round((2 + costs.extra_per_edit) * edits / seconds * mix.peak_factor, 1),
        "egress_gb_per_day": round(egress / 1e9, 1),
        "requests_per_s": round(requests / seconds * mix.peak_factor),
    }


def project(device_counts: list[int], mix: Mix = Mix()) -> dict:
    return {"mix": asdict(mix), "inputs": {name: asdict(costs) for name, costs in ENGINES.items()},
            "days": {name: [day(costs, mix, n) for n in device_counts] for name, costs in ENGINES.items()}}


# MARK: - Output

def table(projection: dict) -> str:
    header = ("devices", "engine", "server cores (avg / peak)", "idle runs", "reconciliation",
              "PostgreSQL queries/s (peak)", "rows written/s (peak)", "egress GB/day", "requests/s (peak)")
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    counts = [d["devices"] for d in next(iter(projection["days"].values()))]
    for index, count in enumerate(counts):
        for name, days in projection["days"].items():
            d = days[index]
            lines.append(f"| {count:,} | {name} | {d['server_cores_average']:,} / {d['server_cores_peak']:,} | "
                         f"{d['share_idle']:.0%} | {d['share_reconcile']:.0%} | {d['pg_queries_per_s']:,} | "
                         f"{d['pg_rows_written_per_s']:,} | {d['egress_gb_per_day']:,} | {d['requests_per_s']:,} |")
    return "\n".join(lines)


def plot(projection: dict) -> str:
    def series(key: str) -> list[Series]:
        return [Series(f"{name}", [(d["devices"], d[key]) for d in days]) for name, days in projection["days"].items()]
    return figure("Shelf devices on Kinto: one day, today's engine, after range reconciliation, resting, and reading the history",
                  [Panel("server cores at the peak (Kinto + PostgreSQL)", "cores", series("server_cores_peak"), "devices (log scale)"),
                   Panel("egress a day", "GB", series("egress_gb_per_day"), "devices (log scale)")])


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--devices", default="10000,100000,1000000")
    parser.add_argument("--results", type=pathlib.Path, default=HERE / "results")
    parser.add_argument("--json", action="store_true", help="print the whole projection as JSON too")
    args = parser.parse_args(argv)
    counts = [int(n) for n in args.devices.split(",")]
    projection = project(counts)
    args.results.mkdir(parents=True, exist_ok=True)
    (args.results / "projection.svg").write_text(plot(projection))
    (args.results / "projection.json").write_text(json.dumps(projection, indent=2))
    print(table(projection))
    if args.json:
        print(json.dumps(projection, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
