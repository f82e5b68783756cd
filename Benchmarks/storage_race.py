#!/usr/bin/env python3
"""Shelf's storage work for one pulled page, done in Python: the like-for-like contender.

    storage_race.py PAGE.json [--repeat N] [--collection books]
    storage_race.py PAGE.json --write-store STORE.sqlite

What `shelf-json-throughput`'s headline ("bytes to stored records") does for a page
Kinto sent, with the standard library's `json` and `sqlite3` instead of Shelf's
scanner and SQLite wrapper — same work, so the two figures compare like for like:

- the same store: a file with the same pragmas (WAL, `synchronous=NORMAL`, foreign
  keys on, 16 MiB cache), built by the same migrations (schema v13: the same tables,
  constraints — the unique `records_by_id` index, the CHECKs, the outbox's foreign
  key — and the listing and order indexes present while the page goes in);
- the same rows: each record's JSON exactly as the server sent it (its bytes, not a
  re-serialisation), `last_modified`, `deleted`, and the derived columns Shelf's
  `RecordIndexing` computes (`sort_key`, `search_text`, `complete`, folded the same way);
- the same transaction: `BEGIN IMMEDIATE`, one look at the outbox for waiting local
  changes, the upserts (`ON CONFLICT (collection, id) DO UPDATE`), deletions of
  tombstones (row and base snapshot), the collection's cursor in `sync_state`, and
  `COMMIT`.

Benchmarks/README.md lists what still differs. Output follows json_throughput.py's
contract: lines `<what>: <number> MB/s` (MB = 10^6 bytes of the page file), the
LAST one being the headline; each figure is the median of N repetitions, each into a
fresh store whose opening is not timed (a sync opens its store once for all pages).
"""
from __future__ import annotations

import argparse
import functools
import json
import pathlib
import re
import sqlite3
import statistics
import sys
import tempfile
import textwrap
import time
import unicodedata

# MARK: - The store, as Shelf's migrations leave it

# Shelf's `Schema.migrations`, in order (Modules/Storage/Schema/Schema.swift). Running the
# same statements leaves the same `sqlite_master` text; the tests compare it with a store
# Shelf wrote.
MIGRATIONS = [
    """
    CREATE TABLE records (
        collection    TEXT    NOT NULL,
        id            TEXT    NOT NULL,
        json          BLOB    NOT NULL CHECK (json_valid(json)),
        last_modified INTEGER,
        deleted       INTEGER NOT NULL DEFAULT 0 CHECK (deleted IN (0, 1)),
        sort_key      TEXT    NOT NULL,
        search_text   TEXT    NOT NULL,
        UNIQUE (collection, id)
    );
    CREATE INDEX records_by_sort_key ON records (collection, deleted, sort_key, id);

    CREATE TABLE base_snapshots (
        collection    TEXT    NOT NULL,
        id            TEXT    NOT NULL,
        json          BLOB    NOT NULL,
        last_modified INTEGER NOT NULL,
        PRIMARY KEY (collection, id)
    ) WITHOUT ROWID;

    CREATE TABLE outbox (
        seq                INTEGER PRIMARY KEY AUTOINCREMENT,
        collection         TEXT    NOT NULL,
        record_id          TEXT    NOT NULL,
        kind               TEXT    NOT NULL CHECK (kind IN ('create', 'update', 'delete')),
        base_last_modified INTEGER,
        created_at         INTEGER NOT NULL,
        updated_at         INTEGER NOT NULL,
        revision           INTEGER NOT NULL DEFAULT 1,
        UNIQUE (collection, record_id),
        FOREIGN KEY (collection, record_id) REFERENCES records (collection, id),
        CHECK ((kind = 'create') = (base_last_modified IS NULL))
    );

    CREATE TABLE sync_state (
        collection    TEXT PRIMARY KEY,
        cursor        INTEGER,
        etag          TEXT,
        backoff_until INTEGER,
        last_success  INTEGER,
        last_error    TEXT,
        last_error_at INTEGER
    ) WITHOUT ROWID;

    CREATE TABLE conflicts (
        collection           TEXT    NOT NULL,
        record_id            TEXT    NOT NULL,
        base                 BLOB,
        local                BLOB,
        remote               BLOB,
        remote_last_modified INTEGER,
        detected_at          INTEGER NOT NULL,
        PRIMARY KEY (collection, record_id)
    ) WITHOUT ROWID;

    CREATE TABLE dead_letters (
        id                 INTEGER PRIMARY KEY AUTOINCREMENT,
        collection         TEXT    NOT NULL,
        record_id          TEXT    NOT NULL,
        kind               TEXT    NOT NULL CHECK (kind IN ('create', 'update', 'delete')),
        base_last_modified INTEGER,
        json               BLOB    NOT NULL,
        status             INTEGER NOT NULL,
        reason             TEXT    NOT NULL,
        queued_at          INTEGER NOT NULL,
        failed_at          INTEGER NOT NULL
    );

    CREATE TABLE preferences (
        key   TEXT PRIMARY KEY,
        value BLOB NOT NULL
    ) WITHOUT ROWID;
    """,
    # v2: its backfill of `complete` reads existing rows; a new store has none.
    """
    ALTER TABLE records ADD COLUMN complete INTEGER CHECK (complete IN (0, 1));
    DROP INDEX records_by_sort_key;
    CREATE INDEX records_listing ON records (collection, deleted, sort_key, id, search_text);
    CREATE INDEX records_listing_by_completion ON records (collection, deleted, complete, sort_key, id, search_text);
    ALTER TABLE sync_state ADD COLUMN next_page TEXT;
    """,
    """
    DROP INDEX IF EXISTS records_listing;
    DROP INDEX IF EXISTS records_listing_by_completion;
    UPDATE records SET search_text = '' WHERE collection IN ('books', 'tasks', 'products');
    CREATE INDEX records_listing ON records (collection, deleted, sort_key, id, complete, search_text);
    """,
    """
    ALTER TABLE outbox ADD COLUMN sent_revision INTEGER;
    ALTER TABLE outbox ADD COLUMN sent_body BLOB;
    ALTER TABLE sync_state ADD COLUMN collection_timestamp INTEGER;
    ALTER TABLE sync_state ADD COLUMN recovering INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE sync_state ADD COLUMN cursor_before_recovery INTEGER;
    ALTER TABLE sync_state ADD COLUMN pushed_timestamp INTEGER;
    """,
    """
    ALTER TABLE outbox ADD COLUMN sent_lineage_id TEXT;
    """,
    """
    CREATE TABLE acknowledged_deletions (
        collection TEXT NOT NULL,
        id TEXT NOT NULL,
        revision TEXT NOT NULL,
        deleted_at INTEGER NOT NULL,
        PRIMARY KEY (collection, id)
    ) WITHOUT ROWID;
    CREATE INDEX acknowledged_deletions_age ON acknowledged_deletions (deleted_at);
    """,
    # v7: records.json without its json_valid CHECK, edited in place as Shelf does.
    lambda db: _drop_json_check(db),
    # v8: the UNIQUE (collection, id) constraint's index named records_by_id, edited in place.
    lambda db: _name_id_index(db),
    # v9: the settled cursor, the server's clock, reconciliation; a create's server tombstone.
    """
    ALTER TABLE sync_state ADD COLUMN settled INTEGER;
    ALTER TABLE sync_state ADD COLUMN server_clock INTEGER;
    ALTER TABLE sync_state ADD COLUMN server_clock_at INTEGER;
    ALTER TABLE sync_state ADD COLUMN last_reconciled INTEGER;
    ALTER TABLE outbox ADD COLUMN server_tombstone INTEGER;
    CREATE TABLE acknowledged_writes (
        collection TEXT NOT NULL,
        id TEXT NOT NULL,
        revision TEXT NOT NULL,
        parent TEXT,
        base BLOB NOT NULL,
        base_last_modified INTEGER NOT NULL,
        written BLOB NOT NULL,
        written_last_modified INTEGER NOT NULL,
        acknowledged_at INTEGER NOT NULL,
        PRIMARY KEY (collection, id)
    ) WITHOUT ROWID;
    CREATE INDEX acknowledged_writes_age ON acknowledged_writes (acknowledged_at);
    """,
    # v10: the author and completion orders as generated columns, an index each.
    """
    ALTER TABLE records ADD COLUMN sort_key_from_second_field TEXT
        GENERATED ALWAYS AS (substr(sort_key, instr(sort_key, char(31)) + 1)) VIRTUAL;
    ALTER TABLE records ADD COLUMN completion_order INTEGER
        GENERATED ALWAYS AS (coalesce(complete, -1)) VIRTUAL;
    CREATE INDEX records_by_second_field
        ON records (collection, deleted, sort_key_from_second_field, sort_key, id, complete);
    CREATE INDEX records_by_completion
        ON records (collection, deleted, completion_order, sort_key, id);
    """,
    # v11: what an encrypted account's device remembers against a hostile server.
    """
    CREATE TABLE sealed_deletions (
        collection    TEXT    NOT NULL,
        id            TEXT    NOT NULL,
        seq           INTEGER NOT NULL,
        revision      TEXT,
        last_modified INTEGER NOT NULL,
        PRIMARY KEY (collection, id)
    ) WITHOUT ROWID;
    CREATE TABLE server_deletions (
        collection    TEXT    NOT NULL,
        id            TEXT    NOT NULL,
        last_modified INTEGER NOT NULL,
        noticed_at    INTEGER NOT NULL,
        PRIMARY KEY (collection, id)
    ) WITHOUT ROWID;
    """,
    # v12: the history of the reader's operations.
    """
    CREATE TABLE operations (
        seq      INTEGER PRIMARY KEY AUTOINCREMENT,
        made_at  INTEGER NOT NULL,
        origin   TEXT    NOT NULL,
        state    TEXT    NOT NULL CHECK (state IN ('done', 'undone')),
        reverts  INTEGER,
        complete INTEGER NOT NULL CHECK (complete IN (0, 1)),
        records  INTEGER NOT NULL,
        bytes    INTEGER NOT NULL,
        tally    TEXT    NOT NULL
    );
    CREATE TABLE operation_changes (
        operation  INTEGER NOT NULL REFERENCES operations (seq) ON DELETE CASCADE,
        position   INTEGER NOT NULL,
        collection TEXT    NOT NULL,
        record_id  TEXT    NOT NULL,
        before     BLOB,
        after      BLOB,
        outbox_seq INTEGER,
        PRIMARY KEY (operation, position)
    ) WITHOUT ROWID;
    CREATE INDEX operation_changes_by_record ON operation_changes (collection, record_id, operation);
    """,
    # v13: where a reconciliation by stamp ranges is.
    """
    ALTER TABLE sync_state ADD COLUMN reconciled_through INTEGER;
    ALTER TABLE sync_state ADD COLUMN reconciling_from INTEGER;
    ALTER TABLE sync_state ADD COLUMN swept_through INTEGER;
    """,
]


def _name_id_index(db: sqlite3.Connection) -> None:
    cookie = db.execute("PRAGMA schema_version").fetchone()[0]
    table = db.execute("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'records'").fetchone()[0]
    db.execute("PRAGMA writable_schema = ON")
    db.execute("UPDATE sqlite_master SET sql = ? WHERE type = 'table' AND name = 'records'",
               (re.sub(r",\s*UNIQUE \(collection, id\)", "", table, count=1),))
    db.execute("UPDATE sqlite_master SET name = 'records_by_id', "
               "sql = 'CREATE UNIQUE INDEX records_by_id ON records (collection, id)' "
               "WHERE type = 'index' AND name = 'sqlite_autoindex_records_1'")
    db.execute(f"PRAGMA schema_version = {cookie + 1}")
    db.execute("PRAGMA writable_schema = OFF")


def _drop_json_check(db: sqlite3.Connection) -> None:
    cookie = db.execute("PRAGMA schema_version").fetchone()[0]
    db.execute("PRAGMA writable_schema = ON")
    db.execute("UPDATE sqlite_master SET sql = replace(sql, ' CHECK (json_valid(json))', '') "
               "WHERE type = 'table' AND name = 'records'")
    db.execute(f"PRAGMA schema_version = {cookie + 1}")
    db.execute("PRAGMA writable_schema = OFF")
LISTING_INDEX = ("CREATE INDEX IF NOT EXISTS records_listing ON records "
                 "(collection, deleted, sort_key, id, complete, search_text)")

# ShelfStore's connection settings (Modules/Storage/ShelfStore.swift, default Configuration).
PRAGMAS = """
    PRAGMA journal_mode = WAL;
    PRAGMA synchronous = NORMAL;
    PRAGMA foreign_keys = ON;
    PRAGMA cache_size = -16384;
    PRAGMA journal_size_limit = 8388608;
    PRAGMA mmap_size = 0;
"""


def open_store(path: pathlib.Path) -> sqlite3.Connection:
    """A new store at `path`, configured and migrated as `ShelfStore(location: .file(path))` does."""
    db = sqlite3.connect(path, isolation_level=None)  # transactions are explicit, as Shelf's
    db.execute("PRAGMA busy_timeout = 5000")
    db.executescript(PRAGMAS)
    version = db.execute("PRAGMA user_version").fetchone()[0]
    for number, sql in enumerate(MIGRATIONS[version:], start=version + 1):
        db.execute("BEGIN IMMEDIATE")
        if callable(sql):
            sql(db)
        for statement in [] if callable(sql) else _statements(sql):
            db.execute(statement)
        db.execute(f"PRAGMA user_version = {number}")
        db.execute("COMMIT")
    return db


def _statements(sql: str) -> list[str]:
    """Split a migration into statements (none of Shelf's contains a `;` inside), with
    Swift's multi-line string indentation: SQLite keeps a table's text as written."""
    return [part.strip() for part in textwrap.dedent(sql).split(";") if part.strip()]


# MARK: - Derived columns (Shelf's RecordIndexing and SearchText)

FIELD_SEPARATOR = "\x1f"


# Halfwidth and fullwidth forms, and the ideographic space: what width-insensitive folding maps.
_WIDE = {code: unicodedata.normalize("NFKC", chr(code)) for code in (*range(0xFF01, 0xFFEF), 0x3000)
         if unicodedata.normalize("NFKC", chr(code)) != chr(code)}


def _strip_marks(text: str) -> str:
    return "".join(c for c in unicodedata.normalize("NFD", text) if not unicodedata.combining(c))


@functools.lru_cache(maxsize=512)
def _fold_unicode(text: str) -> str:
    # Foundation's folding([.caseInsensitive, .diacriticInsensitive, .widthInsensitive])
    # then lowercased(): full case folding (ß → ss, ﬁ → fi), canonical decomposition
    # without combining marks (é → e, but ł and ǆ stay), half/full width to normal width.
    text = _strip_marks(text.translate(_WIDE))
    return unicodedata.normalize("NFC", _strip_marks(text.casefold())).lower()


def fold(text: str) -> str:
    """Case-, diacritic- and width-insensitive, as Shelf's `SearchText.fold`: ASCII by
    lower-casing, anything else as Foundation folds it (the last 512 remembered, as
    Shelf's `SearchText.Folder` does)."""
    return text.lower() if text.isascii() else _fold_unicode(text)


def _string(record: dict, key: str) -> str:
    value = record.get(key)
    return value if isinstance(value, str) else ""


def _bool(record: dict, key: str):
    value = record.get(key)
    return (1 if value else 0) if isinstance(value, bool) else None


def indexing(collection: str, record: dict) -> tuple[str, str, int | None]:
    """`(sort_key, search_text as stored, complete)` for one record."""
    def folded(*keys: str) -> str:
        return FIELD_SEPARATOR.join(fold(_string(record, key)) for key in keys)

    if collection == "books":
        return folded("title", "author_name"), "", _bool(record, "finished")
    if collection == "tasks":
        return folded("title"), "", _bool(record, "done")
    if collection == "products":
        return folded("name"), "", None
    if collection == "notes":
        search = folded("title", "body")
        title, separator, body = search.partition(FIELD_SEPARATOR)
        return (title + separator + body[:64] if separator else search), search, None
    if collection == "cart":
        return _string(record, "product_id"), folded("product_id"), None
    raise ValueError(f"unknown collection {collection!r}")


# MARK: - Reading a page (records and their bytes as sent)

_DECODER = json.JSONDecoder()
_WHITESPACE = " \t\n\r"


class PageError(ValueError):
    pass


def scan_page(text: str) -> list[tuple[dict, str]]:
    """Each record of a Kinto list page with its own JSON text exactly as sent.

    `json.loads` of the whole page would lose the records' own text, so the page is
    read with the json module's decoder member by member (`raw_decode`, the C scanner
    `json.loads` runs), which gives each record's end offset too.
    """
    def skip(i: int) -> int:
        while i < len(text) and text[i] in _WHITESPACE:
            i += 1
        return i

    def expect(i: int, char: str) -> int:
        i = skip(i)
        if i >= len(text) or text[i] != char:
            raise PageError(f"expected {char!r} at offset {i}")
        return i + 1

    records: list[tuple[dict, str]] | None = None
    i = expect(0, "{")
    if skip(i) < len(text) and text[skip(i)] == "}":
        raise PageError("the page has no 'data' list")
    while True:
        key, i = _DECODER.raw_decode(text, skip(i))
        i = expect(i, ":")
        i = skip(i)
        if key == "data":
            records = []
            i = expect(i, "[")
            if skip(i) < len(text) and text[skip(i)] == "]":
                i = skip(i) + 1
            else:
                while True:
                    start = skip(i)
                    record, i = _DECODER.raw_decode(text, start)
                    if not isinstance(record, dict):
                        raise PageError(f"a record at offset {start} is not an object")
                    records.append((record, text[start:i]))
                    i = skip(i)
                    if i < len(text) and text[i] == ",":
                        i += 1
                        continue
                    i = expect(i, "]")
                    break
        else:
            _, i = _DECODER.raw_decode(text, i)
        i = skip(i)
        if i < len(text) and text[i] == ",":
            i += 1
            continue
        i = expect(i, "}")
        break
    if skip(i) != len(text):
        raise PageError(f"extra data after the page at offset {skip(i)}")
    if records is None:
        raise PageError("the page has no 'data' list")
    return records


# MARK: - Applying a page (Shelf's CollectionPull.apply → SyncRules.applyPulled → StoreTransaction.storePulled)

UPSERT = """
    INSERT INTO records (collection, id, json, last_modified, deleted, sort_key, search_text, complete)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?)
    ON CONFLICT (collection, id) DO UPDATE SET
        json = excluded.json, last_modified = excluded.last_modified, deleted = excluded.deleted,
        sort_key = excluded.sort_key, search_text = excluded.search_text, complete = excluded.complete
"""
SYNC_STATE_COLUMNS = "collection, cursor, etag, backoff_until, last_success, last_error, last_error_at, next_page"


def apply_page(db: sqlite3.Connection, page: bytes, collection: str = "books") -> int:
    """Stores one pulled page in one write transaction. - Returns: records applied
    (those with a waiting local change are left alone, as Shelf does)."""
    items = scan_page(page.decode("utf-8"))
    remote = []
    for record, raw in items:
        rid, modified, deleted = record.get("id"), record.get("last_modified"), record.get("deleted", False)
        if not isinstance(rid, str) or type(modified) is not int or not isinstance(deleted, bool):
            raise PageError(f"a record without a string id, an integer last_modified or a boolean deleted: {raw[:80]}")
        remote.append((rid, modified, deleted, record, raw))

    db.execute("BEGIN IMMEDIATE")
    try:
        waiting = set()
        if db.execute("SELECT EXISTS (SELECT 1 FROM outbox WHERE collection = ?)", (collection,)).fetchone()[0]:
            waiting = {row[0] for row in db.execute("SELECT record_id FROM outbox WHERE collection = ?", (collection,))}
        upserts, removals = [], []
        for rid, modified, deleted, record, raw in remote:
            if rid in waiting:
                continue
            if deleted:
                removals.append((collection, rid))
                continue
            sort_key, search_text, complete = indexing(collection, record)
            upserts.append((collection, rid, raw.encode("utf-8"), modified, 0, sort_key, search_text, complete))
        # Ids are unique within a page, so deletions and upserts commute.
        db.executemany("DELETE FROM base_snapshots WHERE collection = ? AND id = ?", removals)
        db.executemany("DELETE FROM records WHERE collection = ? AND id = ?", removals)
        db.executemany(UPSERT, upserts)
        db.execute(LISTING_INDEX)
        # The cursor: read, raise to the page's newest timestamp, written back whole.
        row = db.execute(f"SELECT {SYNC_STATE_COLUMNS} FROM sync_state WHERE collection = ?",
                         (collection,)).fetchone()
        state = list(row) if row else [collection, None, None, None, None, None, None, None]
        if remote:
            highest = max(item[1] for item in remote)
            state[1] = highest if state[1] is None else max(state[1], highest)
        db.execute(f"INSERT OR REPLACE INTO sync_state ({SYNC_STATE_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)", state)
        db.execute("COMMIT")
    except BaseException:
        db.execute("ROLLBACK")
        raise
    return len(remote) - sum(1 for item in remote if item[0] in waiting)


# MARK: - Timing

def median_seconds(repeat: int, prepare, body) -> float:
    """One untimed warm-up, then the median of `repeat` timed runs; `prepare` is not timed."""
    body(prepare())
    times = []
    for _ in range(repeat):
        state = prepare()
        started = time.perf_counter()
        body(state)
        times.append(time.perf_counter() - started)
        if hasattr(state, "close"):
            state.close()  # outside the timing, as Shelf's scratch store goes away after it
    return statistics.median(times)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("page", type=pathlib.Path)
    parser.add_argument("--repeat", type=int, default=10)
    parser.add_argument("--collection", default="books")
    parser.add_argument("--write-store", type=pathlib.Path,
                        help="apply the page once into a new store at this path and keep it (nothing timed)")
    args = parser.parse_args(argv)
    if args.repeat < 1:
        parser.error("--repeat needs a positive whole number")
    page = args.page.read_bytes()

    if args.write_store:
        if args.write_store.exists():
            parser.error(f"{args.write_store} exists; --write-store only creates a new store")
        db = open_store(args.write_store)
        stored = apply_page(db, page, args.collection)
        db.close()
        print(f"stored records: {stored} in {args.write_store}")
        return 0

    megabytes = len(page) / 1e6
    with tempfile.TemporaryDirectory(prefix="storage-race-") as folder:
        counter = iter(range(10**9))

        def fresh() -> sqlite3.Connection:
            return open_store(pathlib.Path(folder) / f"store-{next(counter)}.sqlite")

        check = fresh()
        stored = apply_page(check, page, args.collection)
        counted = check.execute("SELECT count(*) FROM records WHERE collection = ? AND deleted = 0",
                                (args.collection,)).fetchone()[0]
        check.close()
        print(f"records: {stored}, stored: {counted}, bytes: {len(page)}")
        loads = median_seconds(args.repeat, lambda: None, lambda _: json.loads(page))
        print(f"json.loads only: {megabytes / loads:.1f} MB/s")

        stored_s = median_seconds(args.repeat, fresh, lambda db: apply_page(db, page, args.collection))
        print(f"bytes to stored records (like for like): {megabytes / stored_s:.1f} MB/s")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
