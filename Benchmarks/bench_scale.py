#!/usr/bin/env python3
"""Shelf's scale curve: first sync, idle run, 100 changed, reconciliation and a search at
10k, 100k and 1M records.

    make bench-scale                                  # 10k, 100k, 1M (well under 30 minutes)
    make bench-scale BENCH_ARGS="--sizes 10000,100000"
    .venv/bin/python Benchmarks/bench_scale.py [--sizes 10000,100000,1000000] [--runs N]
        [--large-runs N] [--read-runs N] [--shelf-sync PATH] [--shelf PATH] [--swift-json PATH]
        [--results DIR] [--delta-records N] [--window-wait SECONDS]

The same servers, data, contenders and measurements as bench.py (Benchmarks/README.md),
at more sizes; scale.py says what runs at each size. Prints a table of per-record
client CPU, peak RSS, wall and requests with ratios, whether the scale targets hold,
and the like-for-like storage race (bytes → stored records, Shelf against
storage_race.py on the same page); writes every run's figures to
Benchmarks/results/scale-<timestamp>.json (and scale-latest.json) and the plot to
Benchmarks/results/scale.svg.
"""
from __future__ import annotations

import argparse
import contextlib
import os
import pathlib
import sys
import time

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import contenders as plug  # noqa: E402
import report  # noqa: E402
import scale  # noqa: E402
from bench import STARTED, log, machine_facts, run, start_servers  # noqa: E402
from scenarios import Config  # noqa: E402
from workspace import exit_on_termination_signals  # noqa: E402

DEFAULT_SIZES = [10_000, 100_000, 1_000_000]
# From this size on a first sync is run `--large-runs` times per contender (a million
# records take minutes for kinto-http; one run each keeps the whole under 30 minutes).
LARGE = 500_000


# MARK: - Command line

def parse_args(argv: list[str]) -> tuple[Config, int]:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", help="comma-separated record counts (default 10000,100000,1000000)")
    parser.add_argument("--runs", type=int, default=3, help="first-sync runs per contender below 500k, "
                        "and idle and delta runs at every size (default 3)")
    parser.add_argument("--large-runs", type=int, default=1, help="first-sync runs per contender from 500k (default 1)")
    parser.add_argument("--read-runs", type=int, default=10, help="searches per size (default 10)")
    parser.add_argument("--shelf-sync", type=pathlib.Path, default=plug.DEFAULT_SHELF_SYNC)
    parser.add_argument("--shelf", type=pathlib.Path, default=plug.DEFAULT_SHELF)
    parser.add_argument("--swift-json", type=pathlib.Path, default=plug.DEFAULT_SWIFT_JSON)
    parser.add_argument("--results", type=pathlib.Path, default=HERE / "results")
    parser.add_argument("--delta-records", type=int, default=100, help="books changed per delta run")
    parser.add_argument("--window-wait", type=float, default=61.0, metavar="SECONDS",
                        help="after the last delta run, wait this long before the idle runs 'after the window' "
                             "(default 61: Shelf's commit window is 60 s; less only for tests)")
    args = parser.parse_args(argv)
    try:
        sizes = sorted({int(s) for s in args.sizes.split(",")}) if args.sizes else DEFAULT_SIZES
    except ValueError:
        parser.error(f"--sizes takes whole numbers separated by commas, not {args.sizes!r}")
    if min(sizes) < 10_000:
        parser.error("sizes must be at least 10000 (one full page)")
    if min(args.runs, args.large_runs, args.read_runs) < 1:
        parser.error("--runs, --large-runs and --read-runs must be at least 1")
    if args.delta_records < 1 or args.delta_records > min(sizes):
        parser.error("--delta-records must be between 1 and the smallest size")
    config = Config(quick=False, runs=args.runs, sizes=sizes, push_runs=0, read_runs=args.read_runs,
                    shelf_sync=args.shelf_sync.absolute(), shelf=args.shelf.absolute(),
                    shelf_edits=pathlib.Path("/nonexistent/not-used-by-the-scale-curve"),
                    swift_json=args.swift_json.absolute(), results_dir=args.results.absolute(),
                    delta_records=args.delta_records, window_wait_s=max(0.0, args.window_wait))
    return config, args.large_runs


# MARK: - Run

def run_scale(stack: contextlib.ExitStack, config: Config, large_runs: int) -> dict:
    workspace, cluster, kinto, proxy = start_servers(stack)
    bench = scale.ScaleBench(config, workspace, cluster, kinto, proxy, log)
    # The scale curve pushes nothing: the note about the push helper does not apply.
    config.notes[:] = [n for n in config.notes if "shelf-bench-local-edits" not in n]
    results = bench.results
    results["meta"] = {"mode": "scale", "runs": config.runs, "large_runs": large_runs, "sizes": config.sizes,
                       "started": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
                       "shelf_sync": str(config.shelf_sync), "shelf": str(config.shelf),
                       "swift_json": str(config.swift_json), "machine": machine_facts(cluster)}
    for note in config.notes:
        log("note: " + note)

    bench.seed()
    page = bench.capture_page()
    with_limit = bench.limit_supported()
    if bench.shelf_ok and not with_limit:
        config.notes.append("`shelf books` has no --limit option yet: searches are measured unlimited only")
    for size in config.sizes:
        bench.first_sync_counted(size, large_runs if size >= LARGE else config.runs)
        if bench.continued(size):
            bench.no_change(size)
            bench.delta(size)
            bench.reconcile(size)
        bench.searches(size, with_limit)
        bench.forget(size)
    bench.json_throughput(page)

    results["targets"] = scale.targets(results)
    results["meta"]["seconds"] = round(time.monotonic() - STARTED, 1)
    start_load = results["meta"]["machine"]["load_average_at_start"]
    end_load = [round(x, 2) for x in os.getloadavg()]
    results["meta"]["machine"]["load_average_at_end"] = end_load
    results["notes"].append(f"load average (1, 5, 15 min) at start {start_load}, at end {end_load} "
                            f"on {os.cpu_count()} CPUs: other work on the machine widens the spreads")
    return results


def main(argv: list[str]) -> int:
    config, large_runs = parse_args(argv)

    exit_on_termination_signals()
    try:
        results = run(config, lambda stack, config: run_scale(stack, config, large_runs))
    except KeyboardInterrupt:
        log("interrupted: servers stopped, workspace removed")
        return 130
    path = report.write(results, config.results_dir, prefix="scale-")
    svg = config.results_dir / "scale.svg"
    svg.write_text(scale.plot(results))
    print(scale.scale_table(results))
    log(f"results: {path} (and scale-latest.json), plot {svg}; finished in {results['meta']['seconds']} s")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
