#!/usr/bin/env python3
"""End-to-end encryption's cost, beside plaintext in one run: `make bench-sealed`.

    .venv/bin/python Benchmarks/bench_sealed.py [--sizes 10000,100000] [--runs 5] [--idle-runs 3]
        [--window-records 1000] [--window-wait 61] [--push-edits 1000] [--push-runs 3]
        [--shelf-sync PATH] [--shelf PATH] [--shelf-edits PATH] [--results DIR]

A private PostgreSQL and Kinto on loopback (as `make bench`), a counting proxy in front.
At each size two accounts hold the same books, one in the clear and one sealed (format 2,
sealed offline by `sealed_library.py` and seeded in bulk), and fresh devices alternate
between them, each run in a fresh home:

1. **first sync** (`shelf-sync`, release) into an empty store; a sealed device has run
   `shelf encryption join` first (not measured);
2. **the run after it**, which builds the two order indexes a first sync leaves to it
   (`ListingIndexes`), on a row of its own; then **idle, within the commit window**:
   `--idle-runs` runs on that store right after it
   (the window's records, `--window-records`, come back and are dropped);
3. once `--window-wait` seconds have passed since the last first sync: **idle, first after
   the window** (one run per store: it still asks from the settled stamp, so it brings
   the window's records once more) and **idle, after it** (`--idle-runs` runs per store);

then **push**: per run and contender a fresh account of `--push-edits` books, a device
synced with it (not measured), the same books retitled as local edits
(`shelf-bench-local-edits`, not measured), and the measured `shelf-sync` that pushes them.

Every client figure is the client process's own (`measure.run_measured`: wall, user+sys
CPU from wait4, peak RSS); requests and bytes from the proxy; Kinto's and PostgreSQL's CPU
for each push from /proc (`procstat`). The targets of issue 29 are judged on the medians:
first sync CPU ≤ 1.3× plaintext (at the largest size), push wall ≤ 1.1×, idle runs one
request and CPU ≤ 1.3× within the window and after it. The table goes to stdout, progress
to stderr, every run's figures to Benchmarks/results/sealed-<timestamp>.json and
sealed-latest.json.
"""
from __future__ import annotations

import argparse
import contextlib
import json
import os
import pathlib
import secrets
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import contenders as plug  # noqa: E402
import late_commits  # noqa: E402
from bench import STARTED, free_port, log  # noqa: E402
import procstat  # noqa: E402
import seeding  # noqa: E402
import sealed_library as sealing  # noqa: E402
from contenders import Target  # noqa: E402
from kinto_api import Account, KintoAPI  # noqa: E402
from kinto_server import KintoServer  # noqa: E402
from measure import Sample, median_of, run_measured, spread, summarize  # noqa: E402
from postgres_cluster import PostgresCluster  # noqa: E402
from proxy import CountingProxy, Traffic  # noqa: E402
from workspace import Workspace, exit_on_termination_signals, sweep_abandoned  # noqa: E402

PLAIN, SEALED = "plaintext", "sealed"
CONTENDERS = (PLAIN, SEALED)
# A first sync of a large sealed library can outlast shelf-sync's default budget (60 s),
# which would end it part-way (the next run goes on): both contenders' first syncs get a
# budget a whole library fits in, as `make bench`'s pushes do (`contenders.SHELF_PUSH_ARGS`).
FIRST_SYNC_ARGS = ["--budget", "30m"]
CLIENT_TIMEOUT_S = 35 * 60
PAGE_LIMIT = 10_000
# issue 29, item 10.
FIRST_SYNC_CPU, PUSH_WALL, IDLE_CPU, IDLE_REQUESTS = 1.3, 1.1, 1.3, 1
FIRST_SYNC, NEXT_RUN, WITHIN, FIRST_AFTER, AFTER, PUSH = (
    "first sync", "the run after it (order indexes a bulk load left)", "idle, within the window", "idle, first after it",
    "idle, after it", "push")


def load_average() -> list[float]:
    return [round(x, 2) for x in os.getloadavg()]


# MARK: - Command line

@dataclass
class Config:
    sizes: list[int]
    runs: int
    idle_runs: int
    window_records: int
    window_wait_s: float
    push_edits: int
    push_runs: int
    shelf_sync: pathlib.Path
    shelf: pathlib.Path
    shelf_edits: pathlib.Path
    results_dir: pathlib.Path
    notes: list[str] = field(default_factory=list)


def parse_args(argv: list[str]) -> Config:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="10000,100000", help="comma-separated library sizes (books)")
    parser.add_argument("--runs", type=int, default=5, help="first syncs per contender and size")
    parser.add_argument("--idle-runs", type=int, default=3, help="idle runs per store, within the window and after it")
    parser.add_argument("--window-records", type=int, default=1000,
                        help="books stamped inside the commit window of the first sync (default 1000)")
    parser.add_argument("--window-wait", type=float, default=61.0,
                        help="seconds after the last first sync before the runs after the window")
    parser.add_argument("--push-edits", type=int, default=1000, help="edits per push (0: no push)")
    parser.add_argument("--push-runs", type=int, default=3, help="pushes per contender")
    parser.add_argument("--shelf-sync", type=pathlib.Path, default=plug.DEFAULT_SHELF_SYNC)
    parser.add_argument("--shelf", type=pathlib.Path, default=plug.DEFAULT_SHELF)
    parser.add_argument("--shelf-edits", type=pathlib.Path, default=plug.DEFAULT_SHELF_EDITS)
    parser.add_argument("--results", type=pathlib.Path, default=HERE / "results")
    args = parser.parse_args(argv)
    sizes = sorted(int(s) for s in args.sizes.split(",") if s)
    if not sizes or min(sizes) < 1000:
        parser.error("sizes must be at least 1000")
    if args.runs < 1 or args.idle_runs < 1 or args.push_runs < 1 or args.push_edits < 0:
        parser.error("--runs, --idle-runs and --push-runs must be at least 1, --push-edits 0 or more")
    if not 0 <= args.window_records <= min(min(sizes), sealing.MAX_WINDOW_RECORDS):
        parser.error(f"--window-records must be 0 to {min(min(sizes), sealing.MAX_WINDOW_RECORDS)}")
    if args.window_wait < sealing.COMMIT_WINDOW_MS / 1000:
        parser.error("--window-wait must be at least the commit window, 60 s")
    for name, path in (("--shelf-sync", args.shelf_sync), ("--shelf", args.shelf), ("--shelf-edits", args.shelf_edits)):
        if not plug.executable(path):
            parser.error(f"{name} {path} is not an executable: run `make bench-build` "
                         "(or swift build -c release --static-swift-stdlib --product …)")
    return Config(sizes=sizes, runs=args.runs, idle_runs=args.idle_runs, window_records=args.window_records,
                  window_wait_s=args.window_wait, push_edits=args.push_edits, push_runs=args.push_runs,
                  shelf_sync=args.shelf_sync.absolute(), shelf=args.shelf.absolute(),
                  shelf_edits=args.shelf_edits.absolute(), results_dir=args.results.absolute())


# MARK: - The bench

@dataclass
class Device:
    """One fresh device of one contender: its home, and when its first sync ended."""

    contender: str
    target: Target
    synced_at: float = 0.0


class SealedBench:
    def __init__(self, config: Config, workspace: Workspace, cluster: PostgresCluster,
                 kinto: KintoServer, proxy: CountingProxy) -> None:
        self.config = config
        self.ws = workspace
        self.cluster = cluster
        self.kinto = kinto
        self.proxy = proxy
        self.server = proxy.root_url + "/v1"
        self.key = sealing.AccountKey.make(secrets.token_urlsafe(24))
        self.passphrase_file = workspace.path / "passphrase"
        self.passphrase_file.write_text(self.key.passphrase)
        self.passphrase_file.chmod(0o600)
        self.results: dict = {"scenarios": [], "setup": {"key_id": self.key.kid, "kdf": {
            "ops": sealing.KDF_OPS, "mem": sealing.KDF_MEM}}, "notes": config.notes, "complete": False}
        self.results_path = config.results_dir / f"sealed-{time.strftime('%Y%m%d-%H%M%S')}.json"

    # MARK: Seeding

    def seed(self, contender: str, user: str, books: list[dict], window: int) -> Account:
        """An account of `contender` holding `books` (bulk), the small collections and the
        shop; sealed: its small collections sealed over, and the keyring. Then the newest
        `window` books restamped inside one commit window."""
        account = Account(user, secrets.token_hex(12))
        records = books if contender == PLAIN else sealing.sealed_records(books, "books", self.key.data_key)
        started = time.perf_counter()
        facts = seeding.seed_account(self.cluster, self.kinto.root_url, account, records, PAGE_LIMIT)
        if contender == SEALED:
            self.seal_small_collections(account)
            api = KintoAPI(self.kinto.root_url, account)
            try:
                api.json("PUT", "/v1/buckets/default/collections/shelf-keys/records/keyring",
                         {"data": self.key.keyring})
            finally:
                api.close()
        parent_id = f"/buckets/{facts['bucket_id']}/collections/books"
        moved = sealing.restamped(self.cluster.psql(stdin=sealing.window_sql(parent_id, window).encode()))
        if moved != max(window - 1, 0):
            raise RuntimeError(f"{user}: restamped {moved} books into the window, expected {window - 1}")
        facts.update(contender=contender, window_records=window, seed_s=round(time.perf_counter() - started, 2))
        self.results["setup"].setdefault("accounts", []).append(facts)
        return account

    def seal_small_collections(self, account: Account) -> None:
        """notes, tasks and cart from Fixtures/seed, sealed over the plaintext ones
        `seeding.seed_account` wrote, as `enable`'s migration leaves them."""
        script = seeding._seed_script()
        reader = script.auth_header(account.user, account.password)
        for name in seeding.SMALL_COLLECTIONS:
            records = sealing.with_lineage(script.load(name), seed=len(name))
            script.put_records(self.kinto.root_url, reader, "default", name,
                               sealing.sealed_records(records, name, self.key.data_key))

    # MARK: Devices

    def device(self, contender: str, account: Account, tag: str) -> Device:
        """A fresh home; a sealed device joins (not measured)."""
        device = Device(contender, Target(self.server, account, self.ws.fresh_dir(f"{tag}-{contender}-")))
        if contender == SEALED:
            env = {**plug.client_env(device.target), "SHELF_PASSPHRASE_FILE": str(self.passphrase_file)}
            result = subprocess.run([str(self.config.shelf), "encryption", "join"], env=env, stdin=subprocess.DEVNULL,
                                    stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=120)
            if result.returncode != 0:
                raise RuntimeError(f"shelf encryption join exited {result.returncode}: "
                                   f"{result.stderr.decode(errors='replace').strip()[-400:]}")
        return device

    def sync(self, device: Device, tag: str, extra: list[str] | None = None) -> Sample:
        """One measured `shelf-sync --report` of `device`, through the proxy, with the
        report's books figures and the load average at its start."""
        report = device.target.home / f"report-{tag}.json"
        report.unlink(missing_ok=True)
        argv = [*plug.shelf_sync_reporting(self.config.shelf_sync, report), *(extra or [])]
        load = load_average()
        self.proxy.traffic.take()
        sample = run_measured(argv, env=plug.client_env(device.target), timeout=CLIENT_TIMEOUT_S)
        sample.extra.update(Traffic.summary(self.proxy.traffic.take()))
        sample.extra["load"] = load
        parsed = late_commits.read_report(report)
        books = ((parsed or {}).get("accounts") or [{}])[0].get("collections", {}).get("books")
        sample.extra["books"] = books
        if sample.ok and not isinstance(books, dict):
            fail(sample, "no books figures in the report")
        elif sample.ok and (books.get("refused") or books.get("rolled_back")):
            fail(sample, f"the device refused records: {books}")
        return sample

    def progress(self, what: str, device: Device, sample: Sample) -> None:
        books = sample.extra.get("books") or {}
        state = "ok" if sample.ok else f"FAILED ({sample.extra.get('error') or sample.exit_code})"
        log(f"{what:<32} {device.contender:<9} wall {sample.wall_s:7.3f} s  cpu {sample.cpu_s:6.3f} s  "
            f"rss {sample.maxrss_kb / 1024:6.1f} MB  req {sample.extra.get('requests', '—')}  "
            f"pulled {books.get('pulled', '—')}  pushed {books.get('pushed', '—')}  load {sample.extra['load'][0]}  {state}")
        if not sample.ok and sample.stderr.strip():
            log("    stderr: " + sample.stderr.strip().splitlines()[-1][:300])

    # MARK: First syncs and idle runs

    def size(self, size: int) -> None:
        books = sealing.with_lineage(seeding.BookGenerator(seed=size).books(size), seed=size)
        accounts = {name: self.seed(name, f"{name}-{size}", books, self.config.window_records) for name in CONTENDERS}
        log(f"seeded {size} books for each contender ({self.config.window_records} in the commit window)")
        samples: dict[str, dict[str, list[Sample]]] = {name: {} for name in CONTENDERS}
        devices: list[Device] = []
        # NB: no unmeasured first sync to warm caches: seeding paged through both libraries
        # through Kinto just now (`seeding.seed_account` checks them), which warms PostgreSQL,
        # and the release binary is read once here; a sealed warm-up would cost as much as
        # a measured run.
        subprocess.run([str(self.config.shelf_sync), "--version"], stdout=subprocess.DEVNULL, check=False)
        for run in range(self.config.runs):
            for name in CONTENDERS if run % 2 == 0 else tuple(reversed(CONTENDERS)):
                device = self.device(name, accounts[name], f"s{size}-{run}")
                sample = self.sync(device, "first", FIRST_SYNC_ARGS)
                device.synced_at = time.monotonic()
                if sample.ok and (sample.extra["books"] or {}).get("pulled") != size:
                    fail(sample, f"pulled {sample.extra['books'].get('pulled')} books, expected {size}")
                samples[name].setdefault(FIRST_SYNC, []).append(sample)
                self.progress(f"first sync {size} #{run + 1}", device, sample)
                if not sample.ok:
                    shutil.rmtree(device.target.home, ignore_errors=True)
                    continue
                devices.append(device)
                # NB: a first sync leaves the two order indexes to the next run (`ListingIndexes`):
                # that run is measured on its own row, so the idle rows show the window's cost.
                sample = self.sync(device, "next")
                samples[name].setdefault(NEXT_RUN, []).append(sample)
                self.progress(f"run after the first sync {size} #{run + 1}", device, sample)
                for idle in range(self.config.idle_runs):
                    since = time.monotonic() - device.synced_at
                    sample = self.sync(device, f"within-{idle}")
                    sample.extra["since_first_sync_s"] = round(since, 1)
                    if sample.ok and since + sample.wall_s > (sealing.COMMIT_WINDOW_MS - 10_000) / 1000:
                        fail(sample, f"started {since:.0f} s after the first sync: not within the window")
                    samples[name].setdefault(WITHIN, []).append(sample)
                    self.progress(f"idle in window {size} #{run + 1}.{idle + 1}", device, sample)
        checks = {name: self.count_books(next(d for d in devices if d.contender == name), size)
                  for name in CONTENDERS if any(d.contender == name for d in devices)}
        wait = max(d.synced_at for d in devices) + self.config.window_wait_s - time.monotonic() if devices else 0
        if wait > 0:
            log(f"waiting {wait:.0f} s for the commit window to pass")
            time.sleep(wait)
        for device in devices:
            sample = self.sync(device, "after-first")
            samples[device.contender].setdefault(FIRST_AFTER, []).append(sample)
            self.progress(f"idle, first after window {size}", device, sample)
        for device in devices:
            for idle in range(self.config.idle_runs):
                sample = self.sync(device, f"after-{idle}")
                samples[device.contender].setdefault(AFTER, []).append(sample)
                self.progress(f"idle after window {size} #{idle + 1}", device, sample)
        for device in devices:
            shutil.rmtree(device.target.home, ignore_errors=True)
        for what in (FIRST_SYNC, NEXT_RUN, WITHIN, FIRST_AFTER, AFTER):
            self.entry(what, size, {name: samples[name].get(what, []) for name in CONTENDERS},
                       checks=checks if what == FIRST_SYNC else None)

    def count_books(self, device: Device, size: int) -> dict:
        """`shelf --json books` on a synced store (not timed): every book is there."""
        result = subprocess.run([*plug.shelf_books_json(self.config.shelf), "--offline"], env=plug.client_env(device.target),
                                stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=300)
        try:
            listed = json.loads(result.stdout)
            books = listed if isinstance(listed, list) else next(v for v in listed.values() if isinstance(v, list))
            count = len(books)
        except (ValueError, StopIteration):
            count = None
        ok = result.returncode == 0 and count == size
        log(f"check: {device.contender} store lists {count} books of {size}{'' if ok else ' — MISMATCH'}")
        if not ok:
            self.config.notes.append(f"{device.contender} {size}: `shelf --json books` listed {count} of {size} "
                                     f"(exit {result.returncode})")
        return {"listed": count, "expected": size, "ok": ok}

    # MARK: Push

    def push(self) -> None:
        count = self.config.push_edits
        samples: dict[str, list[Sample]] = {name: [] for name in CONTENDERS}
        for run in range(self.config.push_runs):
            books = sealing.with_lineage(seeding.BookGenerator(seed=20_000 + run).books(count), seed=run)
            edits = [{key: value for key, value in book.items() if not key.startswith("_shelf")}
                     | {"title": book["title"] + " (revised)"} for book in books]
            for name in CONTENDERS if run % 2 == 0 else tuple(reversed(CONTENDERS)):
                account = self.seed(name, f"push-{name}-{run}-{secrets.token_hex(3)}", books, 0)
                device = self.device(name, account, f"push-{run}")
                synced = self.sync(device, "synced", FIRST_SYNC_ARGS)
                self.progress(f"push {count}: its first sync", device, synced)
                if not synced.ok:
                    samples[name].append(synced)
                    continue
                prepared = self.prepare_edits(device, edits)
                if prepared is not None:
                    raise RuntimeError(f"preparing the local edits failed: {prepared}")
                before = self.newest_stamp(account)
                server_before = self.server_cpu_s()
                sample = self.sync(device, "push", plug.SHELF_PUSH_ARGS)
                sample.extra["server_cpu_s"] = round(self.server_cpu_s() - server_before, 3)
                sample.extra["batch_requests"] = sample.extra.get("by_kind", {}).get("POST /v1/batch", 0)
                written = self.written_since(account, before)
                sample.extra["server_written"] = written
                if sample.ok and ((sample.extra["books"] or {}).get("pushed") != count or written != count):
                    fail(sample, f"pushed {(sample.extra['books'] or {}).get('pushed')}, server wrote {written}, "
                                 f"expected {count}")
                samples[name].append(sample)
                self.progress(f"push {count} edits #{run + 1}", device, sample)
                shutil.rmtree(device.target.home, ignore_errors=True)
        self.entry(PUSH, count, samples)

    def prepare_edits(self, device: Device, edits: list[dict]) -> str | None:
        """The edits saved as local changes with `shelf-bench-local-edits` (not timed)."""
        result = subprocess.run(plug.shelf_push_prepare(self.config.shelf_edits, edits, device.target.home)[0],
                                env=plug.client_env(device.target), stdin=subprocess.DEVNULL,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=300)
        if result.returncode != 0:
            return f"exit {result.returncode}: {result.stderr.decode(errors='replace').strip()[-300:]}"
        return None

    def parent_filter(self, account: Account) -> str:
        api = KintoAPI(self.kinto.root_url, account)
        try:
            bucket = api.json("GET", "/v1/buckets/default")["data"]["id"]
        finally:
            api.close()
        return f"parent_id = '/buckets/{bucket}/collections/books' AND resource_name = 'record'"

    def newest_stamp(self, account: Account) -> int:
        return int(self.cluster.psql(f"SELECT as_epoch(max(last_modified)) FROM objects WHERE "
                                     f"{self.parent_filter(account)}").strip())

    def written_since(self, account: Account, stamp: int) -> int:
        """Books the server stamped after `stamp`: what a push wrote."""
        return int(self.cluster.psql(f"SELECT count(*) FROM objects WHERE {self.parent_filter(account)} "
                                     f"AND last_modified > from_epoch({stamp})").strip())

    def server_cpu_s(self) -> float:
        stats = procstat.all_stats()
        roots = [self.kinto.process.pid if self.kinto.process else None, self.cluster.postmaster_pid()]
        return procstat.ticks_to_s(sum(procstat.tree_ticks(pid, stats) for pid in roots if pid))

    # MARK: Results

    def entry(self, what: str, size: int, samples: dict[str, list[Sample]], checks: dict | None = None) -> None:
        entry = {"scenario": what, "size": size, "contenders": {}}
        for name, runs in samples.items():
            summary = summarize(runs)
            summary["load_1m"] = spread([s.extra["load"][0] for s in runs])
            if what == PUSH:
                summary["server_cpu_s"] = spread([s.extra["server_cpu_s"] for s in runs if s.ok and "server_cpu_s" in s.extra])
            pulled = [float(s.extra["books"]["pulled"]) for s in runs if s.ok and (s.extra.get("books") or {}).get("pulled") is not None]
            summary["pulled"] = spread(pulled)
            entry["contenders"][name] = {"summary": summary, "samples": [
                {**s.as_dict(), "errors": s.extra.get("error") or (s.stderr.strip()[-300:] if not s.ok else None)}
                for s in runs]}
        if checks:
            entry["checks"] = checks
        self.results["scenarios"].append(entry)
        # A long run that is stopped keeps what it measured ("complete": false).
        write(self.results, self.results_path)


def fail(sample: Sample, message: str) -> Sample:
    """A run that exited 0 but did not do its job: its figures do not count."""
    if sample.exit_code == 0:
        sample.exit_code = -1
    sample.extra["error"] = message
    return sample


# MARK: - Targets and the table

def judged(entry: dict, sizes: list[int]) -> tuple[str, float | None, str] | None:
    """The issue's target for one scenario row: (what, ratio, verdict), or None."""
    s = {name: entry["contenders"].get(name, {}).get("summary") for name in CONTENDERS}
    what, size = entry["scenario"], entry["size"]
    if what == FIRST_SYNC:
        if size != max(sizes):
            return None
        r = sealing.ratio(median_of(s[SEALED], "cpu_s"), median_of(s[PLAIN], "cpu_s"))
        return f"CPU ≤ {FIRST_SYNC_CPU}×", r, sealing.verdict(r, FIRST_SYNC_CPU)
    if what == PUSH:
        r = sealing.ratio(median_of(s[SEALED], "wall_s"), median_of(s[PLAIN], "wall_s"))
        return f"wall ≤ {PUSH_WALL}×", r, sealing.verdict(r, PUSH_WALL)
    if what in (WITHIN, AFTER):
        r = sealing.ratio(median_of(s[SEALED], "cpu_s"), median_of(s[PLAIN], "cpu_s"))
        requests = median_of(s[SEALED], "requests")
        verdict = sealing.verdict(r, IDLE_CPU)
        if requests is not None and requests > IDLE_REQUESTS and verdict != "not measured":
            verdict = "MISSED"
        return f"{IDLE_REQUESTS} request, CPU ≤ {IDLE_CPU}×", r, verdict
    return None


def _spread(summary: dict | None, key: str, scale: float = 1.0, digits: int = 3) -> str:
    value = (summary or {}).get(key)
    if not value:
        return "—"
    return (f"{value['median'] * scale:.{digits}f} [{value['min'] * scale:.{digits}f}–"
            f"{value['max'] * scale:.{digits}f}]")


def table(results: dict) -> str:
    sizes = results["meta"]["sizes"]
    header = ["records", "run", "contender", "n", "wall s", "CPU s (user+sys)", "peak RSS MB", "req",
              "KB down", "pulled", "load 1m", "sealed/plain", "target"]
    rows = [header]
    for entry in results["scenarios"]:
        target = judged(entry, sizes)
        label = f"{entry['size']:,} edits" if entry["scenario"] == PUSH else f"{entry['size']:,}"
        for name in CONTENDERS:
            s = entry["contenders"].get(name, {}).get("summary") or {}
            cpu_or_wall = "wall" if entry["scenario"] == PUSH else "CPU"
            key = "wall_s" if entry["scenario"] == PUSH else "cpu_s"
            r = sealing.ratio(median_of(entry["contenders"][SEALED]["summary"], key),
                              median_of(entry["contenders"][PLAIN]["summary"], key))
            failed = f" ({s['failed']}/{s['runs']} failed)" if s.get("failed") else ""
            rows.append([label, entry["scenario"], name, str(s.get("runs", 0) - s.get("failed", 0)) + failed,
                         _spread(s, "wall_s"), _spread(s, "cpu_s"), _spread(s, "maxrss_kb", 1 / 1024, 1),
                         _spread(s, "requests", digits=0), _spread(s, "bytes_down", 1 / 1024, 0),
                         _spread(s, "pulled", digits=0), _spread(s, "load_1m", digits=1),
                         f"{cpu_or_wall} {r:.2f}×" if name == SEALED and r is not None else "",
                         f"{target[0]}: {target[2]}" if name == SEALED and target else ""])
    widths = [max(len(row[i]) for row in rows) for i in range(len(header))]
    lines = ["  ".join(cell.ljust(width) for cell, width in zip(row, widths)).rstrip() for row in rows]
    push = next((e for e in results["scenarios"] if e["scenario"] == PUSH), None)
    if push:
        for name in CONTENDERS:
            s = push["contenders"][name]["summary"]
            lines.append(f"push, {name}: Kinto + PostgreSQL CPU {_spread(s, 'server_cpu_s')} s per push")
    lines += ["", *results["notes"]]
    return "\n".join(lines)


# MARK: - Run

def start_servers(stack: contextlib.ExitStack) -> tuple[Workspace, PostgresCluster, KintoServer, CountingProxy]:
    """Workspace, PostgreSQL, Kinto (`kinto start`) and the counting proxy, each stopped by `stack`."""
    workspace = Workspace()
    stack.callback(workspace.close)
    cluster = PostgresCluster(workspace.path / "pg", free_port())
    workspace.record(pg_data=str(cluster.data), pg_ctl=cluster.pg_ctl)
    stack.callback(cluster.stop)
    cluster.start()
    kinto = KintoServer(workspace.subdir("kinto"), cluster, free_port())
    kinto.migrate()
    stack.callback(kinto.stop)
    kinto.start(on_spawn=lambda pid: workspace.record(kinto_pid=pid))
    proxy = CountingProxy("127.0.0.1", kinto.port)
    proxy.start()
    stack.callback(proxy.stop)
    log(f"workspace {workspace.path}; PostgreSQL on {cluster.port}; Kinto on {kinto.root_url} "
        f"({kinto.description}); proxy on {proxy.port}")
    return workspace, cluster, kinto, proxy


def run(config: Config) -> dict:
    sweep_abandoned(log)
    with contextlib.ExitStack() as stack:
        try:
            workspace, cluster, kinto, proxy = start_servers(stack)
            bench = SealedBench(config, workspace, cluster, kinto, proxy)
            bench.results["meta"] = {
                "sizes": config.sizes, "runs": config.runs, "idle_runs": config.idle_runs,
                "window_records": config.window_records, "window_wait_s": config.window_wait_s,
                "push_edits": config.push_edits, "push_runs": config.push_runs,
                "started": time.strftime("%Y-%m-%dT%H:%M:%S%z"), "cpus": os.cpu_count(),
                "load_average_at_start": load_average(), "kinto_server": kinto.description,
                "postgresql": cluster.psql("SHOW server_version").strip(),
                "shelf_sync": str(config.shelf_sync), "results_file": str(bench.results_path), "commit": subprocess.run(
                    ["git", "-C", str(HERE.parent), "rev-parse", "--short", "HEAD"],
                    stdout=subprocess.PIPE, text=True).stdout.strip()}
            for size in config.sizes:
                bench.size(size)
            if config.push_edits:
                bench.push()
            results = bench.results
            results["complete"] = True
            results["meta"]["load_average_at_end"] = load_average()
            results["meta"]["seconds"] = round(time.monotonic() - STARTED, 1)
            results["notes"].append(
                f"load average (1, 5, 15 min) at start {results['meta']['load_average_at_start']}, at end "
                f"{results['meta']['load_average_at_end']} on {os.cpu_count()} CPUs; medians [min–max]")
            write(results, bench.results_path)
            return results
        finally:
            # Clean-up must finish: a second Ctrl-C or SIGTERM no longer interrupts it.
            signal.signal(signal.SIGINT, signal.SIG_IGN)
            signal.signal(signal.SIGTERM, signal.SIG_IGN)


def write(results: dict, path: pathlib.Path) -> None:
    """The results to `path` and to sealed-latest.json beside it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(results, indent=1, ensure_ascii=False)
    path.write_text(text)
    (path.parent / "sealed-latest.json").write_text(text)


def main(argv: list[str]) -> int:
    config = parse_args(argv)
    exit_on_termination_signals()
    try:
        results = run(config)
    except KeyboardInterrupt:
        log("interrupted: servers stopped, workspace removed")
        return 130
    print(table(results))
    log(f"results: {results['meta']['results_file']} (and sealed-latest.json); finished in {results['meta']['seconds']} s")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
