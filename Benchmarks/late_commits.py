"""Records that committed late, written straight into Kinto's storage, and what Shelf's
report says about them: the pure parts of the scale curve's reconciliation scenario.

Kinto on PostgreSQL stamps a record while its write transaction is still open, so a
transaction that commits late leaves a record stamped *behind* what a device already
pulled. The harness reproduces what such a commit leaves: `LATE_RECORDS` new books
INSERTed into the `objects` table (the trigger `bump_timestamp()` runs and keeps an
explicit `last_modified` that differs from the collection's newest, see Kinto's
`storage/postgresql/schema.sql`), each with its own free millisecond at or before the
device's cursor minus `LATE_BEHIND_MS`, in one transaction. The collection's timestamp
(its newest record) does not move, exactly as with a real late commit.

A device's next plain sync must not get them (they are behind its settled stamp; only
the commit window's last minute is asked for again); `shelf-sync --reconcile` must
fetch all of them.

The same again with the records *anywhere* in the collection's history
(`scattered_stamps`, `scattered_insert_sql`): each at its own random millisecond between
the oldest record and an hour behind the device's cursor — where a reconciliation by
ranges only counts, so what it costs to find them is the counts' descent, not a listing
of what changed recently.
"""
from __future__ import annotations

import json
import pathlib
import sqlite3
import statistics

import seeding

LATE_RECORDS = 50
LATE_BEHIND_MS = 10 * 60 * 1000   # ten minutes behind the device's cursor
# Candidate stamps searched for free ones (the collection's stamps are unique).
STAMP_SEARCH_MS = 10_000

# The members of a report's `reconciliation`, as Shelf writes them.
RECONCILIATION_KEYS = ("listed", "listed_bytes", "fetched", "deleted", "absent", "requests", "duration_ms",
                       "ranges_counted", "ranges_differing", "ranges_listed")
# The scattered records stay this far behind the device's cursor: older than the
# recent records a reconciliation lists whole (`ReconciliationShape.recentMargin`, an hour).
SCATTERED_BEHIND_MS = 2 * 60 * 60 * 1000


# MARK: - The late records

def late_books(count: int, seed: int) -> list[dict]:
    """`count` new books shaped like the seeded ones (id included, no timestamp)."""
    return seeding.BookGenerator(seed=seed).books(count)


def _literal(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def late_insert_sql(parent_id: str, resource_name: str, books: list[dict], at_or_before: int) -> str:
    """A psql script that inserts `books` as records of `parent_id`, in one transaction.

    Each gets the next free millisecond stamp counting down from `at_or_before` (a
    collection's stamps are unique: `idx_objects_parent_id_resource_name_last_modified`).
    The normal insert path runs, trigger included (no `session_replication_role`): the
    trigger keeps an explicit stamp that is not the collection's newest. Prints one
    `id|last_modified` line per inserted record.
    """
    if not books:
        raise ValueError("no books to insert")
    if at_or_before - STAMP_SEARCH_MS < 0:
        raise ValueError(f"stamp {at_or_before} too small")
    rows = ",\n".join(
        f"({index}, {_literal(book['id'])}, {_literal(json.dumps({k: v for k, v in book.items() if k != 'id'}))}::jsonb)"
        for index, book in enumerate(books, start=1))
    parent, kind = _literal(parent_id), _literal(resource_name)
    return (
        "BEGIN;\n"
        "CREATE TEMP TABLE late_seed (n int, id text, data jsonb) ON COMMIT DROP;\n"
        f"INSERT INTO late_seed VALUES\n{rows};\n"
        "WITH free AS (\n"
        "  SELECT row_number() OVER (ORDER BY c DESC) AS n, c\n"
        f"  FROM generate_series({at_or_before - STAMP_SEARCH_MS}::bigint, {at_or_before}::bigint) AS c\n"
        "  WHERE NOT EXISTS (SELECT 1 FROM objects o\n"
        f"                    WHERE o.parent_id = {parent} AND o.resource_name = {kind}\n"
        "                      AND o.last_modified = from_epoch(c)))\n"
        "INSERT INTO objects (id, parent_id, resource_name, last_modified, data, deleted)\n"
        f"SELECT s.id, {parent}, {kind}, from_epoch(f.c), s.data, false\n"
        "FROM late_seed s JOIN free f USING (n)\n"
        "RETURNING id, as_epoch(last_modified);\n"
        "COMMIT;\n")


def scattered_stamps(oldest: int, newest: int, count: int, seed: int) -> list[int]:
    """`count` distinct random milliseconds in [oldest, newest], ascending."""
    import random
    if newest - oldest < count:
        raise ValueError(f"no room for {count} stamps between {oldest} and {newest}")
    return sorted(random.Random(seed).sample(range(oldest, newest + 1), count))


def scattered_insert_sql(parent_id: str, resource_name: str, books: list[dict], stamps: list[int]) -> str:
    """A psql script that inserts each of `books` at its stamp in `stamps`, in one
    transaction; a stamp already taken (the collection's stamps are unique) skips its
    book. Prints one `id|last_modified` line per inserted record."""
    if len(books) != len(stamps) or not books:
        raise ValueError("one stamp per book")
    rows = ",\n".join(
        f"({stamp}, {_literal(book['id'])}, {_literal(json.dumps({k: v for k, v in book.items() if k != 'id'}))}::jsonb)"
        for stamp, book in zip(stamps, books))
    parent, kind = _literal(parent_id), _literal(resource_name)
    return (
        "BEGIN;\n"
        "CREATE TEMP TABLE scattered_seed (c bigint, id text, data jsonb) ON COMMIT DROP;\n"
        f"INSERT INTO scattered_seed VALUES\n{rows};\n"
        "INSERT INTO objects (id, parent_id, resource_name, last_modified, data, deleted)\n"
        f"SELECT s.id, {parent}, {kind}, from_epoch(s.c), s.data, false FROM scattered_seed s\n"
        "WHERE NOT EXISTS (SELECT 1 FROM objects o\n"
        f"                  WHERE o.parent_id = {parent} AND o.resource_name = {kind}\n"
        "                    AND o.last_modified = from_epoch(s.c))\n"
        "RETURNING id, as_epoch(last_modified);\n"
        "COMMIT;\n")


def parse_inserted(output: str) -> dict[str, int]:
    """psql's `id|last_modified` lines (unaligned, tuples only) → {id: stamp}."""
    inserted = {}
    for line in output.splitlines():
        if "|" not in line:
            continue
        record_id, _, stamp = line.strip().rpartition("|")
        try:
            inserted[record_id] = int(stamp)
        except ValueError:
            continue
    return inserted


# MARK: - Shelf's report

def read_report(path: pathlib.Path) -> dict | None:
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return None


def collection_figures(report: dict | None, collection: str = "books") -> dict | None:
    """One collection's figures from a `shelf-sync --report` file (the first account's),
    with the account's request count; None when the report has no such collection."""
    if not isinstance(report, dict):
        return None
    accounts = report.get("accounts")
    account = accounts[0] if isinstance(accounts, list) and accounts else report
    collections = account.get("collections") if isinstance(account, dict) else None
    figures = collections.get(collection) if isinstance(collections, dict) else None
    if not isinstance(figures, dict):
        return None
    found = {key: figures.get(key, 0) for key in ("pulled", "late", "deleted_locally")}
    reconciliation = figures.get("reconciliation")
    if isinstance(reconciliation, dict):
        found["reconciliation"] = {key: reconciliation.get(key) for key in RECONCILIATION_KEYS}
    found["run_requests"] = account.get("requests")
    return found


def median_figures(figures: list[dict]) -> dict:
    """Medians of the numbers in a run's figures (and of its reconciliation's)."""
    if not figures:
        return {}
    merged: dict = {}
    for key in ("pulled", "late", "deleted_locally", "run_requests"):
        values = [f[key] for f in figures if isinstance(f.get(key), (int, float))]
        if values:
            merged[key] = statistics.median(values)
    recs = [f["reconciliation"] for f in figures if isinstance(f.get("reconciliation"), dict)]
    if recs:
        merged["reconciliation"] = {key: statistics.median([r[key] for r in recs if isinstance(r.get(key), (int, float))])
                                    for key in RECONCILIATION_KEYS
                                    if any(isinstance(r.get(key), (int, float)) for r in recs)}
    return merged


# MARK: - Checks

def unchanged_problems(figures: dict | None, size: int, whole: bool = True) -> list[str]:
    """A reconciliation of a collection that matches the store: nothing to fetch, nothing
    absent; the whole list names every record, ranges at most that many."""
    rec = (figures or {}).get("reconciliation")
    if rec is None:
        return ["the report has no reconciliation for books"]
    problems = [f"{key} = {rec.get(key)}, expected 0" for key in ("fetched", "absent", "deleted") if rec.get(key) != 0]
    listed = rec.get("listed")
    if whole and listed != size:
        problems.append(f"listed = {listed}, expected {size}")
    if not whole and (not isinstance(listed, int) or listed > size):
        problems.append(f"listed = {listed}, expected at most {size}")
    return problems


def late_sync_problems(figures: dict | None, stored: int | None) -> list[str]:
    """A plain sync after the late commits: must not have them (they are behind the settled stamp)."""
    problems = [] if figures is not None else ["the report has no books figures"]
    if stored != 0:
        problems.append(f"the store holds {stored} of the late records, expected 0")
    if figures is not None and figures.get("reconciliation") is not None:
        problems.append("a plain sync reconciled")
    return problems


def late_reconcile_problems(figures: dict | None, stored: int | None, expected: int) -> list[str]:
    """`--reconcile` after the late commits: every one fetched and stored, nothing else."""
    rec = (figures or {}).get("reconciliation")
    if rec is None:
        return ["the report has no reconciliation for books"]
    problems = []
    if rec.get("fetched") != expected:
        problems.append(f"fetched = {rec.get('fetched')}, expected {expected}")
    if rec.get("absent") != 0:
        problems.append(f"absent = {rec.get('absent')}, expected 0")
    if stored != expected:
        problems.append(f"the store holds {stored} of the {expected} late records")
    return problems


# MARK: - The device's store (read after a run, not timed)

def _stores(home: pathlib.Path) -> list[pathlib.Path]:
    return sorted((home / "data" / "shelf").glob("*.sqlite"))


def stored_ids(home: pathlib.Path, ids: list[str]) -> int | None:
    """How many of `ids` the device's store holds as books (Shelf's store, or the
    harness's stand-in); None when no store answers."""
    marks = ",".join("?" * len(ids))
    for path in _stores(home):
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            return db.execute(f"SELECT count(*) FROM records WHERE collection IN ('books', 'default/books') "
                              f"AND id IN ({marks})", ids).fetchone()[0]
        except sqlite3.Error:
            continue
        finally:
            db.close()
    return None


def device_cursor(home: pathlib.Path, collection: str = "books") -> int | None:
    """The books cursor in Shelf's store (`sync_state.cursor`); None without one."""
    for path in _stores(home):
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            row = db.execute("SELECT cursor FROM sync_state WHERE collection = ?", (collection,)).fetchone()
        except sqlite3.Error:
            continue
        finally:
            db.close()
        if row and row[0] is not None:
            return int(row[0])
    return None
