"""The scale curve: the same scenarios at 10k, 100k and 1,000,000 records.

At each size, in this order, on data seeded in bulk (seeding.py):

1. first sync into an empty store, for Shelf, kinto-http and curl, alternated run by
   run; every run goes through the counting proxy (its cost per request is `make
   bench`'s scenario 0; a first sync makes one request per 10,000 records), so each
   has its requests and bytes, and a million-record sync is not done twice per
   contender just to count them;
   the last good run's store is the one the next steps continue from;
2. the idle run (nothing changed) and 3. the run after 100 books changed on the
   server, for Shelf and kinto-http (curl has no store to continue from);
4. Shelf only, on the same store (`ScaleBench.reconcile`): idle runs within Shelf's
   60 s commit window after the last delta (they pull the window's records again and
   drop them), the first one after it and the settled ones after that; then
   `shelf-sync --reconcile-whole` (the whole list, as every reconciliation was before
   range counts) and `shelf-sync --reconcile` (by ranges) on the unchanged collection
   (nothing fetched, nothing absent); then 50 books written straight into PostgreSQL
   stamped ten minutes behind the device's cursor, as a transaction that committed late
   leaves them (late_commits.py): a plain `shelf-sync` must not get them, `--reconcile`
   must fetch all 50; then 50 more at random stamps anywhere in the older history, which
   `--reconcile` must find by its counts and fetch;
5. `shelf books --search ursula` over that store (its 50 late books included), with
   `--limit 50` when the CLI has the option (it says so when it does not).

Then the figures that matter at scale are derived from the medians: client CPU per
record, peak RSS against the smaller sizes, and the issue's three targets.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import time

import contenders as plug
import late_commits
import procstat
import seeding
from contenders import Target
from measure import Sample, median_of, run_measured, spread, summarize
from report import FLOOR, NAMES, PEER, SHELF, add_ratios
from scenarios import Bench, fail, rotate, size_label
from svg_plot import Panel, Series, figure

# The issue's targets for the curve (checked by `targets`).
CPU_FLATNESS = 1.3        # Shelf's CPU per record at the largest size ≤ this × the smallest's
RSS_GROWTH = 1.5          # Shelf's peak RSS at the largest size ≤ this × the next size down
IDLE_REQUESTS = 1         # the idle run at the largest size: requests…
IDLE_WALL_S = 0.100       # …and wall time
SEARCH_LIMIT = 50
# Shelf's default commit window (`CommitWindow.standard`): a pull reaches this far back.
COMMIT_WINDOW_S = 60
# The rows of the reconciliation scenario, in the order they are measured.
WITHIN_WINDOW, FIRST_AFTER_WINDOW, AFTER_WINDOW = "idle, within the window", "idle, first after it", "idle, after it"
RECONCILE_WHOLE = "reconcile, whole list"
RECONCILE_UNCHANGED = "reconcile by ranges, nothing changed"
LATE_SYNC, LATE_RECONCILE = "sync after 50 late commits", "reconcile after 50 late commits"
SCATTERED_RECONCILE = "reconcile, 50 missing anywhere"
RECONCILE_ROWS = (RECONCILE_WHOLE, RECONCILE_UNCHANGED, LATE_SYNC, LATE_RECONCILE, SCATTERED_RECONCILE)
# Local reads (wall of the `shelf` process), by size and command; judged where measured.
SEARCH_TARGETS_S = {(100_000, f"--limit {SEARCH_LIMIT}"): 0.020, (1_000_000, f"--limit {SEARCH_LIMIT}"): 0.050,
                    (100_000, "unlimited"): 0.050}


class ScaleBench(Bench):
    """`Bench` with first syncs that count every run, reconciliation and searches at every size."""

    # When the last delta runs ended (`time.monotonic()`): the commit window's start.
    delta_finished: float | None = None

    def first_sync_counted(self, size: int, runs: int) -> None:
        account = self.accounts[size]
        entry = self.entry("first_sync", f"1 first sync {size_label(size)}", size=size, floor=True)
        names = [PEER, FLOOR] + ([SHELF] if self.shelf_sync_ok else [])
        samples: dict[str, list[Sample]] = {name: [] for name in names}
        self.warm(size)
        for run in range(runs):
            for name in rotate(names, run):
                target = self.target(account, f"{name}-{size}-")
                sample = self.run_first_sync(name, target, size, counted=True)
                samples[name].append(sample)
                self.progress(f"first sync {size} #{run + 1}", name, sample)
                # Keep the last good store of each client for the runs that continue from it.
                if sample.ok and name != FLOOR:
                    old = self.kept.get((size, name))
                    if old is not None:
                        shutil.rmtree(old.home, ignore_errors=True)
                    self.kept[(size, name)] = target
                else:
                    shutil.rmtree(target.home, ignore_errors=True)
        for name in names:
            self.store(entry, name, samples[name])
            row = entry["contenders"][name]
            cpu = median_of(row["summary"], "cpu_s")
            if cpu is not None:
                row["summary"]["cpu_us_per_record"] = round(cpu / size * 1e6, 3)
        if not self.shelf_sync_ok:
            entry["contenders"][SHELF] = {"skipped": self.shelf_skip_reason()}
        elif self.shelf_ok and (size, SHELF) in self.kept:
            entry["checks"] = {"shelf_books": self.count_shelf_books(self.kept[(size, SHELF)], size)}
        add_ratios(entry)

    def continued(self, size: int) -> bool:
        """Whether both stores the idle and delta runs continue from exist."""
        missing = [name for name in (PEER, SHELF) if (size, name) not in self.kept
                   and (name != SHELF or self.shelf_sync_ok)]
        if missing:
            self.config.notes.append(f"{size}: no good first sync for {', '.join(missing)}: "
                                     "idle and delta runs skipped")
        return not missing

    # MARK: - Searches at every size

    def limit_supported(self) -> bool:
        """Whether `shelf books` takes `--limit` (its --help says so)."""
        if not self.shelf_ok:
            return False
        result = subprocess.run([str(self.config.shelf), "books", "--help"], stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, timeout=30, env={"PATH": "/usr/bin:/bin", "NO_COLOR": "1"})
        return "--limit" in result.stdout.decode(errors="replace")

    def searches(self, size: int, with_limit: bool) -> None:
        entry = self.entry("search", f"4 books --search {seeding.SEARCH_COMMON} ({size_label(size)})", size=size)
        reason = self.shelf_skip_reason(needs_shelf=True)
        if reason is None and (size, SHELF) not in self.kept:
            reason = "no good Shelf first sync to search"
        if reason is not None:
            entry["contenders"]["shelf"] = {"skipped": reason}
            return
        env = plug.client_env(self.kept[(size, SHELF)])
        commands = {"unlimited": plug.shelf_search(self.config.shelf, seeding.SEARCH_COMMON)}
        if with_limit:
            commands[f"--limit {SEARCH_LIMIT}"] = commands["unlimited"] + ["--limit", str(SEARCH_LIMIT)]
        else:
            entry["contenders"][f"--limit {SEARCH_LIMIT}"] = {"skipped": "shelf books has no --limit option yet"}
        hyperfine = shutil.which("hyperfine")
        for label, argv in commands.items():
            # Not timed: does it work, and how many lines does it print (all of them kept).
            check = subprocess.run(argv, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE, timeout=120)
            if check.returncode != 0:
                entry["contenders"][label] = {"skipped": f"exit {check.returncode}: "
                                                         f"{check.stderr.decode(errors='replace').strip()[-200:]}"}
                continue
            matches = sum(1 for line in check.stdout.splitlines() if line.strip())
            samples = [run_measured(argv, env=env, timeout=120) for _ in range(self.config.read_runs)]
            row = {"summary": summarize(samples), "samples": [s.as_dict() for s in samples],
                   "output_lines": matches}
            if hyperfine:
                row["summary"]["wall_s"] = self.hyperfine(hyperfine, argv, env)
            entry["contenders"][label] = row
            wall = row["summary"]["wall_s"]
            self.log(f"search {size} {label}: median {wall['median'] * 1000:.1f} ms, {matches} lines")

    # MARK: - Reconciliation and the commit window (Shelf only)

    def delta(self, size: int) -> None:
        super().delta(size)
        # The window of the last change starts no later than this (Shelf's pull came after it).
        self.delta_finished = time.monotonic()

    def reconcile(self, size: int) -> None:
        """Right after the delta runs, on the store they left: idle runs within the commit
        window and after it, then reconciliations of the unchanged collection and of 50
        records that committed late."""
        idle = self.entry("commit_window", f"2b idle runs and the {COMMIT_WINDOW_S} s commit window "
                          f"({size_label(size)})", size=size, window_s=COMMIT_WINDOW_S)
        entry = self.entry("reconcile", f"5 reconciliation ({size_label(size)})", size=size,
                           late_records=late_commits.LATE_RECORDS)
        reason = self.shelf_skip_reason()
        if reason is None and (size, SHELF) not in self.kept:
            reason = "no good Shelf first sync to continue from"
        if reason is not None:
            for e, names in ((idle, (WITHIN_WINDOW, FIRST_AFTER_WINDOW, AFTER_WINDOW)), (entry, RECONCILE_ROWS)):
                for name in names:
                    e["contenders"][name] = {"skipped": reason}
            return
        target = self.kept[(size, SHELF)]
        self.commit_window(size, target, idle)
        self.reconcile_unchanged(size, target, entry, whole=True)
        self.reconcile_unchanged(size, target, entry, whole=False)
        self.reconcile_late(size, target, entry)
        self.reconcile_scattered(size, target, entry)

    def run_reporting(self, command, target: Target, tag: str) -> Sample:
        """One measured `shelf-sync` through the proxy, with its report's books figures
        (`extra["books"]`) and the load average when it started (`extra["load"]`)."""
        report = target.home / f"report-{tag}.json"
        report.unlink(missing_ok=True)
        load = [round(x, 2) for x in os.getloadavg()]
        before = self.server_cpu()
        sample = self.measure(command(self.config.shelf_sync, report), plug.client_env(target))
        after = self.server_cpu()
        sample.extra["load"] = load
        if before is not None and after is not None:
            sample.extra["server_cpu_s"] = round(after - before, 3)
        figures = late_commits.collection_figures(late_commits.read_report(report))
        sample.extra["books"] = figures
        if sample.ok and figures is None:
            fail(sample, f"no books figures in the report {report.name}")
        return sample

    def server_cpu(self) -> float | None:
        """Kinto's and PostgreSQL's CPU so far (process trees, /proc): a run's server cost is
        the difference around it (the machine's other work is not in it)."""
        kinto = getattr(getattr(self.kinto, "process", None), "pid", None)
        postmaster = self.cluster.postmaster_pid()
        if not kinto or not postmaster:
            return None
        stats = procstat.all_stats()
        return procstat.ticks_to_s(procstat.tree_ticks(kinto, stats) + procstat.tree_ticks(postmaster, stats))

    def store_rows(self, entry: dict, name: str, samples: list[Sample]) -> None:
        self.store(entry, name, samples)
        row = entry["contenders"][name]
        server = [s.extra["server_cpu_s"] for s in samples if s.ok and "server_cpu_s" in s.extra]
        if server:
            row["server_cpu_s"] = spread(server)
        row["figures"] = late_commits.median_figures([s.extra["books"] for s in samples
                                                      if s.ok and s.extra.get("books")])
        row["load_1m"] = spread([s.extra["load"][0] for s in samples if "load" in s.extra])

    def commit_window(self, size: int, target: Target, entry: dict) -> None:
        """Idle runs while the last delta is within the window (its records come again and
        are dropped), then — once the window has passed — the first run and the settled ones."""
        started = self.delta_finished or time.monotonic()
        within = []
        for run in range(self.config.runs):
            since = time.monotonic() - started
            sample = self.run_reporting(plug.shelf_sync_reporting, target, f"within-{run}")
            sample.extra["since_delta_s"] = round(since, 1)
            if sample.ok and since + sample.wall_s >= COMMIT_WINDOW_S:
                fail(sample, f"started {since:.0f} s after the delta: not within the window")
            within.append(sample)
            self.progress(f"idle in window {size} #{run + 1}", SHELF, sample)
        self.store_rows(entry, WITHIN_WINDOW, within)
        wait = started + self.config.window_wait_s - time.monotonic()
        if wait > 0:
            self.log(f"waiting {wait:.0f} s for the commit window to pass")
            time.sleep(wait)
        entry["window_wait_s"] = self.config.window_wait_s
        first = self.run_reporting(plug.shelf_sync_reporting, target, "after-first")
        first.extra["since_delta_s"] = round(time.monotonic() - started - first.wall_s, 1)
        self.progress(f"idle after window {size}", SHELF, first)
        self.store_rows(entry, FIRST_AFTER_WINDOW, [first])
        after = []
        for run in range(self.config.runs):
            sample = self.run_reporting(plug.shelf_sync_reporting, target, f"after-{run}")
            after.append(sample)
            self.progress(f"idle settled {size} #{run + 1}", SHELF, sample)
        self.store_rows(entry, AFTER_WINDOW, after)

    def reconcile_unchanged(self, size: int, target: Target, entry: dict, whole: bool) -> None:
        """A store that matches the server, reconciled: by the whole list (`--reconcile-whole`,
        every reconciliation before range counts: lists every id) or by ranges (`--reconcile`);
        either fetches nothing."""
        samples = []
        command, name = (plug.shelf_reconcile_whole, RECONCILE_WHOLE) if whole else (plug.shelf_reconcile, RECONCILE_UNCHANGED)
        for run in range(self.config.runs):
            sample = self.run_reporting(command, target, f"reconcile-{'whole' if whole else 'ranges'}-{run}")
            problems = late_commits.unchanged_problems(sample.extra["books"], size, whole=whole) if sample.ok else []
            if problems:
                fail(sample, "; ".join(problems))
            samples.append(sample)
            self.progress(f"{name} {size} #{run + 1}", SHELF, sample)
            self.log_reconciliation(sample)
        self.store_rows(entry, name, samples)

    def reconcile_scattered(self, size: int, target: Target, entry: dict) -> None:
        """50 books written at random stamps anywhere in the collection's history, older than
        the recent records a reconciliation lists whole: `--reconcile` must fetch exactly them."""
        count = late_commits.LATE_RECORDS
        parent_id, resource_name, newest = self.books_collection(size)
        oldest = int(self.cluster.psql(
            f"SELECT as_epoch(min(last_modified)) FROM objects WHERE parent_id = '{parent_id}' "
            f"AND resource_name = '{resource_name}'").strip())
        cursor = late_commits.device_cursor(target.home) or newest
        books = late_commits.late_books(count, seed=size + 2 * count)
        stamps = late_commits.scattered_stamps(oldest, cursor - late_commits.SCATTERED_BEHIND_MS, count, seed=size)
        inserted = late_commits.parse_inserted(self.cluster.psql(
            stdin=late_commits.scattered_insert_sql(parent_id, resource_name, books, stamps).encode()))
        entry["scattered_insert"] = {"inserted": len(inserted), "oldest": oldest, "device_cursor": cursor,
                                     "stamps": [min(inserted.values()), max(inserted.values())] if inserted else None}
        self.log(f"wrote {len(inserted)} books into PostgreSQL at random stamps between the oldest record and "
                 f"{late_commits.SCATTERED_BEHIND_MS // 3_600_000} h behind the device's cursor")
        if len(inserted) != count:
            entry["contenders"][SCATTERED_RECONCILE] = {"skipped": f"inserted {len(inserted)} of {count} books"}
            return
        self.reconcile_finding(target, entry, SCATTERED_RECONCILE, list(inserted), f"reconcile, {count} missing anywhere {size}")

    def books_collection(self, size: int) -> tuple[str, str, int]:
        """The books collection's `parent_id`, `resource_name` and newest stamp in PostgreSQL."""
        parent = self.cluster.psql(
            "SELECT parent_id || '|' || resource_name FROM objects WHERE resource_name = 'record' "
            f"AND id = '{self.books[size][0]['id']}' AND parent_id LIKE '%/collections/books'").strip()
        parent_id, _, resource_name = parent.partition("|")
        newest = int(self.cluster.psql(
            f"SELECT as_epoch(max(last_modified)) FROM objects WHERE parent_id = '{parent_id}' "
            f"AND resource_name = '{resource_name}'").strip())
        return parent_id, resource_name, newest

    def reconcile_late(self, size: int, target: Target, entry: dict) -> None:
        """50 books committed late, behind the device's cursor: a plain sync must not see
        them, `--reconcile` must fetch every one."""
        count = late_commits.LATE_RECORDS
        parent_id, resource_name, newest = self.books_collection(size)
        cursor = late_commits.device_cursor(target.home)
        if cursor is None:  # a store without Shelf's sync_state (the harness's stand-in)
            cursor = newest
        books = late_commits.late_books(count, seed=size + count)
        sql = late_commits.late_insert_sql(parent_id, resource_name, books, cursor - late_commits.LATE_BEHIND_MS)
        inserted = late_commits.parse_inserted(self.cluster.psql(stdin=sql.encode()))
        after = int(self.cluster.psql(
            f"SELECT as_epoch(max(last_modified)) FROM objects WHERE parent_id = '{parent_id}' "
            f"AND resource_name = '{resource_name}'").strip())
        entry["late_insert"] = {"parent_id": parent_id, "device_cursor": cursor, "server_newest": newest,
                                "server_newest_after": after, "inserted": len(inserted),
                                "stamps": [min(inserted.values()), max(inserted.values())] if inserted else None}
        self.log(f"wrote {len(inserted)} books into PostgreSQL stamped "
                 f"{(cursor - max(inserted.values())) / 1000:.0f}–{(cursor - min(inserted.values())) / 1000:.0f} s "
                 f"behind the device's cursor {cursor} (collection's newest {newest} → {after})" if inserted
                 else "wrote no late books")
        if len(inserted) != count or after != newest:
            for name in (LATE_SYNC, LATE_RECONCILE):
                entry["contenders"][name] = {"skipped": f"inserted {len(inserted)} of {count} late books, "
                                                        f"collection's newest {newest} → {after}"}
            return
        ids = [book["id"] for book in books]

        sample = self.run_reporting(plug.shelf_sync_reporting, target, "late-sync")
        sample.extra["late_stored"] = late_commits.stored_ids(target.home, ids)
        problems = late_commits.late_sync_problems(sample.extra["books"], sample.extra["late_stored"]) if sample.ok else []
        if problems:
            fail(sample, "; ".join(problems))
        self.progress(f"sync, {count} late {size}", SHELF, sample)
        self.store_rows(entry, LATE_SYNC, [sample])

        self.reconcile_finding(target, entry, LATE_RECONCILE, ids, f"reconcile, {count} late {size}")
        if self.shelf_ok:
            entry["checks"] = {"shelf_books": self.count_shelf_books(target, size + count)}

    def reconcile_finding(self, target: Target, entry: dict, name: str, ids: list[str], what: str) -> None:
        """`shelf-sync --reconcile` after `ids` were written behind the cursor: it must fetch
        and store exactly them."""
        sample = self.run_reporting(plug.shelf_reconcile, target, name.replace(" ", "-").replace(",", ""))
        sample.extra["late_stored"] = late_commits.stored_ids(target.home, ids)
        problems = (late_commits.late_reconcile_problems(sample.extra["books"], sample.extra["late_stored"], len(ids))
                    if sample.ok else [])
        if problems:
            fail(sample, "; ".join(problems))
        self.progress(what, SHELF, sample)
        self.log_reconciliation(sample)
        self.store_rows(entry, name, [sample])

    def log_reconciliation(self, sample: Sample) -> None:
        rec = (sample.extra.get("books") or {}).get("reconciliation")
        if rec:
            self.log("    reconciliation: " + ", ".join(f"{k} {v}" for k, v in rec.items()))

    def forget(self, size: int) -> None:
        """Removes a size's stores once its scenarios are done (a 1M store is ~0.5 GB)."""
        for name in (PEER, SHELF):
            target = self.kept.pop((size, name), None)
            if target is not None:
                shutil.rmtree(target.home, ignore_errors=True)


# MARK: - The curve and the targets

def curve(results: dict) -> dict:
    """Per contender and size: wall, CPU, CPU per record and peak RSS medians of first syncs."""
    points: dict[str, dict[int, dict]] = {}
    for entry in results["scenarios"]:
        if entry["scenario"] != "first_sync":
            continue
        for name, row in entry["contenders"].items():
            summary = row.get("summary")
            if not summary or not summary.get("wall_s"):
                continue
            points.setdefault(name, {})[entry["size"]] = {
                "wall_s": median_of(summary, "wall_s"), "cpu_s": median_of(summary, "cpu_s"),
                "cpu_us_per_record": summary.get("cpu_us_per_record"),
                "maxrss_mb": (median_of(summary, "maxrss_kb") or 0) / 1024 or None,
                "requests": median_of(summary, "requests"),
            }
    return points


def targets(results: dict) -> list[dict]:
    """The issue's scale targets, each with its figures, ratio and verdict."""
    sizes = sorted(results["meta"]["sizes"])
    shelf = curve(results).get(SHELF, {})
    found = []
    small, large = sizes[0], sizes[-1]

    def verdict(name: str, ok: bool | None, text: str) -> None:
        found.append({"target": name, "met": ok, "text": text})

    a, b = shelf.get(small, {}).get("cpu_us_per_record"), shelf.get(large, {}).get("cpu_us_per_record")
    if a and b and small != large:
        ratio = b / a
        verdict(f"Shelf CPU per record flat within {CPU_FLATNESS}× from {size_label(small)} to {size_label(large)}",
                ratio <= CPU_FLATNESS, f"{b:.2f} µs / {a:.2f} µs = {ratio:.2f}×")
    else:
        verdict(f"Shelf CPU per record flat within {CPU_FLATNESS}×", None, "needs two sizes with Shelf first syncs")

    if len(sizes) >= 2:
        below = sizes[-2]
        a, b = shelf.get(below, {}).get("maxrss_mb"), shelf.get(large, {}).get("maxrss_mb")
        if a and b:
            ratio = b / a
            verdict(f"Shelf peak RSS at {size_label(large)} ≤ {RSS_GROWTH}× its {size_label(below)} figure",
                    ratio <= RSS_GROWTH, f"{b:.1f} MB / {a:.1f} MB = {ratio:.2f}×")
        else:
            verdict(f"Shelf peak RSS growth ≤ {RSS_GROWTH}×", None, "not measured")
    else:
        verdict(f"Shelf peak RSS growth ≤ {RSS_GROWTH}×", None, "needs two sizes")

    idle = next((e for e in results["scenarios"] if e["scenario"] == "no_change" and e["size"] == large), None)
    summary = (idle or {}).get("contenders", {}).get(SHELF, {}).get("summary")
    wall, requests = median_of(summary, "wall_s"), median_of(summary, "requests")
    if wall is not None and requests is not None:
        ok = requests <= IDLE_REQUESTS and wall < IDLE_WALL_S
        verdict(f"Shelf idle run at {size_label(large)}: {IDLE_REQUESTS} request and < {IDLE_WALL_S * 1000:.0f} ms",
                ok, f"{requests:.0f} request{'' if requests == 1 else 's'}, {wall * 1000:.1f} ms")
    else:
        verdict(f"Shelf idle run at {size_label(large)}", None, "not measured")

    for entry in results["scenarios"]:
        if entry["scenario"] != "search":
            continue
        for label, row in entry["contenders"].items():
            limit_s = SEARCH_TARGETS_S.get((entry["size"], label))
            wall = median_of(row.get("summary"), "wall_s")
            if limit_s is not None and wall is not None:
                verdict(f"`shelf books --search {seeding.SEARCH_COMMON}` ({label}) at {size_label(entry['size'])} "
                        f"< {limit_s * 1000:.0f} ms", wall < limit_s, f"{wall * 1000:.1f} ms")
    return found


def scale_table(results: dict) -> str:
    """Per size and contender: the first sync's figures per record, then the targets."""
    header = ["records", "contender", "wall", "CPU", "CPU/record", "peak RSS", "req",
              "wall/peer", "CPU/peer", "wall/floor", "RSS/peer"]
    lines = [header]
    for entry in results["scenarios"]:
        if entry["scenario"] != "first_sync":
            continue
        for name, row in entry["contenders"].items():
            who = NAMES.get(name, name)
            if "skipped" in row:
                lines.append([size_label(entry["size"]), who, "skipped: " + row["skipped"]])
                continue
            s, r = row["summary"], row.get("ratios", {})
            failed = f" ({s['failed']}/{s['runs']} failed)" if s.get("failed") else ""
            lines.append([size_label(entry["size"]), who, _num(median_of(s, "wall_s"), "s") + failed,
                          _num(median_of(s, "cpu_s"), "s"), _num(s.get("cpu_us_per_record"), "µs"),
                          _num((median_of(s, "maxrss_kb") or 0) / 1024 or None, "MB", 1),
                          _num(median_of(s, "requests"), "", 0),
                          _x(r.get("wall_s_vs_peer")), _x(r.get("cpu_s_vs_peer")),
                          _x(r.get("wall_s_vs_floor")), _x(r.get("maxrss_kb_vs_peer"))])
    widths = [max(len(line[i]) for line in lines if len(line) == len(header)) for i in range(len(header))]
    out = []
    out += _aligned(lines, header, widths)
    out.append("")
    for entry in results["scenarios"]:
        if entry["scenario"] in ("after_first_sync", "no_change", "delta", "search"):
            for name, row in entry["contenders"].items():
                who = NAMES.get(name, name)
                if "skipped" in row:
                    out.append(f"{entry['label']:<34} {who:<18} skipped: {row['skipped']}")
                    continue
                s = row["summary"]
                extra = (f"  {row['output_lines']} lines printed" if "output_lines" in row
                         else f"  req {_num(median_of(s, 'requests'), '', 0)}")
                out.append(f"{entry['label']:<34} {who:<18} wall {_ms(median_of(s, 'wall_s'))}  "
                           f"CPU {_ms(median_of(s, 'cpu_s'))}  RSS {_num((median_of(s, 'maxrss_kb') or 0) / 1024 or None, 'MB', 1)}"
                           f"{extra}")
    out.append("")
    reconciliation = reconciliation_lines(results)
    if reconciliation:
        out += reconciliation + [""]
    for target in results.get("targets", []):
        state = {True: "MET", False: "MISSED", None: "not measured"}[target["met"]]
        out.append(f"target: {target['target']}: {target['text']} — {state}")
    for entry in results["scenarios"]:
        if entry["scenario"] == "json":
            for name, row in entry["contenders"].items():
                out.append(f"{entry['label']}, {name}: {row.get('text') or 'skipped: ' + row.get('skipped', '')}")
            if "swift_vs_python_storage" in entry:
                out.append(f"target: Shelf bytes → stored records ≥ 1.5× the like-for-like Python figure: "
                           f"{entry['swift_vs_python_storage']:.2f}× — "
                           f"{'MET' if entry['swift_vs_python_storage'] >= 1.5 else 'MISSED'}")
    for note in results.get("notes", []):
        out.append("note: " + note)
    return "\n".join(out)


def reconciliation_lines(results: dict) -> list[str]:
    """Shelf's idle runs around the commit window and its reconciliations, one row each:
    medians of wall, client CPU, requests and bytes (the proxy's), the report's books
    figures, the check, and the load average (1 min) the runs started at."""
    header = ["records", "Shelf run", "wall", "CPU", "server CPU", "req", "KB down", "ranges c/d/l", "listed", "listed KB",
              "fetched", "absent", "late", "runs", "load", "check"]
    lines = [header]
    for entry in results["scenarios"]:
        if entry["scenario"] not in ("commit_window", "reconcile"):
            continue
        for name, row in entry["contenders"].items():
            if "skipped" in row:
                lines.append([size_label(entry["size"]), name, "skipped: " + row["skipped"]])
                continue
            s, figures = row["summary"], row.get("figures") or {}
            rec = figures.get("reconciliation") or {}
            errors = row.get("errors")
            check = "ok" if not errors and not s.get("failed") else "FAILED: " + "; ".join(errors or ["see samples"])
            load = row.get("load_1m")
            server = row.get("server_cpu_s")
            lines.append([size_label(entry["size"]), name, _duration(median_of(s, "wall_s")),
                          _duration(median_of(s, "cpu_s")), _duration(server["median"] if server else None),
                          _num(median_of(s, "requests"), "", 0), _num((median_of(s, "bytes_down") or 0) / 1024 or None, "", 0),
                          _ranges(rec), _int(rec.get("listed")), _num(rec["listed_bytes"] / 1024, "", 0) if rec.get("listed_bytes") is not None else "—",
                          _int(rec.get("fetched")), _int(rec.get("absent")), _int(figures.get("late")),
                          f"{s['runs'] - s.get('failed', 0)}/{s['runs']}",
                          "—" if not load else (f"{load['min']:.1f}" if load["min"] == load["max"]
                                                else f"{load['min']:.1f}–{load['max']:.1f}"), check])
    if len(lines) == 1:
        return []
    measured = [line for line in lines if len(line) == len(header)]
    widths = [max(len(line[i]) for line in (lines if i < 2 else measured)) for i in range(len(header))]
    out = ["Shelf: idle runs around the commit window, and reconciliation (report figures are books'; "
           "ranges: counted / differing / listed)"]
    out += _aligned(lines, header, widths)
    late = [e for e in results["scenarios"] if e["scenario"] == "reconcile" and e.get("late_insert")]
    for entry in late:
        info = entry["late_insert"]
        if info.get("stamps"):
            behind = [(info["device_cursor"] - stamp) / 1000 for stamp in info["stamps"]]
            out.append(f"{size_label(entry['size'])}: {info['inserted']} books written into PostgreSQL stamped "
                       f"{min(behind):.0f}–{max(behind):.0f} s behind the device's cursor; the collection's "
                       f"newest stamp stayed {info['server_newest_after']}")
        books = (entry.get("checks") or {}).get("shelf_books")
        if books and books.get("checked"):
            out.append(f"{size_label(entry['size'])}: `shelf --json books` lists {books['books']} books after the "
                       f"reconciliation (expected {books['expected']}): {'ok' if books['ok'] else 'MISMATCH'}")
    return out


def _duration(value) -> str:
    """Milliseconds below a second, seconds from there."""
    if value is None:
        return "—"
    return f"{value * 1000:.1f} ms" if value < 1 else f"{value:.2f} s"


def _int(value) -> str:
    return "—" if value is None else f"{value:.0f}"


def _ranges(rec: dict) -> str:
    """A reconciliation's ranges: counted / differing / listed."""
    keys = ("ranges_counted", "ranges_differing", "ranges_listed")
    return "—" if all(rec.get(k) is None for k in keys) else "/".join(_int(rec.get(k)) for k in keys)


def plot(results: dict) -> str:
    """The SVG: first-sync wall, peak RSS and CPU per record against records."""
    points = curve(results)
    panels = [Panel("First sync: wall time", "seconds"), Panel("First sync: client peak RSS", "MB"),
              Panel("First sync: client CPU per record", "µs per record")]
    for name in (SHELF, PEER, FLOOR):
        by_size = points.get(name, {})
        for panel, key in zip(panels, ("wall_s", "maxrss_mb", "cpu_us_per_record")):
            series = [(size, figures[key]) for size, figures in sorted(by_size.items()) if figures.get(key)]
            if series:
                panel.series.append(Series(NAMES[name], series))
    load = results["meta"]["machine"].get("load_average_at_start")
    return figure(f"Shelf scale curve (commit {results['meta']['machine'].get('commit')}, load {load})", panels)


def _aligned(lines: list[list[str]], header: list[str], widths: list[int]) -> list[str]:
    """A table's lines in columns `widths` wide, a rule under the first; a row with fewer
    cells than the header is a note: its first two cells aligned, the third as it is."""
    out = []
    for index, line in enumerate(lines):
        if len(line) == len(header):
            out.append("  ".join(c.ljust(widths[i]) for i, c in enumerate(line)).rstrip())
        else:
            out.append(f"{line[0].ljust(widths[0])}  {line[1].ljust(widths[1])}  {line[2]}")
        if index == 0:
            out.append("  ".join("-" * w for w in widths))
    return out


def _num(value, unit: str, digits: int = 2) -> str:
    if value is None:
        return "—"
    return f"{value:.{digits}f} {unit}".rstrip()


def _ms(value) -> str:
    return "—" if value is None else f"{value * 1000:.1f} ms"


def _x(value) -> str:
    return "—" if value is None else f"{value:.2f}×"

