#!/usr/bin/env python3
"""Shelf's benchmark harness: Shelf against kinto-http and a curl floor, on a real Kinto.

    make bench          # full: 20k and 100k records, 5 runs each (under 30 minutes)
    make bench-quick    # 20k only, 3 runs (a few minutes)
    .venv/bin/python Benchmarks/bench.py [--quick] [--runs N] [--sizes 20000,100000]
        [--shelf-sync PATH] [--shelf PATH] [--shelf-edits PATH] [--swift-json PATH] [--results DIR]

It starts a private PostgreSQL cluster and a Kinto on loopback, seeds large data
sets in bulk, puts a counting proxy in front of Kinto, runs the scenarios
(Benchmarks/README.md says what each measures), prints a table on stdout and writes
Benchmarks/results/<timestamp>.json and latest.json. Everything it started is
stopped and its temporary folder removed on success, failure, Ctrl-C or SIGTERM.
Progress goes to stderr.

`--workers N` serves Kinto as a production node does, gunicorn with N worker processes
(× `--threads`, default 2) on the same PostgreSQL, instead of one `kinto start`: pushes
that send batches side by side then meet several processes (`--push-only --workers 4`).
"""
from __future__ import annotations

import argparse
import contextlib
import importlib.metadata
import os
import pathlib
import platform
import signal
import socket
import subprocess
import sys
import time

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import contenders as plug  # noqa: E402
import guard  # noqa: E402
import report  # noqa: E402
from kinto_server import KintoServer  # noqa: E402
from postgres_cluster import PostgresCluster  # noqa: E402
from proxy import CountingProxy  # noqa: E402
from scenarios import Bench, Config  # noqa: E402
from workspace import Workspace, exit_on_termination_signals, sweep_abandoned  # noqa: E402

STARTED = time.monotonic()


def log(message: str) -> None:
    print(f"[{time.monotonic() - STARTED:7.1f}s] {message}", file=sys.stderr, flush=True)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# MARK: - Command line

def parse_args(argv: list[str]) -> Config:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="20k records only, fewer runs")
    parser.add_argument("--runs", type=int, help="runs per contender (default 5, quick 3)")
    parser.add_argument("--sizes", help="comma-separated record counts (default 20000,100000; quick 20000)")
    parser.add_argument("--shelf-sync", type=pathlib.Path, default=plug.DEFAULT_SHELF_SYNC)
    parser.add_argument("--shelf", type=pathlib.Path, default=plug.DEFAULT_SHELF)
    parser.add_argument("--shelf-edits", type=pathlib.Path, default=plug.DEFAULT_SHELF_EDITS,
                        help="saves books as local edits before a measured push")
    parser.add_argument("--swift-json", type=pathlib.Path, default=plug.DEFAULT_SWIFT_JSON)
    parser.add_argument("--results", type=pathlib.Path, default=HERE / "results")
    parser.add_argument("--push-records", help="comma-separated edits per push run (default 1000,10000; quick 1000)")
    parser.add_argument("--push-only", action="store_true", help="only the push scenarios (no seeding, no syncs)")
    parser.add_argument("--delta-records", type=int, default=100, help="books changed per delta run")
    parser.add_argument("--workers", type=int, default=0,
                        help="serve Kinto with gunicorn, N worker processes (default: one `kinto start`)")
    parser.add_argument("--threads", type=int, default=2, help="threads per gunicorn worker (with --workers)")
    parser.add_argument("--no-guard", action="store_true",
                        help="with --quick: do not compare the ratios with those committed in README.md")
    args = parser.parse_args(argv)
    if args.workers < 0 or args.threads < 1:
        parser.error("--workers must be 0 or more and --threads at least 1")
    sizes = [int(s) for s in args.sizes.split(",")] if args.sizes else ([20_000] if args.quick else [20_000, 100_000])
    if min(sizes) < 10_000:
        parser.error("sizes must be at least 10000 (one full page)")
    runs = args.runs or (3 if args.quick else 5)
    push_counts = ([int(n) for n in args.push_records.split(",")] if args.push_records
                   else ([1000] if args.quick else [1000, 10_000]))
    return Config(quick=args.quick, runs=runs, sizes=sorted(sizes), push_runs=2 if args.quick else 3,
                  read_runs=10 if args.quick else 20,
                  shelf_sync=args.shelf_sync.absolute(), shelf=args.shelf.absolute(),
                  shelf_edits=args.shelf_edits.absolute(),
                  swift_json=args.swift_json.absolute(), results_dir=args.results.absolute(),
                  push_counts=push_counts, delta_records=args.delta_records, push_only=args.push_only,
                  workers=args.workers, threads=args.threads,
                  guard=None if args.no_guard or not args.quick else HERE / "README.md")


# MARK: - Environment facts for the results file

def machine_facts(cluster: PostgresCluster) -> dict:
    def first_line(argv):
        try:
            return subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                  text=True).stdout.splitlines()[0]
        except (OSError, IndexError):
            return None

    def version(package):
        try:
            return importlib.metadata.version(package)
        except importlib.metadata.PackageNotFoundError:
            return None

    return {
        "cpus": os.cpu_count(),
        "load_average_at_start": [round(x, 2) for x in os.getloadavg()],
        "platform": platform.platform(),
        "python": platform.python_version(),
        "kinto": version("kinto"),
        "kinto_http": version("kinto-http"),
        "postgresql": cluster.psql("SHOW server_version").strip(),
        "curl": first_line(["curl", "--version"]),
        "hyperfine": first_line(["hyperfine", "--version"]),
        "commit": first_line(["git", "-C", str(HERE.parent), "rev-parse", "--short", "HEAD"]),
    }


# MARK: - Run

def run(config: Config, body=None) -> dict:
    """`body(stack, config)` (default `run_in`) with clean-up that a signal cannot interrupt."""
    sweep_abandoned(log)
    with contextlib.ExitStack() as stack:
        try:
            return (body or run_in)(stack, config)
        finally:
            # Clean-up must finish: a second Ctrl-C or SIGTERM no longer interrupts it.
            signal.signal(signal.SIGINT, signal.SIG_IGN)
            signal.signal(signal.SIGTERM, signal.SIG_IGN)


def start_servers(stack: contextlib.ExitStack, workers: int = 0,
                  threads: int = 2) -> tuple[Workspace, PostgresCluster, KintoServer, CountingProxy]:
    """The workspace, PostgreSQL, Kinto and the counting proxy, each stopped by `stack`.

    `workers` > 0: Kinto under gunicorn (kinto_server.py), PostgreSQL allowed enough
    connections for every worker thread's two pools.
    """
    workspace = Workspace()
    stack.callback(workspace.close)
    log(f"workspace {workspace.path}")

    cluster = PostgresCluster(workspace.path / "pg", free_port(),
                              max_connections=max(60, 2 * workers * threads + 20))
    workspace.record(pg_data=str(cluster.data), pg_ctl=cluster.pg_ctl)
    stack.callback(cluster.stop)
    cluster.start()
    log(f"PostgreSQL {cluster.psql('SHOW server_version').strip()} on 127.0.0.1:{cluster.port}")

    kinto = KintoServer(workspace.subdir("kinto"), cluster, free_port(), workers=workers, threads=threads)
    kinto.migrate()
    stack.callback(kinto.stop)
    kinto.start(on_spawn=lambda pid: workspace.record(kinto_pid=pid))
    log(f"Kinto on {kinto.root_url}: {kinto.description} (PostgreSQL storage, permission and cache)")

    proxy = CountingProxy("127.0.0.1", kinto.port)
    proxy.start()
    stack.callback(proxy.stop)
    return workspace, cluster, kinto, proxy


def run_in(stack: contextlib.ExitStack, config: Config) -> dict:
    workspace, cluster, kinto, proxy = start_servers(stack, config.workers, config.threads)
    bench = Bench(config, workspace, cluster, kinto, proxy, log)
    results = bench.results
    results["meta"] = {"mode": "quick" if config.quick else "full", "runs": config.runs,
                       "sizes": config.sizes, "push_runs": config.push_runs,
                       "started": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
                       "shelf_sync": str(config.shelf_sync), "shelf": str(config.shelf),
                       "shelf_edits": str(config.shelf_edits),
                       "swift_json": str(config.swift_json), "machine": machine_facts(cluster),
                       "kinto_server": {"description": kinto.description, "workers": config.workers,
                                        "threads": config.threads if config.workers else 4}}
    for note in config.notes:
        log("note: " + note)

    if config.push_only:
        bench.push()
        return finish(bench, config)
    bench.seed()
    page = bench.capture_page()
    bench.proxy_overhead()
    for size in config.sizes:
        bench.first_sync(size)
    largest = max(config.sizes)
    bench.no_change(largest)
    bench.delta(largest)
    bench.push()
    bench.memory()
    bench.local_reads()
    bench.json_throughput(page)
    return finish(bench, config)


def finish(bench: Bench, config: Config) -> dict:
    """The run's duration and the machine's load at its end, in the results."""
    results = bench.results
    results["meta"]["seconds"] = round(time.monotonic() - STARTED, 1)
    start_load = results["meta"]["machine"]["load_average_at_start"]
    end_load = [round(x, 2) for x in os.getloadavg()]
    results["meta"]["machine"]["load_average_at_end"] = end_load
    results["notes"].append(f"load average (1, 5, 15 min) at start {start_load}, at end {end_load} "
                            f"on {os.cpu_count()} CPUs: other work on the machine widens the spreads")
    return results


def main(argv: list[str]) -> int:
    config = parse_args(argv)

    exit_on_termination_signals()
    try:
        results = run(config)
    except KeyboardInterrupt:
        log("interrupted: servers stopped, workspace removed")
        return 130
    path = report.write(results, config.results_dir)
    print(report.table(results))
    for line in report.push_summary(results):
        print(line)
    worse = False
    if config.guard is not None:
        lines, worse = guard.check(results, config.guard)
        for line in lines:
            print(line)
    log(f"results: {path} (and latest.json); finished in {results['meta']['seconds']} s")
    return 3 if worse else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
