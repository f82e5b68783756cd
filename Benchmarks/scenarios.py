"""The scenarios: what is measured, in which order, and how each run is checked.

Contenders are measured alternately — run 1 is peer, curl, Shelf; run 2 starts one
further along; and so on — so slow drift of the machine (another build, the page
cache) spreads over all of them instead of favouring one. Every run is checked
(records stored, pages fetched, records on the server) before its figures count.
"""
from __future__ import annotations

import json
import pathlib
import random
import secrets
import shutil
import sqlite3
import subprocess
import time
from dataclasses import dataclass, field

import contenders as plug
import curl_floor
import procstat
import seeding
from contenders import Target
from kinto_api import Account, KintoAPI
from measure import Sample, run_measured, spread, summarize
from peer_kinto_http import COLLECTIONS, PAGE_LIMIT
from proxy import Traffic
from report import FLOOR, PEER, SHELF, add_ratios

CLIENT_TIMEOUT_S = 900


@dataclass
class Config:
    quick: bool
    runs: int
    sizes: list[int]
    push_runs: int
    read_runs: int
    shelf_sync: pathlib.Path
    shelf: pathlib.Path
    shelf_edits: pathlib.Path
    swift_json: pathlib.Path
    results_dir: pathlib.Path
    delta_records: int = 100
    # Edits per push run: each count is pushed twice, as new books, and spread evenly over
    # four of the reader's collections (PUSH_SPREAD).
    push_counts: list[int] = field(default_factory=lambda: [1000])
    # Runs per contender for pushes of 5,000 edits and more (Kinto takes minutes for each).
    large_push_runs: int = 1
    push_only: bool = False
    # gunicorn worker processes for Kinto (0: one `kinto start`), threads each.
    workers: int = 0
    threads: int = 2
    # The scale curve's commit-window rows: how long after the last delta run the
    # "after the window" idle runs start (Shelf's default window is 60 s).
    window_wait_s: float = 61.0
    # The README whose committed figures a quick run is compared with (guard.py); None: no guard.
    guard: pathlib.Path | None = None
    notes: list[str] = field(default_factory=list)


# The collections a spread push deals its edits to, in turn.
PUSH_SPREAD = ("books", "notes", "tasks", "sessions")


def deal(count: int, hands: int) -> list[int]:
    """How many of `count` edits each of `hands` collections gets when they are dealt in turn."""
    return [count // hands + (1 if index < count % hands else 0) for index in range(hands)]


def push_records(count: int, collections: list[str], seed: int) -> list[dict]:
    """`count` new records dealt in turn to `collections`; items outside books name theirs
    in `_collection` (the peer and `shelf-bench-local-edits` both read it). About 300 bytes
    each, like the books."""
    books = iter(seeding.BookGenerator(seed).books(count))
    rng = random.Random(seed)
    records = []
    for index in range(count):
        collection = collections[index % len(collections)]
        book = next(books)
        if collection == "books":
            records.append(book)
            continue
        record = {"_collection": collection, "id": f"{collection[:-1]}-{seed}-{index}"}
        if collection == "notes":
            record.update(title=book["title"], body=book["description"], book_id=None)
        elif collection == "tasks":
            record.update(title="Read " + book["title"], done=rng.random() < 0.3)
        else:
            record.update(minutes=rng.randint(5, 120), day=f"2026-11-{rng.randint(1, 30):02d}", book_id=None)
        records.append(record)
    return records


def size_label(size: int) -> str:
    """10000 → 10k, 1000000 → 1M: how tables name a data set's size."""
    if size >= 1_000_000 and size % 1_000_000 == 0:
        return f"{size // 1_000_000}M"
    return f"{size // 1000}k"


def rotate(names: list[str], run: int) -> list[str]:
    shift = run % len(names)
    return names[shift:] + names[:shift]


def fail(sample: Sample, message: str) -> Sample:
    """Mark a run that exited 0 but did not do the job: its figures do not count."""
    if sample.exit_code == 0:
        sample.exit_code = -1
    sample.extra["error"] = message
    return sample


def stored_books(target: Target) -> int | None:
    """Books in the peer's store, counted by the harness after the run (not timed)."""
    path = plug.peer_store(target)
    if not path.exists():
        return None
    db = sqlite3.connect(path)
    try:
        return db.execute("SELECT count(*) FROM records WHERE collection = 'default/books'").fetchone()[0]
    finally:
        db.close()


def last_json_line(text: str) -> dict | None:
    for line in reversed(text.strip().splitlines()):
        try:
            value = json.loads(line)
        except ValueError:
            continue
        if isinstance(value, dict):
            return value
    return None


class Bench:
    def __init__(self, config: Config, workspace, cluster, kinto, proxy, log) -> None:
        self.config = config
        self.ws = workspace
        self.cluster = cluster
        self.kinto = kinto
        self.proxy = proxy
        self.log = log
        self.results: dict = {"setup": {}, "scenarios": [], "notes": config.notes}
        self.accounts: dict[int, Account] = {}
        self.books: dict[int, list[dict]] = {}
        self.kept: dict[tuple[int, str], Target] = {}
        self.shelf_sync_ok = plug.executable(config.shelf_sync)
        self.shelf_ok = plug.executable(config.shelf)
        self.shelf_edits_ok = plug.executable(config.shelf_edits)
        if not self.shelf_sync_ok:
            config.notes.append(f"shelf-sync not found at {config.shelf_sync}: Shelf rows skipped "
                                "(build it: swift build -c release --product shelf-sync, or pass --shelf-sync PATH)")
        if not self.shelf_ok:
            config.notes.append(f"shelf not found at {config.shelf}: local reads skipped "
                                "(build it: swift build -c release --product shelf, or pass --shelf PATH)")
        if not self.shelf_edits_ok:
            config.notes.append(f"shelf-bench-local-edits not found at {config.shelf_edits}: Shelf push skipped "
                                "(build it: swift build -c release --product shelf-bench-local-edits, "
                                "or pass --shelf-edits PATH)")

    # MARK: - Helpers

    @property
    def server(self) -> str:
        return self.proxy.root_url + "/v1"

    def target(self, account: Account, name: str) -> Target:
        """A fresh home for a client that talks to Kinto through the counting proxy."""
        return Target(self.server, account, self.ws.fresh_dir(f"{name}-"))

    def measure(self, argv: list[str], env: dict) -> Sample:
        """One client process through the proxy: its rusage plus the traffic it caused."""
        self.proxy.traffic.take()
        sample = run_measured(argv, env=env, timeout=CLIENT_TIMEOUT_S)
        self.attach_traffic(sample)
        return sample

    def attach_traffic(self, sample: Sample) -> None:
        traffic = Traffic.summary(self.proxy.traffic.take())
        sample.extra.update(traffic)

    def progress(self, what: str, name: str, sample: Sample) -> None:
        state = "ok" if sample.ok else f"FAILED ({sample.extra.get('error') or sample.exit_code})"
        self.log(f"{what:<26} {name:<6} wall {sample.wall_s:7.3f} s  cpu {sample.cpu_s:6.3f} s  "
                 f"rss {sample.maxrss_kb / 1024:6.1f} MB  req {sample.extra.get('requests', '—')}  {state}")
        if not sample.ok and sample.stderr.strip():
            self.log("    stderr: " + sample.stderr.strip().splitlines()[-1][:300])

    def entry(self, scenario: str, label: str, kind: str = "process", **extra) -> dict:
        entry = {"scenario": scenario, "label": label, "kind": kind, "contenders": {}, **extra}
        self.results["scenarios"].append(entry)
        return entry

    @staticmethod
    def store(entry: dict, name: str, samples: list[Sample]) -> None:
        entry["contenders"][name] = {"summary": summarize(samples),
                                     "samples": [s.as_dict() for s in samples]}
        errors = [s.extra["error"] for s in samples if "error" in s.extra]
        errors += [s.stderr.strip()[-300:] for s in samples if not s.ok and "error" not in s.extra]
        if errors:
            entry["contenders"][name]["errors"] = errors

    def shelf_skip_reason(self, needs_shelf: bool = False, needs_edits: bool = False) -> str | None:
        if not self.shelf_sync_ok:
            return f"no shelf-sync at {self.config.shelf_sync}"
        if needs_shelf and not self.shelf_ok:
            return f"no shelf at {self.config.shelf}"
        if needs_edits and not self.shelf_edits_ok:
            return f"no shelf-bench-local-edits at {self.config.shelf_edits}"
        return None

    def collection_urls(self, root: str) -> list[str]:
        return [f"{root}/v1/buckets/{b}/collections/{c}/records?_limit={PAGE_LIMIT}" for b, c in COLLECTIONS]

    def curl_config(self, account: Account) -> pathlib.Path:
        return curl_floor.write_config(self.ws.subdir(f"curl-{account.user}"), account)

    # MARK: - Setup: data sets, captured page, proxy cost

    def seed(self) -> None:
        for size in self.config.sizes:
            account = Account(f"bench-{size}", secrets.token_hex(12))
            started = time.perf_counter()
            self.books[size] = seeding.BookGenerator(seed=size).books(size)
            info = seeding.seed_account(self.cluster, self.kinto.root_url, account, self.books[size],
                                        page_limit=PAGE_LIMIT)
            info["seconds"] = round(time.perf_counter() - started, 1)
            self.accounts[size] = account
            self.results["setup"].setdefault("seed", {})[str(size)] = info
            self.log(f"seeded {size} books for {account.user} in {info['seconds']} s "
                     f"(bulk insert {info['insert_s']} s), Kinto serves {info['served_books']} "
                     f"in {info['pages']} pages; notes/tasks/cart {info['small']}, products {info['products']}")

    def capture_page(self) -> pathlib.Path:
        """A 10,000-record page as Kinto serves it, for every JSON throughput benchmark."""
        size = min(s for s in self.config.sizes)
        api = KintoAPI(self.kinto.root_url, self.accounts[size])
        try:
            _, _, body = api.request("GET", api.records_path("default", "books") + f"?_limit={PAGE_LIMIT}")
        finally:
            api.close()
        self.config.results_dir.mkdir(parents=True, exist_ok=True)
        page = self.config.results_dir / f"page-{PAGE_LIMIT}.json"
        page.write_bytes(body)
        records = len(json.loads(body)["data"])
        self.results["setup"]["json_page"] = {"path": str(page), "bytes": len(body), "records": records}
        self.log(f"captured a {records}-record page ({len(body) / 1e6:.2f} MB) at {page}")
        return page

    def warm(self, size: int) -> None:
        """One unmeasured pass over every page: PostgreSQL's and the OS's caches warm for all."""
        curl_floor.fetch_all(self.collection_urls(self.kinto.root_url), self.curl_config(self.accounts[size]),
                             self.ws.subdir("scratch"))

    def proxy_overhead(self) -> None:
        """The counting proxy's cost, measured with curl: large pages and small requests."""
        size = min(self.config.sizes)
        config = self.curl_config(self.accounts[size])
        scratch = self.ws.subdir("scratch")
        self.warm(size)
        roots = {"direct": self.kinto.root_url, "proxy": self.proxy.root_url}
        result, texts = {}, []
        for kind, pick in (("books pages", lambda urls: urls[:1]), ("small lists", lambda urls: urls[1:])):
            walls: dict[str, list[float]] = {"direct": [], "proxy": []}
            requests = 0
            for run in range(max(self.config.runs, 10)):
                for name in rotate(["direct", "proxy"], run):
                    sample = curl_floor.fetch_all(pick(self.collection_urls(roots[name])), config, scratch)
                    walls[name].append(sample.wall_s)
                    requests = sample.extra["pages"]
            self.proxy.traffic.take()
            direct, proxied = spread(walls["direct"]), spread(walls["proxy"])
            cost = proxied["median"] - direct["median"]
            result[kind] = {"direct_wall_s": direct, "proxy_wall_s": proxied, "requests": requests,
                            "overhead_ms_per_request": round(1000 * cost / requests, 2),
                            "overhead_pct": round(100 * cost / direct["median"], 1)}
            texts.append(f"{kind}: {1000 * cost / requests:+.1f} ms/request ({result[kind]['overhead_pct']:+.1f}%)")
        self.results["setup"]["proxy_overhead"] = result
        entry = self.entry("proxy_overhead", "0 counting proxy cost", kind="value")
        entry["contenders"]["curl direct vs proxied"] = {"text": "; ".join(texts), **result}
        self.log("proxy overhead: " + "; ".join(texts))

    # MARK: - 1. First sync

    def first_sync(self, size: int) -> None:
        """Timed runs straight to Kinto; then one counted run per contender through the proxy.

        The counted ("census") run gives the requests and bytes, and its store is the
        one scenarios 2, 3 and 6 continue from (same server URL, as a real client).
        """
        account = self.accounts[size]
        entry = self.entry("first_sync", f"1 first sync {size_label(size)}", size=size, floor=True)
        names = [PEER, FLOOR] + ([SHELF] if self.shelf_sync_ok else [])
        samples: dict[str, list[Sample]] = {name: [] for name in names}
        self.warm(size)
        for run in range(self.config.runs):
            for name in rotate(names, run):
                target = Target(self.kinto.root_url + "/v1", account, self.ws.fresh_dir(f"{name}-{size}-"))
                sample = self.run_first_sync(name, target, size, counted=False)
                samples[name].append(sample)
                self.progress(f"first sync {size} #{run + 1}", name, sample)
                shutil.rmtree(target.home, ignore_errors=True)
        for name in names:
            self.store(entry, name, samples[name])
            target = self.target(account, f"{name}-{size}-kept")
            census = self.run_first_sync(name, target, size, counted=True)
            self.progress(f"first sync {size} counted", name, census)
            row = entry["contenders"][name]
            row["census"] = census.as_dict()
            if census.ok:
                for key in ("requests", "bytes_down", "bytes_up"):
                    row["summary"][key] = spread([float(census.extra[key])])
            self.kept[(size, name)] = target
        if not self.shelf_sync_ok:
            entry["contenders"][SHELF] = {"skipped": self.shelf_skip_reason()}
        elif self.shelf_ok:
            entry["checks"] = {"shelf_books": self.count_shelf_books(self.kept[(size, SHELF)], size)}
        add_ratios(entry)

    def run_first_sync(self, name: str, target: Target, size: int, counted: bool) -> Sample:
        run = self.measure if counted else (lambda argv, env: run_measured(argv, env=env, timeout=CLIENT_TIMEOUT_S))
        if name == PEER:
            sample = run(plug.peer_first_sync(target), plug.client_env(target))
            stored = stored_books(target)
            if sample.ok and stored != size:
                fail(sample, f"peer stored {stored} books, expected {size}")
        elif name == FLOOR:
            root = target.server.removesuffix("/v1")
            self.proxy.traffic.take()
            sample = curl_floor.fetch_all(self.collection_urls(root), self.curl_config(target.account),
                                          self.ws.subdir("scratch"))
            if counted:
                self.attach_traffic(sample)
            expected = -(-size // PAGE_LIMIT) + len(COLLECTIONS) - 1
            if sample.ok and sample.extra["pages"] != expected:
                fail(sample, f"curl fetched {sample.extra['pages']} pages, expected {expected}")
        else:
            sample = run(plug.shelf_sync(self.config.shelf_sync), plug.client_env(target))
        return sample

    def count_shelf_books(self, target: Target, expected: int) -> dict:
        """After the runs, not timed: does `shelf --json books` list every book?"""
        result = subprocess.run(plug.shelf_books_json(self.config.shelf), env=plug.client_env(target),
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=300)
        if result.returncode != 0:
            return {"checked": False, "reason": f"exit {result.returncode}: {result.stderr.decode(errors='replace')[-200:]}"}
        try:
            value = json.loads(result.stdout)
        except ValueError:
            return {"checked": False, "reason": "output is not JSON"}
        if isinstance(value, dict):
            value = next((v for v in value.values() if isinstance(v, list)), None)
        if not isinstance(value, list):
            return {"checked": False, "reason": "no list of books in the JSON output"}
        counted = {"checked": True, "books": len(value), "expected": expected, "ok": len(value) == expected}
        self.log(f"shelf --json books lists {len(value)} books (expected {expected})")
        return counted

    # MARK: - 2. Nothing changed

    def no_change(self, size: int) -> None:
        self.run_after_first_sync(size)
        entry = self.entry("no_change", f"2 nothing changed {size_label(size)}", size=size)
        names = [PEER] + ([SHELF] if self.shelf_sync_ok else [])
        samples: dict[str, list[Sample]] = {name: [] for name in names}
        for run in range(self.config.runs):
            for name in rotate(names, run):
                target = self.kept[(size, name)]
                if name == PEER:
                    sample = self.measure(plug.peer_incremental(target), plug.client_env(target))
                    pulled = (last_json_line(sample.stdout) or {}).get("pulled", {})
                    if sample.ok and any(pulled.values()):
                        fail(sample, f"peer pulled {pulled} from an unchanged server")
                else:
                    sample = self.measure(plug.shelf_sync(self.config.shelf_sync), plug.client_env(target))
                samples[name].append(sample)
                self.progress(f"nothing changed {size} #{run + 1}", name, sample)
        for name in names:
            self.store(entry, name, samples[name])
        if not self.shelf_sync_ok:
            entry["contenders"][SHELF] = {"skipped": self.shelf_skip_reason()}
        add_ratios(entry)

    def run_after_first_sync(self, size: int) -> None:
        """Shelf's first run after its first sync, on its own row: a first sync leaves the two
        order indexes to the next whole run (`ListingIndexes`), so that run pays them once. Its
        own row keeps that cost in sight beside the first sync, and out of the idle runs'
        medians, which describe the steady state."""
        if not self.shelf_sync_ok:
            return
        entry = self.entry("after_first_sync", f"2a run after the first sync {size_label(size)} (builds the order indexes once)",
                           size=size)
        target = self.kept[(size, SHELF)]
        sample = self.measure(plug.shelf_sync(self.config.shelf_sync), plug.client_env(target))
        self.progress(f"run after the first sync {size}", SHELF, sample)
        self.store(entry, SHELF, [sample])

    # MARK: - 3. Small delta

    def change_on_server(self, size: int, run: int) -> None:
        """Edit `delta_records` books through the API, as another device would."""
        rng = random.Random(f"delta-{size}-{run}")
        picked = rng.sample(self.books[size], self.config.delta_records)
        requests = [{"method": "PATCH",
                     "path": f"/buckets/default/collections/books/records/{book['id']}",
                     "body": {"data": {"title": f"{book['title']} (revised {run + 1})",
                                       "finished": not book["finished"] if run % 2 == 0 else book["finished"]}}}
                    for book in picked]
        api = KintoAPI(self.kinto.root_url, self.accounts[size])
        try:
            api.batch(requests)
        finally:
            api.close()

    def delta(self, size: int) -> None:
        count = self.config.delta_records
        entry = self.entry("delta", f"3 {count} changed of {size_label(size)}", size=size)
        names = [PEER] + ([SHELF] if self.shelf_sync_ok else [])
        samples: dict[str, list[Sample]] = {name: [] for name in names}
        for run in range(self.config.runs):
            self.change_on_server(size, run)
            for name in rotate(names, run):
                target = self.kept[(size, name)]
                if name == PEER:
                    sample = self.measure(plug.peer_incremental(target), plug.client_env(target))
                    pulled = (last_json_line(sample.stdout) or {}).get("pulled", {}).get("default/books")
                    stored = stored_books(target)
                    if sample.ok and (pulled != count or stored != size):
                        fail(sample, f"peer pulled {pulled} (expected {count}), stores {stored} (expected {size})")
                else:
                    sample = self.measure(plug.shelf_sync(self.config.shelf_sync), plug.client_env(target))
                samples[name].append(sample)
                self.progress(f"delta {count}/{size} #{run + 1}", name, sample)
        for name in names:
            self.store(entry, name, samples[name])
        if not self.shelf_sync_ok:
            entry["contenders"][SHELF] = {"skipped": self.shelf_skip_reason()}
        add_ratios(entry)

    # MARK: - 4. Push

    def push(self) -> None:
        for count in self.config.push_counts:
            for layout in ("books", "spread"):
                self.push_edits(count, layout)

    def push_edits(self, count: int, layout: str) -> None:
        """`count` new records pushed by each contender, alternated, a fresh account per run.

        `books`: all books, one collection. `spread`: the same number of edits dealt in turn
        to books, notes, tasks and reading sessions, as a reader's day of edits would be —
        Shelf sends batches of different collections side by side, never two into one
        collection (Kinto stamps a collection's records inside each batch's transaction).
        Both contenders send the same `POST /v1/batch` requests count (25 edits each).
        """
        collections = ["books"] if layout == "books" else list(PUSH_SPREAD)
        what = "new books" if layout == "books" else f"edits over {', '.join(collections)}"
        scenario = "push" if layout == "books" and count == 1000 else f"push_{layout}_{count}"
        entry = self.entry(scenario, f"4 push {count} {what}", records=count, layout=layout,
                           expected_batch_requests=sum(-(-n // 25) for n in deal(count, len(collections))))
        shelf_reason = self.shelf_skip_reason(needs_edits=True)
        names = [PEER] + ([SHELF] if shelf_reason is None else [])
        samples: dict[str, list[Sample]] = {name: [] for name in names}
        prepare_s: list[float] = []
        runs = self.config.push_runs if count < 5000 else self.config.large_push_runs
        for run in range(runs):
            for name in rotate(names, run):
                account = Account(f"bench-push-{name}-{run}-{secrets.token_hex(3)}", secrets.token_hex(12))
                target = self.target(account, f"push-{name}")
                records = push_records(count, collections, seed=10_000 + run)
                env = plug.client_env(target)
                if name == PEER:
                    records_file = target.home / "push.json"
                    records_file.write_text(json.dumps(records))
                    server_before = self.server_cpu_s()
                    sample = self.measure(plug.peer_push(records_file), env)
                    created = (last_json_line(sample.stdout) or {}).get("created")
                    if sample.ok and created != count:
                        fail(sample, f"peer reported {created} created, expected {count}")
                else:
                    started = time.perf_counter()
                    failed = self.run_unmeasured(plug.shelf_push_prepare(self.config.shelf_edits, records, target.home), env)
                    prepare_s.append(time.perf_counter() - started)
                    if failed:
                        entry["contenders"][SHELF] = {"skipped": f"preparing local edits failed: {failed}"}
                        names.remove(SHELF)
                        continue
                    server_before = self.server_cpu_s()
                    sample = self.measure(plug.shelf_push(self.config.shelf_sync), env)
                sample.extra["server_cpu_s"] = round(self.server_cpu_s() - server_before, 3)
                on_server = sum(self.server_count(account, collection) for collection in collections)
                if sample.ok and on_server != count:
                    fail(sample, f"server holds {on_server} records after the push, expected {count}")
                sample.extra["batch_requests"] = sample.extra.get("by_kind", {}).get("POST /v1/batch", 0)
                samples[name].append(sample)
                self.progress(f"push {count} {layout} #{run + 1}", name, sample)
                shutil.rmtree(target.home, ignore_errors=True)
        for name in names:
            self.store(entry, name, samples[name])
        if shelf_reason is not None:
            entry["contenders"][SHELF] = {"skipped": shelf_reason}
        if prepare_s:
            entry["shelf_prepare_s"] = spread(prepare_s)
        add_ratios(entry)

    def run_unmeasured(self, commands: list[list[str]], env: dict) -> str | None:
        for argv in commands:
            result = subprocess.run(argv, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                    stderr=subprocess.PIPE, timeout=CLIENT_TIMEOUT_S)
            if result.returncode != 0:
                return f"{pathlib.Path(argv[0]).name} {' '.join(argv[1:3])}… exited {result.returncode}: " \
                       f"{result.stderr.decode(errors='replace').strip()[-200:]}"
        return None

    def server_cpu_s(self) -> float:
        """CPU seconds Kinto's processes and PostgreSQL's have used so far (procstat.py)."""
        stats = procstat.all_stats()
        roots = [self.kinto.process.pid if self.kinto.process else None, self.cluster.postmaster_pid()]
        return procstat.ticks_to_s(sum(procstat.tree_ticks(pid, stats) for pid in roots if pid))

    def server_count(self, account: Account, collection: str) -> int:
        api = KintoAPI(self.kinto.root_url, account)
        try:
            return api.total_records("default", collection)
        finally:
            api.close()

    # MARK: - 5. Memory

    def memory(self) -> None:
        small, large = min(self.config.sizes), max(self.config.sizes)
        entry = self.entry("memory", f"5 peak RSS {size_label(large)} / {size_label(small)}", kind="value")
        if small == large:
            entry["contenders"]["all"] = {"skipped": "needs two sizes (the quick run measures 20k only)"}
            return
        first = {e["size"]: e for e in self.results["scenarios"] if e["scenario"] == "first_sync"}
        for name in (PEER, FLOOR, SHELF):
            rows = [first[size]["contenders"].get(name, {}).get("summary") for size in (small, large)]
            if not all(rows) or not all(r.get("maxrss_kb") for r in rows):
                entry["contenders"][name] = {"skipped": "not measured"}
                continue
            lo, hi = (r["maxrss_kb"]["median"] / 1024 for r in rows)
            entry["contenders"][name] = {"text": f"{hi:.1f} MB / {lo:.1f} MB = {hi / lo:.2f}×",
                                         "small_mb": round(lo, 1), "large_mb": round(hi, 1),
                                         "ratio": round(hi / lo, 3)}

    # MARK: - 6. Local reads

    def local_reads(self) -> None:
        size = max(self.config.sizes)
        entry = self.entry("local_reads", f"6 local reads ({size_label(size)} store)", size=size)
        reason = self.shelf_skip_reason(needs_shelf=True)
        if reason is not None:
            entry["contenders"][SHELF] = {"skipped": reason}
            return
        env = plug.client_env(self.kept[(size, SHELF)])
        commands = {
            f"shelf books --search {seeding.SEARCH_COMMON}": plug.shelf_search(self.config.shelf, seeding.SEARCH_COMMON),
            f"shelf books --search {seeding.SEARCH_NONE}": plug.shelf_search(self.config.shelf, seeding.SEARCH_NONE),
            "shelf --version": plug.shelf_version(self.config.shelf),
        }
        hyperfine = shutil.which("hyperfine")
        entry["method"] = "hyperfine" if hyperfine else "repeated runs (hyperfine not installed)"
        for label, argv in commands.items():
            check = run_measured(argv, env=env, timeout=120)
            if not check.ok:
                entry["contenders"][label] = {"skipped": f"exit {check.exit_code}: {check.stderr.strip()[-200:]}"}
                continue
            samples = [run_measured(argv, env=env, timeout=120) for _ in range(self.config.read_runs)]
            row = {"summary": summarize(samples), "samples": [s.as_dict() for s in samples]}
            if hyperfine:
                row["summary"]["wall_s"] = self.hyperfine(hyperfine, argv, env)
            entry["contenders"][label] = row
            wall = row["summary"]["wall_s"]
            self.log(f"{label}: median {wall['median'] * 1000:.1f} ms [{wall['min'] * 1000:.1f}–{wall['max'] * 1000:.1f}]")

    def hyperfine(self, hyperfine: str, argv: list[str], env: dict) -> dict:
        """Wall-time spread from hyperfine (warm-up runs, no shell in between)."""
        export = self.ws.path / "hyperfine.json"
        command = " ".join(_shell_quote(a) for a in argv)
        subprocess.run([hyperfine, "-N", "--warmup", "3", "--runs", str(max(self.config.read_runs, 10)),
                        "--export-json", str(export), "--", command],
                       env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
        times = json.loads(export.read_text())["results"][0]["times"]
        return spread(times)

    # MARK: - 7. JSON throughput

    def json_throughput(self, page: pathlib.Path) -> None:
        entry = self.entry("json", "7 JSON → stored records", kind="value", page=str(page))
        runs = {"python": plug.python_json(page), "python storage": plug.python_storage(page)}
        if plug.executable(self.config.swift_json):
            runs["swift"] = plug.swift_json(self.config.swift_json, page)
        else:
            entry["contenders"]["swift"] = {"skipped": f"no executable at {self.config.swift_json}"}
        for name, argv in runs.items():
            figures = []
            for _ in range(3):
                sample = run_measured(argv, timeout=300)
                if not sample.ok:
                    entry["contenders"][name] = {"skipped": f"exit {sample.exit_code}: {sample.stderr.strip()[-200:]}"}
                    break
                figures.append(parse_throughput(sample.stdout))
            else:
                headline = spread([f[-1][1] for f in figures])
                detail = {label: value for label, value in figures[-1]}
                text = f"{headline['median']:.1f} MB/s [{headline['min']:.1f}–{headline['max']:.1f}]"
                if len(figures[-1]) > 1:
                    text += " (" + ", ".join(f"{k} {v:.1f}" for k, v in figures[-1][:-1]) + ")"
                entry["contenders"][name] = {"text": text, "mb_per_s": headline, "lines": detail}
                self.log(f"JSON {name}: {text}")
        figures = {name: row["mb_per_s"]["median"] for name, row in entry["contenders"].items() if "mb_per_s" in row}
        if "swift" in figures and "python" in figures:
            entry["swift_vs_python"] = round(figures["swift"] / figures["python"], 3)
        if "swift" in figures and "python storage" in figures:
            # The like-for-like race: both store the page the same way (storage_race.py).
            entry["swift_vs_python_storage"] = round(figures["swift"] / figures["python storage"], 3)
            entry["contenders"]["Shelf / Python storage"] = {
                "text": f"{entry['swift_vs_python_storage']:.2f}× (target ≥ 1.5×: "
                        f"{'met' if entry['swift_vs_python_storage'] >= 1.5 else 'missed'})"}
            self.log(f"JSON → stored records, like for like: Shelf / Python = {entry['swift_vs_python_storage']:.2f}×")


def parse_throughput(text: str) -> list[tuple[str, float]]:
    """`<what>: <number> MB/s` lines, in order; the last one is the headline."""
    figures = []
    for line in text.splitlines():
        if "MB/s" not in line:
            continue
        before = line.split("MB/s")[0].strip()
        label, _, number = before.rpartition(" ")
        try:
            figures.append((label.rstrip(":").strip() or "throughput", float(number)))
        except ValueError:
            continue
    if not figures:
        raise ValueError("no `<number> MB/s` line in the output")
    return figures


def _shell_quote(argument: str) -> str:
    if argument and all(c.isalnum() or c in "-_./=:@%+," for c in argument):
        return argument
    return "'" + argument.replace("'", "'\"'\"'") + "'"
