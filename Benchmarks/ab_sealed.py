#!/usr/bin/env python3
"""Two builds of shelf-sync, first syncs of one sealed and one plaintext library, side by side.

    .venv/bin/python Benchmarks/ab_sealed.py --build A=PATH --build B=PATH [--books 100000] [--rounds 4]
        [--shelf PATH] [--results DIR]

A change on the sealed path puts its figures before and after in its note, and one run of
`make bench-sealed` per build cannot show a change of a few percent: the same build's first
sync of 100,000 books moves by a third from one run to the next on this machine. This runs
both builds in one session instead, on one seeded pair of accounts (`bench_sealed.py`'s
servers and seeding: PostgreSQL, Kinto, the counting proxy, the books sealed offline), each
round alternating the builds and the contenders with fresh devices (a sealed device joins
first, not measured), and the order reversed every other round.

Each run's client CPU (user + sys, `measure.run_measured`) and wall go to stderr as it ends;
the medians, each build's sealed/plaintext ratio and each contender's B/A ratio go to stdout,
every run to DIR/ab-sealed-<timestamp>.json. A run that fails, or pulls fewer books than were
seeded, fails the whole comparison (exit 1).
"""
from __future__ import annotations

import argparse
import contextlib
import json
import os
import pathlib
import shutil
import statistics
import sys
import time

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import contenders as plug  # noqa: E402
import seeding  # noqa: E402
import sealed_library as sealing  # noqa: E402
from bench import log  # noqa: E402
from bench_sealed import FIRST_SYNC_ARGS, PLAIN, SEALED, Config, SealedBench, start_servers  # noqa: E402
from workspace import exit_on_termination_signals, sweep_abandoned  # noqa: E402


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build", action="append", required=True, metavar="NAME=PATH",
                        help="a shelf-sync to measure, named (give two or more)")
    parser.add_argument("--books", type=int, default=100_000, help="books in each library (default 100000)")
    parser.add_argument("--rounds", type=int, default=4, help="first syncs per build and contender (default 4)")
    parser.add_argument("--shelf", type=pathlib.Path, default=plug.DEFAULT_SHELF, help="the shelf that joins sealed devices")
    parser.add_argument("--results", type=pathlib.Path, default=HERE / "results")
    args = parser.parse_args(argv)
    builds = {}
    for given in args.build:
        name, _, path = given.partition("=")
        if not name or not path:
            parser.error(f"--build {given}: expected NAME=PATH")
        if name in builds:
            parser.error(f"--build {name} is given twice")
        if not plug.executable(pathlib.Path(path)):
            parser.error(f"--build {name}: {path} is not an executable")
        builds[name] = pathlib.Path(path).absolute()
    if len(builds) < 2:
        parser.error("give at least two --build NAME=PATH")
    if args.books < 1000 or args.rounds < 1:
        parser.error("--books must be at least 1000 and --rounds at least 1")
    if not plug.executable(args.shelf):
        parser.error(f"--shelf {args.shelf} is not an executable: run `make bench-build`")
    args.builds = builds
    return args


def run(args: argparse.Namespace) -> dict:
    config = Config(sizes=[args.books], runs=args.rounds, idle_runs=1, window_records=0, window_wait_s=61.0,
                    push_edits=0, push_runs=1, shelf_sync=next(iter(args.builds.values())), shelf=args.shelf.absolute(),
                    shelf_edits=args.shelf.absolute(), results_dir=args.results.absolute())
    runs: list[dict] = []
    with contextlib.ExitStack() as stack:
        workspace, cluster, kinto, proxy = start_servers(stack)
        bench = SealedBench(config, workspace, cluster, kinto, proxy)
        books = sealing.with_lineage(seeding.BookGenerator(seed=args.books).books(args.books), seed=args.books)
        accounts = {name: bench.seed(name, f"ab-{name}-{args.books}", books, 0) for name in (PLAIN, SEALED)}
        log(f"seeded {args.books} books for each contender")
        for round_ in range(args.rounds):
            order = [(build, contender) for build in args.builds for contender in (PLAIN, SEALED)]
            if round_ % 2:
                order.reverse()
            for build, contender in order:
                device = bench.device(contender, accounts[contender], f"ab{round_}-{build}")
                bench.config.shelf_sync = args.builds[build]
                sample = bench.sync(device, "first", FIRST_SYNC_ARGS)
                pulled = (sample.extra.get("books") or {}).get("pulled")
                shutil.rmtree(device.target.home, ignore_errors=True)
                if not sample.ok or pulled != args.books:
                    raise RuntimeError(f"round {round_ + 1}, {build} {contender}: exit {sample.exit_code}, "
                                       f"pulled {pulled} of {args.books}: {sample.stderr.strip()[-300:]}")
                runs.append({"round": round_ + 1, "build": build, "contender": contender, **sample.as_dict()})
                log(f"round {round_ + 1} {build:<10} {contender:<9} cpu {sample.cpu_s:6.3f} s  "
                    f"wall {sample.wall_s:6.3f} s  load {sample.extra['load'][0]}")
    return {"books": args.books, "rounds": args.rounds, "builds": {k: str(v) for k, v in args.builds.items()},
            "load_average_at_end": [round(x, 2) for x in os.getloadavg()], "runs": runs}


def table(results: dict) -> str:
    def median(build: str, contender: str) -> float:
        return statistics.median(r["cpu_s"] for r in results["runs"] if r["build"] == build and r["contender"] == contender)

    builds = list(results["builds"])
    first = builds[0]
    lines = [f"first sync of {results['books']} books, client CPU s, median of {results['rounds']}",
             "| build | plaintext | sealed | sealed/plaintext | plaintext vs " + first + " | sealed vs " + first + " |",
             "|---|---:|---:|---:|---:|---:|"]
    for build in builds:
        plain, sealed = median(build, PLAIN), median(build, SEALED)
        lines.append(f"| {build} | {plain:.3f} | {sealed:.3f} | {sealed / plain:.2f}× | "
                     f"{plain / median(first, PLAIN):.2f}× | {sealed / median(first, SEALED):.2f}× |")
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    args = parse_args(argv)
    exit_on_termination_signals()
    sweep_abandoned(log)
    try:
        results = run(args)
    except KeyboardInterrupt:
        log("interrupted: servers stopped, workspace removed")
        return 130
    except RuntimeError as error:
        log(f"failed: {error}")
        return 1
    path = args.results.absolute() / f"ab-sealed-{time.strftime('%Y%m%d-%H%M%S')}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(results, indent=1))
    print(table(results))
    log(f"results: {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
