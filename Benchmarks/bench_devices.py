#!/usr/bin/env python3
"""Many Shelf devices syncing on cron against one multi-process Kinto: `make bench-devices`.

    make bench-devices                         # 10, 50, 200 devices, 4 gunicorn workers
    make bench-devices WORKERS=2
    .venv/bin/python Benchmarks/bench_devices.py [--devices 10,50,200] [--workers 4] [--threads 2]
        [--window 60] [--period 10] [--jitter 2] [--edit-share 0.2] [--shared 3]
        [--joins-per 50] [--library 10000] [--rest-when-idle N] [--history] [--shelf-sync PATH]
        [--shelf PATH] [--results DIR]

A private PostgreSQL and Kinto under gunicorn (kinto_server.py) on 127.0.0.1, then a
fleet that grows size by size: every device is its own HOME/XDG folders and store, of
its own reader (one account each; Basic auth, so an account is a user:password pair
and signing up costs no password hashing: each reader's bucket and collections are
created with one batch request, in bulk, before its device's first sync). Three more
devices share one account (their edits reach each other). Per size:

1. the new readers are enrolled and their devices primed (one first sync each, four at
   a time, not part of the figures);
2. `--joins-per` sets how many readers (one per that many devices, at least one) each
   get a 10,000-book library COPYed in bulk (seeding.py); their devices join mid-window
   with an empty store, so the window holds that many first syncs of 10k records;
3. for `--window` seconds every device runs the release `shelf-sync` on its own
   compressed cron: every `--period` s (a 5-minute cron, 300/period times faster) moved
   by up to ±`--jitter` s, out of phase with the others; a tick that finds the device's
   previous run still going is skipped, as a systemd timer does. Before `--edit-share`
   of the runs the device makes 1–3 local edits with the release `shelf` (`book add`,
   `task add`); the other runs find nothing changed locally. With `--rest-when-idle N`
   every tick runs `shelf-sync --rest-when-idle N`, which after idle runs rests (no
   request, exit 0) and asks the server every 2nd, 4th … up to every Nth tick. With
   `--history` Kinto loads `kinto.plugins.history`, which Shelf finds in its capabilities:
   an idle run then reads the bucket's history instead of every collection (`HistoryGate`).

Measured per size: runs done and skipped, each run's wall (p50/p99, per kind), its
requests (gunicorn's access log, credited to the run in flight for that account, and
shelf-sync's own count), exit codes and HTTP errors, and CPU: Kinto's (gunicorn master +
workers) and PostgreSQL's (postmaster + backends) from /proc, the clients' from wait4,
the machine's from /proc/stat. Results: a table on stdout, every figure in
Benchmarks/results/devices-<timestamp>.json (and devices-latest.json), the plot in
Benchmarks/results/devices.svg. Everything started is stopped at the end, on failure,
Ctrl-C or SIGTERM; a run killed with SIGKILL is swept by the next one (workspace.py).
"""
from __future__ import annotations

import argparse
import contextlib
import dataclasses
import json
import os
import pathlib
import resource
import secrets
import select
import signal
import subprocess
import sys
import time
from collections import deque
from concurrent.futures import ThreadPoolExecutor

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import contenders as plug  # noqa: E402
import devices as dv  # noqa: E402
import procstat  # noqa: E402
import report  # noqa: E402
import seeding  # noqa: E402
from bench import free_port, log  # noqa: E402
from contenders import Target  # noqa: E402
from kinto_api import Account, KintoAPI  # noqa: E402
from kinto_server import KintoServer  # noqa: E402
from postgres_cluster import PostgresCluster  # noqa: E402
from workspace import Workspace, exit_on_termination_signals, sweep_abandoned  # noqa: E402

# The reader's collections in the default bucket that shelf-sync pulls (its first sync asks
# for these six and the shared shop/products).
READER_COLLECTIONS = ("books", "notes", "tasks", "cart", "preferences", "sessions")
PROCESS_TIMEOUT_S = 120     # any one shelf / shelf-sync process (shelf-sync's budget is 60 s)
PRIME_PARALLEL = 4          # first syncs side by side while priming
TOTAL_BUDGET_S = 14 * 60    # a size that would start after this is left out, with a note


@dataclasses.dataclass
class Config:
    sizes: list[int]
    workers: int
    threads: int
    window_s: float
    period_s: float
    jitter_s: float
    edit_share: float
    shared: int
    joins_per: int
    library: int
    drain_s: float
    shelf_sync: pathlib.Path
    shelf: pathlib.Path
    results_dir: pathlib.Path
    seed: int
    idle_runs: int = 30
    rest_when_idle: int = 1
    history: bool = False


def parse_args(argv: list[str]) -> Config:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--devices", default="10,50,200", help="device counts, one window each (the fleet grows)")
    parser.add_argument("--workers", type=int, default=4, help="gunicorn worker processes for Kinto")
    parser.add_argument("--threads", type=int, default=2, help="threads per worker")
    parser.add_argument("--window", type=float, default=60, help="seconds of cron load per device count")
    parser.add_argument("--period", type=float, default=10, help="seconds between a device's ticks (its 5 minutes)")
    parser.add_argument("--jitter", type=float, default=2, help="each tick moved by up to ± this many seconds")
    parser.add_argument("--edit-share", type=float, default=0.2, help="share of runs after 1–3 local edits")
    parser.add_argument("--shared", type=int, default=3, help="extra devices sharing one account (0: none)")
    parser.add_argument("--joins-per", type=int, default=50,
                        help="one device joining with a first sync of --library books per this many devices")
    parser.add_argument("--library", type=int, default=10_000, help="books of a joining device's reader")
    parser.add_argument("--drain", type=float, default=30, help="seconds runs in flight may take after the window")
    parser.add_argument("--shelf-sync", type=pathlib.Path, default=plug.DEFAULT_SHELF_SYNC)
    parser.add_argument("--shelf", type=pathlib.Path, default=plug.DEFAULT_SHELF)
    parser.add_argument("--results", type=pathlib.Path, default=HERE / "results")
    parser.add_argument("--seed", type=int, default=1, help="seed of the schedules and edits")
    parser.add_argument("--rest-when-idle", type=int, default=1,
                        help="pass shelf-sync --rest-when-idle N on every tick (1: ask the server at every tick)")
    parser.add_argument("--idle-runs", type=int, default=30,
                        help="idle runs of one device alone on the server, before the windows (server CPU per run)")
    parser.add_argument("--history", action="store_true",
                        help="Kinto keeps every bucket's history (kinto.plugins.history), which idle runs read")
    args = parser.parse_args(argv)
    sizes = sorted(int(n) for n in args.devices.split(","))
    if min(sizes) < 1 or max(sizes) > 500:
        parser.error("device counts must be within 1..500")
    if args.workers < 1 or args.threads < 1:
        parser.error("--workers and --threads must be at least 1")
    if not 0 <= args.jitter < args.period:
        parser.error("need 0 <= --jitter < --period")
    if not 1 <= args.rest_when_idle <= 64:
        parser.error("--rest-when-idle must be within 1..64")
    if args.window <= 0 or args.window > 300:
        parser.error("--window must be within (0, 300] seconds")
    for path, flag in ((args.shelf_sync, "--shelf-sync"), (args.shelf, "--shelf")):
        if not plug.executable(path):
            parser.error(f"{flag} {path} is not an executable: build it with "
                         "`swift build -c release --static-swift-stdlib --product "
                         f"{path.name}` (make bench-devices does)")
    return Config(sizes=sizes, workers=args.workers, threads=args.threads, window_s=args.window,
                  period_s=args.period, jitter_s=args.jitter, edit_share=args.edit_share,
                  shared=args.shared, joins_per=max(1, args.joins_per), library=args.library,
                  drain_s=args.drain, shelf_sync=args.shelf_sync.absolute(), shelf=args.shelf.absolute(),
                  results_dir=args.results.absolute(), seed=args.seed, idle_runs=max(1, args.idle_runs),
                  rest_when_idle=args.rest_when_idle, history=args.history)


def uptime() -> str:
    """`uptime`'s line: the machine is shared, so every figure carries its load."""
    try:
        return subprocess.run(["uptime"], stdout=subprocess.PIPE, text=True).stdout.strip()
    except OSError:
        return "load average: " + ", ".join(f"{x:.2f}" for x in os.getloadavg())


# MARK: - Servers

def start_servers(stack: contextlib.ExitStack, config: Config) -> tuple[Workspace, PostgresCluster, KintoServer]:
    """Workspace, PostgreSQL and gunicorn Kinto, each stopped by `stack` (no proxy: the
    access log counts requests, and a Python proxy would share the two cores)."""
    workspace = Workspace()
    stack.callback(workspace.close)
    log(f"workspace {workspace.path}")
    cluster = PostgresCluster(workspace.path / "pg", free_port(),
                              max_connections=max(60, 2 * config.workers * config.threads + 20))
    workspace.record(pg_data=str(cluster.data), pg_ctl=cluster.pg_ctl)
    stack.callback(cluster.stop)
    cluster.start()
    kinto = KintoServer(workspace.subdir("kinto"), cluster, free_port(),
                        workers=config.workers, threads=config.threads,
                        plugins=("kinto.plugins.history",) if config.history else ())
    kinto.migrate()
    stack.callback(kinto.stop)
    kinto.start(on_spawn=lambda pid: workspace.record(kinto_pid=pid))
    log(f"Kinto on {kinto.root_url}: {kinto.description}, PostgreSQL "
        f"{cluster.psql('SHOW server_version').strip().split()[0]} on 127.0.0.1:{cluster.port}")
    return workspace, cluster, kinto


def cpu_snapshot(kinto: KintoServer, cluster: PostgresCluster) -> dict:
    """CPU so far of Kinto's and PostgreSQL's process trees, the machine and the harness."""
    stats = procstat.all_stats()
    usage = resource.getrusage(resource.RUSAGE_SELF)
    busy, total = procstat.machine_ticks()
    return {"kinto": procstat.ticks_to_s(procstat.tree_ticks(kinto.process.pid, stats)),
            "postgresql": procstat.ticks_to_s(procstat.tree_ticks(cluster.postmaster_pid() or -1, stats)),
            "harness": usage.ru_utime + usage.ru_stime, "machine": (busy, total)}


# MARK: - Readers: enrolment, libraries

def enrol(root_url: str, accounts: list[Account]) -> float:
    """Each reader's bucket and six collections in one batch request, four readers at a time.

    Basic auth needs no sign-up request (module doc); what a new reader costs the server
    is the implicit bucket and collections, created here in bulk so the devices' first
    syncs start from a reader that exists. Returns the seconds it took.
    """
    started = time.perf_counter()

    def one(account: Account) -> None:
        api = KintoAPI(root_url, account)
        try:
            enrol_one(api)
        finally:
            api.close()

    with ThreadPoolExecutor(4) as pool:
        list(pool.map(one, accounts))
    return time.perf_counter() - started


def enrol_one(api: KintoAPI, attempts: int = 6) -> None:
    """One reader's collections created, retrying the sub-requests Kinto answers 409.

    Readers enrolled side by side race on the buckets' shared timestamp row: Kinto answers
    `409 Integrity constraint violated, please retry` for some sub-requests of a batch and
    keeps the others. So each attempt sends only what is still missing, and a `412`
    (`If-None-Match: *` on a collection that now exists) counts as done.
    """
    missing = list(READER_COLLECTIONS)
    for attempt in range(attempts):
        body = {"requests": [{"method": "PUT", "path": f"/buckets/default/collections/{name}",
                              "body": {"data": {}}, "headers": {"If-None-Match": "*"}} for name in missing]}
        responses = api.json("POST", "/v1/batch", body)["responses"]
        statuses = [r["status"] for r in responses]
        bad = [(name, status) for name, status in zip(missing, statuses) if status not in (200, 201, 412, 409)]
        if bad:
            raise RuntimeError(f"enrolling {api.account.user}: {bad}")
        missing = [name for name, status in zip(missing, statuses) if status == 409]
        if not missing:
            return
        time.sleep(0.05 * (attempt + 1))
    raise RuntimeError(f"enrolling {api.account.user}: {missing} still answered 409 after {attempts} attempts")


def seed_library(cluster: PostgresCluster, root_url: str, account: Account, count: int, seed: int) -> None:
    """`count` books COPYed into the reader's books collection (seeding.py), checked by count."""
    api = KintoAPI(root_url, account)
    try:
        api.request("GET", api.records_path("default", "books") + "?_limit=1")
        bucket_id = api.json("GET", "/v1/buckets/default")["data"]["id"]
        seeding.bulk_insert_books(cluster, f"/buckets/{bucket_id}/collections/books",
                                  seeding.BookGenerator(seed).books(count))
        served = api.total_records("default", "books")
        if served != count:
            raise RuntimeError(f"{account.user}: seeded {count} books, Kinto counts {served}")
    finally:
        api.close()


# MARK: - Running many processes at once

@dataclasses.dataclass
class DeviceHome:
    device: dv.Device
    account: Account
    env: dict
    log: pathlib.Path
    edits_made: int = 0


class Job:
    """One tick of one device: its edit commands, then the sync, one process at a time."""

    def __init__(self, home: DeviceHome, tick: dv.Tick, steps: list[list[str]]) -> None:
        self.home, self.tick = home, tick
        self.steps = deque(steps)          # edit commands; the last step is the sync
        self.proc: subprocess.Popen | None = None
        self.pidfd: int | None = None
        self.step_started = 0.0
        self.log_offset = 0
        self.run = dv.Run(device=home.device.name, user=home.account.user, kind=tick.kind,
                          scheduled=tick.at, started=0.0, ended=0.0, exit_code=0, edits=tick.edits)

    @property
    def on_sync(self) -> bool:
        return len(self.steps) == 0


class Engine:
    """Starts jobs at their ticks and reaps their processes as they end (pidfds, `poll`).

    The harness's other children (gunicorn, psql) are never reaped here: only the pids it
    started, each with `wait4` on that pid, whose rusage is that process's own CPU.
    """

    def __init__(self, homes: dict[str, DeviceHome], config: Config) -> None:
        self.homes = homes
        self.config = config
        self.poller = select.poll()
        self.jobs: dict[int, Job] = {}     # by pidfd
        self.busy: set[str] = set()

    def steps(self, home: DeviceHome, tick: dv.Tick) -> list[list[str]]:
        shelf = str(self.config.shelf)
        commands = []
        for index in range(tick.edits):
            home.edits_made += 1
            number = home.edits_made
            if index % 2 == 0:
                commands.append([shelf, "-q", "book", "add", "--title", f"Book {number} of {home.device.name}",
                                 "--author", seeding.AUTHORS[number % len(seeding.AUTHORS)]])
            else:
                commands.append([shelf, "-q", "task", "add", f"Read book {number - 1} of {home.device.name}"])
        rest = ["--rest-when-idle", str(self.config.rest_when_idle)] if self.config.rest_when_idle > 1 else []
        return commands + [[str(self.config.shelf_sync)] + rest]

    def run(self, ticks: list[dv.Tick], until_s: float, drain_s: float,
            max_in_flight: int | None = None) -> tuple[list[dv.Run], int]:
        """Every tick run (or skipped) until `until_s`; then `drain_s` for those in flight.

        Returns the finished runs and the number of skipped ticks. A tick that finds its
        device's previous run going is skipped; one that finds `max_in_flight` jobs going
        waits (priming). Whatever still runs at the end is killed and reported failed.
        """
        start = time.monotonic()
        pending = deque(ticks)
        done: list[dv.Run] = []
        skipped = 0
        try:
            while pending or self.jobs:
                now = time.monotonic() - start
                if now > until_s + drain_s:
                    done += self.kill_all("still running when the window and its drain ended")
                    break
                while pending and pending[0].at <= now and (max_in_flight is None or len(self.jobs) < max_in_flight):
                    tick = pending.popleft()
                    if tick.at >= until_s:
                        pending.clear()
                        break
                    if tick.device in self.busy:
                        skipped += 1
                        continue
                    home = self.homes[tick.device]
                    self.launch(Job(home, tick, self.steps(home, tick)))
                wait = 0.2 if not pending else max(0.0, min(0.2, pending[0].at - (time.monotonic() - start)))
                for fd, _ in self.poller.poll(wait * 1000):
                    finished = self.reap(fd)
                    if finished is not None:
                        done.append(finished)
                self.kill_late()
        finally:
            # Ctrl-C, SIGTERM or a failure: no client outlives the harness.
            self.kill_all("interrupted")
        return done, skipped

    def launch(self, job: Job) -> None:
        self.busy.add(job.home.device.name)
        self.start_step(job)

    def start_step(self, job: Job) -> None:
        argv = job.steps.popleft()
        if job.on_sync:
            job.log_offset = job.home.log.stat().st_size if job.home.log.exists() else 0
            job.run.started = time.time()
        job.step_started = time.monotonic()
        with job.home.log.open("ab") as err:
            job.proc = subprocess.Popen(argv, env=job.home.env, stdin=subprocess.DEVNULL,
                                        stdout=subprocess.DEVNULL, stderr=err)
        job.pidfd = os.pidfd_open(job.proc.pid)
        self.poller.register(job.pidfd, select.POLLIN)
        self.jobs[job.pidfd] = job

    def reap(self, fd: int) -> dv.Run | None:
        job = self.jobs.pop(fd)
        self.poller.unregister(fd)
        os.close(fd)
        _, status, usage = os.wait4(job.proc.pid, 0)
        job.proc.returncode = code = os.waitstatus_to_exitcode(status)
        cpu = usage.ru_utime + usage.ru_stime
        if not job.on_sync:
            job.run.edits_s += time.monotonic() - job.step_started
            job.run.edits_cpu_s += cpu
            if code != 0:
                return self.finish(job, code, f"shelf edit command exited {code}")
            self.start_step(job)
            return None
        job.run.ended = time.time()
        job.run.cpu_s = cpu
        return self.finish(job, code, None)

    def finish(self, job: Job, code: int, error: str | None) -> dv.Run:
        run = job.run
        if not run.ended:
            run.started = run.started or time.time()
            run.ended = time.time()
        run.exit_code = code
        text = self.log_since(job)
        run.shelf_requests = dv.parse_shelf_requests(text)
        if code != 0:
            run.error = error or (text.strip().splitlines() or [""])[-1][-200:]
        self.busy.discard(job.home.device.name)
        return run

    def log_since(self, job: Job) -> str:
        try:
            with job.home.log.open("rb") as handle:
                handle.seek(job.log_offset)
                return handle.read(64_000).decode("utf-8", "replace")
        except OSError:
            return ""

    def kill_late(self) -> None:
        """SIGKILL a process past PROCESS_TIMEOUT_S; the loop reaps it (exit -9). Never
        `Popen.poll()` here: it would reap the process before `wait4` could."""
        now = time.monotonic()
        for job in list(self.jobs.values()):
            if now - job.step_started > PROCESS_TIMEOUT_S:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(job.proc.pid, signal.SIGKILL)

    def kill_all(self, reason: str) -> list[dv.Run]:
        runs = []
        for fd, job in list(self.jobs.items()):
            with contextlib.suppress(ProcessLookupError):
                job.proc.kill()
            self.jobs.pop(fd)
            self.poller.unregister(fd)
            os.close(fd)
            job.proc.wait()
            runs.append(self.finish(job, -9, reason))
        return runs


# MARK: - The benchmark

class DeviceBench:
    def __init__(self, config: Config, workspace: Workspace, cluster: PostgresCluster, kinto: KintoServer) -> None:
        self.config = config
        self.ws, self.cluster, self.kinto = workspace, cluster, kinto
        self.homes: dict[str, DeviceHome] = {}
        self.access_offset = 0
        self.results: dict = {"sizes": [], "priming": [], "notes": []}

    def add_home(self, device: dv.Device, account: Account) -> DeviceHome:
        folder = self.ws.subdir(f"devices/{device.name}")
        env = plug.client_env(Target(self.kinto.root_url + "/v1", account, folder))
        home = DeviceHome(device, account, env, folder / "sync.log")
        self.homes[device.name] = home
        return home

    def new_readers(self, first: int, last: int) -> list[DeviceHome]:
        """Readers first..last-1, one account and one device each, enrolled in bulk."""
        homes = []
        for index in range(first, last):
            account = Account(f"reader-{index:04d}", secrets.token_hex(8))
            homes.append(self.add_home(dv.Device(f"reader-{index:04d}", account.user), account))
        return homes

    def prime(self, homes: list[DeviceHome], label: str) -> None:
        """Each device's first sync of its (empty) reader, PRIME_PARALLEL at a time, so the
        window starts with devices that are up to date, as a fleet in service is."""
        if not homes:
            return
        started = time.perf_counter()
        ticks = [dv.Tick(0.0, h.device.name, dv.FIRST) for h in homes]
        engine = Engine(self.homes, self.config)
        runs, _ = engine.run(ticks, until_s=1.0, drain_s=len(homes) * 5.0, max_in_flight=PRIME_PARALLEL)
        failed = [r for r in runs if r.exit_code != 0]
        wall = dv.spread([r.wall_s for r in runs])
        self.results["priming"].append({"label": label, "devices": len(homes), "seconds": round(time.perf_counter() - started, 1),
                                        "wall_ms_p50": round(wall["p50"] * 1000, 1) if wall else None,
                                        "failed": len(failed), "errors": [r.error for r in failed[:5]]})
        log(f"primed {len(homes)} devices ({label}) in {time.perf_counter() - started:.1f} s"
            + (f", {len(failed)} FAILED: {failed[0].error}" if failed else ""))
        if failed:
            raise RuntimeError(f"{len(failed)} of {len(homes)} first syncs failed while priming: {failed[0].error}")

    def setup_shared(self) -> list[DeviceHome]:
        if self.config.shared <= 0:
            return []
        account = Account("household", secrets.token_hex(8))
        homes = [self.add_home(dv.Device(f"household-{i + 1}", account.user), account) for i in range(self.config.shared)]
        enrol(self.kinto.root_url, [account])
        return homes

    def joiners(self, size: int) -> list[dv.Device]:
        """The devices that join this window with a first sync of a large library."""
        count = max(1, size // self.config.joins_per)
        times = dv.join_times(count, self.config.window_s, seed=self.config.seed + size)
        started = time.perf_counter()
        devices = []
        for index, at in enumerate(times):
            account = Account(f"library-{size}-{index}", secrets.token_hex(8))
            seed_library(self.cluster, self.kinto.root_url, account, self.config.library, seed=size * 100 + index)
            device = dv.Device(f"library-{size}-{index}", account.user, joins_at=at)
            self.add_home(device, account)
            devices.append(device)
        log(f"seeded {count} libraries of {self.config.library:,} books in bulk in {time.perf_counter() - started:.1f} s")
        return devices

    def window(self, size: int, steady: list[DeviceHome], joining: list[dv.Device]) -> dict:
        config = self.config
        devices = [h.device for h in steady] + joining
        ticks = dv.make_schedule(devices, config.window_s, config.period_s, config.jitter_s,
                                 config.edit_share, seed=config.seed * 1000 + size)
        offered = sum(1 for t in ticks if t.at < config.window_s)
        _, self.access_offset = procstat.read_access_log(self.kinto.access_log, self.access_offset)
        load_before = uptime()
        before = cpu_snapshot(self.kinto, self.cluster)
        started = time.perf_counter()
        engine = Engine(self.homes, config)
        runs, skipped = engine.run(ticks, until_s=config.window_s, drain_s=config.drain_s)
        elapsed = time.perf_counter() - started
        after = cpu_snapshot(self.kinto, self.cluster)
        load_after = uptime()
        time.sleep(0.5)  # the last responses' log lines
        accesses, self.access_offset = procstat.read_access_log(self.kinto.access_log, self.access_offset)
        attribution = dv.attribute(runs, accesses)
        busy = after["machine"][0] - before["machine"][0]
        total = after["machine"][1] - before["machine"][1]
        cpus = os.cpu_count() or 1
        figures = dv.aggregate(
            runs, devices=size, window_s=elapsed, offered=offered, skipped=skipped,
            server_cpu_s={"kinto": after["kinto"] - before["kinto"],
                          "postgresql": after["postgresql"] - before["postgresql"]},
            harness_cpu_s=after["harness"] - before["harness"],
            machine_busy_cores=cpus * busy / total if total else None, cpus=cpus, attribution=attribution,
            schedule_s=config.window_s)
        figures.update({"readers": len(steady) - config.shared + len(joining), "shared_devices": config.shared,
                        "joining_devices": len(joining), "all_devices": len(devices),
                        "workers": config.workers, "threads": config.threads,
                        "uptime_before": load_before, "uptime_after": load_after,
                        "load_average_after": [round(x, 2) for x in os.getloadavg()],
                        "requests_in_log": len(accesses),
                        "kinto_workers_seen": len({a.worker for a in accesses})})
        self.summarize(figures)
        return figures

    def summarize(self, f: dict) -> None:
        wall, cpu = f["wall_ms"] or {}, f["cpu"]
        log(f"{f['devices']} devices: {f['runs_done']} runs ({f['ticks_skipped']} ticks skipped), "
            f"p50 {wall.get('p50')} ms p99 {wall.get('p99')} ms, {f['requests_per_run']} req/run, "
            f"Kinto {cpu['kinto_ms_per_run']} + PostgreSQL {cpu['postgresql_ms_per_run']} ms CPU/run, "
            f"machine {cpu['machine_busy_cores']} cores busy, exit codes {f['exit_codes']}; {f['uptime_after']}")

    def idle_cost(self, home: DeviceHome, runs: int) -> dict:
        """The server's CPU for one idle run, alone on the server: `runs` runs of a device whose
        reader changes nothing, one after the other, between two readings of Kinto's and
        PostgreSQL's CPU; per run, and per collection the run checks (from its report)."""
        report_path = home.env["HOME"] + "/idle-report.json"
        argv = [str(self.config.shelf_sync), "--report", report_path]
        for _ in range(3):  # settles: the first runs may still reach back over the commit window
            subprocess.run(argv, env=home.env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=120)
        _, self.access_offset = procstat.read_access_log(self.kinto.access_log, self.access_offset)
        before = cpu_snapshot(self.kinto, self.cluster)
        client_s, started = 0.0, time.perf_counter()
        for _ in range(runs):
            process = subprocess.Popen(argv, env=home.env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            _, _, usage = os.wait4(process.pid, 0)
            client_s += usage.ru_utime + usage.ru_stime
        wall = time.perf_counter() - started
        after = cpu_snapshot(self.kinto, self.cluster)
        time.sleep(0.5)
        accesses, self.access_offset = procstat.read_access_log(self.kinto.access_log, self.access_offset)
        try:
            report = json.loads(pathlib.Path(report_path).read_text())
            account = report["accounts"][0]
            collections = len(account.get("collections", {})) or None
        except (OSError, ValueError, KeyError, IndexError):
            collections = None
        kinto_ms = 1000 * (after["kinto"] - before["kinto"]) / runs
        pg_ms = 1000 * (after["postgresql"] - before["postgresql"]) / runs
        figures = {"runs": runs, "requests_per_run": round(len(accesses) / runs, 2),
                   "kinto_ms_per_run": round(kinto_ms, 1), "postgresql_ms_per_run": round(pg_ms, 1),
                   "server_ms_per_run": round(kinto_ms + pg_ms, 1), "client_ms_per_run": round(1000 * client_s / runs, 1),
                   "wall_ms_per_run": round(1000 * wall / runs, 1), "collections_checked": collections,
                   "server_ms_per_collection": round((kinto_ms + pg_ms) / collections, 2) if collections else None,
                   "uptime": uptime()}
        log(f"idle run alone: {figures['requests_per_run']} req, Kinto {figures['kinto_ms_per_run']} + PostgreSQL "
            f"{figures['postgresql_ms_per_run']} ms CPU per run, {figures['server_ms_per_collection']} ms per collection "
            f"checked ({collections}), client {figures['client_ms_per_run']} ms; {figures['uptime']}")
        return figures

    def run(self) -> dict:
        config = self.config
        shared = self.setup_shared()
        steady: list[DeviceHome] = list(shared)
        began = time.monotonic()
        probe = self.new_readers(IDLE_PROBE_INDEX, IDLE_PROBE_INDEX + 1)
        enrol(self.kinto.root_url, [h.account for h in probe])
        self.prime(probe, "the idle probe")
        self.results["idle_run"] = self.idle_cost(probe[0], config.idle_runs)
        for size in config.sizes:
            spent = time.monotonic() - began
            if spent + config.window_s + config.drain_s > TOTAL_BUDGET_S:
                note = f"{size} devices left out: {spent:.0f} s spent, the whole run is bounded to {TOTAL_BUDGET_S} s"
                self.results["notes"].append(note)
                log("note: " + note)
                continue
            readers = len(steady) - len(shared)
            homes = self.new_readers(readers, size)
            seconds = enrol(self.kinto.root_url, [h.account for h in homes])
            log(f"enrolled {len(homes)} readers in bulk in {seconds:.1f} s")
            self.prime(homes + (shared if size == config.sizes[0] else []), f"{size} devices")
            steady += homes
            joining = self.joiners(size)
            self.results["sizes"].append(self.window(size, steady, joining))
        self.results["saturation"] = dv.saturation(self.results["sizes"])
        return self.results


# MARK: - Output

# The reader whose device measures an idle run alone (`DeviceBench.idle_cost`); never in a window.
IDLE_PROBE_INDEX = 9_000


def table(results: dict) -> str:
    header = ["devices", "runs (skipped)", "runs/s", "wall p50", "wall p99", "req/run",
              "Kinto CPU/run", "PG CPU/run", "client CPU/run", "cores Kinto+PG", "machine busy",
              "exit codes", "HTTP 5xx", "load after"]
    rows = [header]
    for f in results["sizes"]:
        cpu, wall = f["cpu"], f["wall_ms"] or {}
        rows.append([f"{f['devices']} (+{f['shared_devices']} shared, +{f['joining_devices']} joining)",
                     f"{f['runs_done']} ({f['ticks_skipped']})", f"{f['runs_per_s']:.1f}",
                     f"{wall.get('p50', 0):.0f} ms", f"{wall.get('p99', 0):.0f} ms",
                     f"{f['requests_per_run']:.2f}" if f["requests_per_run"] is not None else "—",
                     f"{cpu['kinto_ms_per_run']} ms", f"{cpu['postgresql_ms_per_run']} ms",
                     f"{cpu['client_ms_per_run']} ms",
                     f"{cpu['kinto_cores'] + cpu['postgresql_cores']:.2f}",
                     f"{cpu['machine_busy_cores']:.2f} of {cpu['cpus']}",
                     " ".join(f"{code}×{n}" for code, n in f["exit_codes"].items()),
                     str(f["http_errors"]), " ".join(str(x) for x in f["load_average_after"])])
    widths = [max(len(r[i]) for r in rows) for i in range(len(header))]
    lines = ["  ".join(c.ljust(widths[i]) for i, c in enumerate(r)).rstrip() for r in rows]
    lines.insert(1, "  ".join("-" * w for w in widths))
    idle = results.get("idle_run")
    if idle:
        lines.append(f"an idle run alone ({idle['runs']} runs, one device): {idle['requests_per_run']} requests, "
                     f"server CPU {idle['server_ms_per_run']} ms (Kinto {idle['kinto_ms_per_run']} + PostgreSQL "
                     f"{idle['postgresql_ms_per_run']}), {idle['server_ms_per_collection']} ms per collection checked "
                     f"({idle['collections_checked']}), client {idle['client_ms_per_run']} ms")
    for f in results["sizes"]:
        for kind, k in f["by_kind"].items():
            wall = k["wall_ms"] or {}
            lines.append(f"{f['devices']} devices, {kind}: {k['runs']} runs, wall p50 {wall.get('p50')} ms "
                         f"p99 {wall.get('p99')} ms, requests {k['requests']['mean']:.2f}/run "
                         f"(max {k['requests']['max']:.0f}), {k['failed']} failed")
    sat = results.get("saturation", {})
    if sat.get("at_devices"):
        lines.append(f"saturation from {sat['at_devices']} devices: " +
                     "; ".join(f"{n}: {', '.join(s)}" for n, s in sat["signs"].items()))
    else:
        lines.append("saturation: not reached by this load at these device counts")
    for n, text in sat.get("machine_busy", {}).items():
        lines.append(f"machine busy during the {n}-device window: {text}")
    lines += ["note: " + n for n in results.get("notes", [])]
    return "\n".join(lines)


def run(config: Config) -> dict:
    sweep_abandoned(log)
    with contextlib.ExitStack() as stack:
        try:
            workspace, cluster, kinto = start_servers(stack, config)
            seeding.seed_small_collections(kinto.root_url, Account("catalog-seed", secrets.token_hex(8)))
            bench = DeviceBench(config, workspace, cluster, kinto)
            results = bench.run()
            results["meta"] = {
                "started": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
                "config": {k: (str(v) if isinstance(v, pathlib.Path) else v)
                           for k, v in dataclasses.asdict(config).items()},
                "kinto_server": kinto.description, "cpus": os.cpu_count(),
                "compression": f"a 5-minute cron every {config.period_s:g} s ({300 / config.period_s:g}× faster)",
                "commit": subprocess.run(["git", "-C", str(HERE.parent), "rev-parse", "--short", "HEAD"],
                                         stdout=subprocess.PIPE, text=True).stdout.strip(),
            }
            return results
        finally:
            signal.signal(signal.SIGINT, signal.SIG_IGN)
            signal.signal(signal.SIGTERM, signal.SIG_IGN)


def main(argv: list[str]) -> int:
    config = parse_args(argv)

    exit_on_termination_signals()
    start_load = uptime()
    log(f"start: {start_load}")
    try:
        results = run(config)
    except KeyboardInterrupt:
        log("interrupted: clients killed, servers stopped, workspace removed")
        return 130
    results["meta"]["uptime_start"] = start_load
    results["meta"]["uptime_end"] = uptime()
    results["meta"]["seconds"] = round(time.monotonic() - STARTED_AT, 1)
    path = report.write(results, config.results_dir, prefix="devices-")
    svg = config.results_dir / "devices.svg"
    svg.write_text(dv.plot(results["sizes"], f"Shelf devices on one Kinto ({results['meta']['kinto_server']}), "
                                             f"{os.cpu_count()} cores"))
    print(table(results))
    log(f"results: {path} (and devices-latest.json), plot {svg}; {results['meta']['uptime_end']}")
    return 0


STARTED_AT = time.monotonic()

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
