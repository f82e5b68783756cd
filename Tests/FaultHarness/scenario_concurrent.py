#!/usr/bin/env python3
"""Concurrent writers into one collection, as the issue measured it: does every device end
with every book?

Kinto on PostgreSQL stamps a record with `clock_timestamp()` inside its still-open
transaction and takes no lock, so two batches into one collection can commit in the
opposite order to their stamps. A device that pulls `_since=<cursor>` between the two
commits moves its cursor past a record it cannot see yet, and no later sync brings it.

One run, on a fresh Kinto (`production`: Fixtures/kinto/production.ini on a private
PostgreSQL, `--workers N` processes when given) behind the fault proxy, one Kinto user:

1. W writer devices (default 3) each add B books (default 40) per round with
   `shelf book add`, then run `shelf-sync`, all W at the same moment; R rounds (default 12:
   3 × 40 × 12 = 1,440 books). Meanwhile the reader devices (default 2) only run
   `shelf-sync`, in a loop, until the writers are done.
2. Every device syncs in turn until a round in which every run exits 0 and pushes
   nothing (at most --settle-rounds rounds).
3. Each device's books are counted against the server's (read from Kinto directly) and
   against the books the writers were told were added.

It prints one line per device and a result line; exit status 0 every device of every run
holds exactly the server's books and the server every acknowledged one, 1 some device
missed books (or held extra ones) or the server lost one, 2 the scenario could not run.
Everything is bounded: each command and sync has its timeout, the readers at most
--reader-syncs-max syncs, the rounds a fixed count.
"""
import argparse
import os
import pathlib
import shutil
import sys
import tempfile
import threading
import time
import uuid

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))

from cluster import ROOT, HarnessError, Device, Servers  # noqa: E402

ROUND_WAIT = 600   # seconds a writer waits for the others at the end of a round


def parse(argv):
    parser = argparse.ArgumentParser(prog="scenario_concurrent.py", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=1, help="repeat on fresh servers (default 1)")
    parser.add_argument("--writers", type=int, default=3, help="writer devices (default 3)")
    parser.add_argument("--readers", type=int, default=2, help="devices that only sync (default 2)")
    parser.add_argument("--rounds", type=int, default=12, help="rounds of adds then syncs (default 12)")
    parser.add_argument("--books", type=int, default=40, help="books each writer adds per round (default 40)")
    parser.add_argument("--settle-rounds", type=int, default=8,
                        help="at most this many rounds of every device syncing at the end (default 8)")
    parser.add_argument("--reader-syncs-max", type=int, default=400,
                        help="at most this many syncs per reader while the writers write (default 400)")
    parser.add_argument("--server", choices=("production", "memory"), default="production",
                        help="production: PostgreSQL (default); memory: the tests' memory backend")
    parser.add_argument("--workers", type=int, metavar="N",
                        help="N Kinto worker processes over the one database (production only)")
    parser.add_argument("--latency-ms", type=int, default=0, help="proxy latency per request (default 0)")
    parser.add_argument("--history", action="store_true",
                        help="Kinto keeps every bucket's history (kinto.plugins.history), which idle runs read")
    parser.add_argument("--shelf", default=str(ROOT / ".build" / "debug" / "shelf"), help="the shelf binary")
    parser.add_argument("--shelf-sync", default=str(ROOT / ".build" / "debug" / "shelf-sync"),
                        help="the shelf-sync binary")
    parser.add_argument("--python", help="the Python that has Kinto (default .venv/bin/python)")
    parser.add_argument("-v", "--verbose", action="store_true", help="print every sync's exit as it happens")
    args = parser.parse_args(argv)
    if min(args.runs, args.writers, args.rounds, args.books, args.settle_rounds, args.reader_syncs_max) < 1 \
            or args.readers < 0 or (args.workers is not None and args.workers < 1):
        parser.error("counts must be ≥ 1 (--readers ≥ 0)")
    return args


# MARK: - Counting

def tally(acknowledged, server_ids, devices):
    """Per device, its books against the server's.

    `acknowledged`: ids of the books the writers were told were added; `server_ids`: the
    ids Kinto lists; `devices`: [(index, role, ids)]. Returns (rows, server_lost, ok),
    each row a dict with the device's counts."""
    server_ids = set(server_ids)
    server_lost = len(set(acknowledged) - server_ids)
    rows = []
    for index, role, ids in devices:
        ids = set(ids)
        rows.append({"device": index, "role": role, "holds": len(ids), "server": len(server_ids),
                     "missing": len(server_ids - ids), "extra": len(ids - server_ids)})
    ok = server_lost == 0 and all(r["missing"] == 0 and r["extra"] == 0 for r in rows)
    return rows, server_lost, ok


def row_line(row):
    """`device 3 (reader): 1302 of the server's 1440 books — 138 missing`"""
    gaps = [f"{row[k]} {k}" for k in ("missing", "extra") if row[k]]
    return (f"  device {row['device']} ({row['role']}): {row['holds']} of the server's {row['server']} books"
            f"{' — ' + ', '.join(gaps) if gaps else ''}")


# MARK: - One run

class Run:
    """One scenario on fresh servers; `go()` returns (rows, server_lost, ok, notes)."""

    def __init__(self, args, number):
        self.args, self.number = args, number
        self.lock = threading.Lock()
        self.acknowledged, self.errors, self.notes = [], [], []
        self.sync_exits = {}
        self.writers_done = threading.Event()

    def go(self):
        args = self.args
        servers = Servers(args.python, args.server, args.workers, history=args.history)
        root = tempfile.mkdtemp(prefix=f"shelf-scenario-{self.number}-")
        try:
            servers.calm(args.latency_ms, 0)
            user, password = f"scenario-{uuid.uuid4().hex[:10]}", uuid.uuid4().hex
            count = args.writers + args.readers
            devices = [Device(i, root, args.shelf, args.shelf_sync) for i in range(count)]
            for device in devices:
                device.add_account(servers.proxy_url, user, password, create=device.index == 0)
                first = device.sync()
                if first.status != 0:
                    raise HarnessError(f"device {device.index}: the first sync exited {first.status}")
            writers, readers = devices[:args.writers], devices[args.writers:]
            self._write_and_read(writers, readers)
            if self.errors:
                raise HarnessError("; ".join(self.errors[:3]))
            self._settle(devices)
            server_ids = [r["id"] for r in servers.server_records(user, password, ("books",))["books"]]
            listed = []
            for device in devices:
                result = device.shelf_command("--json", "books")
                if result.status != 0:
                    raise HarnessError(f"device {device.index}: {result}")
                role = "writer" if device in writers else "reader"
                listed.append((device.index, role, [b["id"] for b in result.json()["books"]]))
            rows, lost, ok = tally(self.acknowledged, server_ids, listed)
            if ok:
                shutil.rmtree(root, ignore_errors=True)
            else:
                self.notes.append(f"the devices' folders are kept in {root}")
            return rows, lost, ok
        finally:
            servers.stop()

    def _write_and_read(self, writers, readers):
        """The writers' rounds, all writers' syncs of a round at once, the readers looping."""
        rendezvous = threading.Barrier(len(writers))
        threads = [threading.Thread(target=self._guard, args=(self._writer, w, rendezvous), daemon=True)
                   for w in writers]
        threads += [threading.Thread(target=self._guard, args=(self._reader, r), daemon=True) for r in readers]
        for thread in threads:
            thread.start()
        for thread in threads[:len(writers)]:
            thread.join()
        self.writers_done.set()
        for thread in threads[len(writers):]:
            thread.join()

    def _guard(self, function, *arguments):
        try:
            function(*arguments)
        except Exception as error:  # noqa: BLE001 — becomes the run's failure
            with self.lock:
                self.errors.append(f"{type(error).__name__}: {error}")
            if arguments and isinstance(arguments[-1], threading.Barrier):
                arguments[-1].abort()

    def _writer(self, device, rendezvous):
        for round_number in range(1, self.args.rounds + 1):
            for k in range(1, self.args.books + 1):
                title = f"Round {round_number} book {k} of device {device.index}"
                result = device.shelf_command("--json", "book", "add", "--title", title,
                                              "--author", f"Writer {device.index}")
                if result.status != 0:
                    raise HarnessError(f"device {device.index}: an add was refused: {result}")
                with self.lock:
                    self.acknowledged.append(result.json()["id"])
            rendezvous.wait(timeout=ROUND_WAIT)   # then every writer syncs at the same moment
            self._note(device, device.sync(), f"round {round_number}")

    def _reader(self, device):
        for _ in range(self.args.reader_syncs_max):
            if self.writers_done.is_set():
                break
            self._note(device, device.sync(), "reader loop")

    def _note(self, device, run, what):
        with self.lock:
            self.sync_exits[str(run.status)] = self.sync_exits.get(str(run.status), 0) + 1
        if self.args.verbose:
            print(f"    device {device.index} ({what}): shelf-sync -> {run.status}, pushed {run.pushed()}", flush=True)

    def _settle(self, devices):
        """Every device syncs in turn until a round changes nothing (bounded)."""
        for round_number in range(1, self.args.settle_rounds + 1):
            statuses, pushed = [], 0
            for device in devices:
                run = device.sync()
                self._note(device, run, f"settle {round_number}")
                statuses.append(run.status)
                pushed += run.pushed()
            if pushed == 0 and all(s == 0 for s in statuses):
                self.notes.append(f"quiet after {round_number} settle round(s)")
                return
        self.notes.append(f"not quiet after {self.args.settle_rounds} settle rounds (last exits {statuses})")


# MARK: - Command line

def main(argv=None):
    args = parse(argv)
    for binary in (args.shelf, args.shelf_sync):
        if not os.access(binary, os.X_OK):
            print(f"scenario: {binary} is not an executable; build it first (swift build)", file=sys.stderr)
            return 2
    started = time.monotonic()
    books = args.writers * args.books * args.rounds
    shape = args.server + (f", {args.workers} workers" if args.workers else "")
    print(f"{args.writers} writers × {args.books} books × {args.rounds} rounds = {books} books, "
          f"{args.readers} readers syncing meanwhile; Kinto {shape}", flush=True)
    failed_runs, most_missed, lost_total = 0, 0, 0
    for number in range(1, args.runs + 1):
        run_started = time.monotonic()
        run = Run(args, number)
        try:
            rows, lost, ok = run.go()
        except HarnessError as error:
            print(f"scenario: run {number} could not run: {error}", file=sys.stderr)
            return 2
        exits = ", ".join(f"{k}: {v}" for k, v in sorted(run.sync_exits.items()))
        print(f"run {number}: {'ok' if ok else 'MISSED'} — the server holds {rows[0]['server']} books "
              f"({len(run.acknowledged)} acknowledged{f', {lost} of them lost' if lost else ''}); "
              f"syncs by exit status {{{exits}}}; {'; '.join(run.notes)}; "
              f"{time.monotonic() - run_started:.0f} s", flush=True)
        for row in rows:
            print(row_line(row), flush=True)
        failed_runs += 0 if ok else 1
        most_missed = max([most_missed] + [r["missing"] for r in rows])
        lost_total += lost
    print(f"scenario result: runs={args.runs} writers={args.writers} readers={args.readers} "
          f"books_per_run={books} runs_with_misses={failed_runs} most_missed={most_missed} "
          f"server_lost={lost_total} {'PASS' if not failed_runs else 'FAIL'} "
          f"({time.monotonic() - started:.0f} s)", flush=True)
    return 1 if failed_runs else 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        sys.exit(130)
