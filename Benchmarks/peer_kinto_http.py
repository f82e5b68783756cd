#!/usr/bin/env python3
"""The peer Shelf is measured against: Kinto's official Python client doing Shelf's job.

It uses `kinto-http` (pinned in Fixtures/kinto/requirements.txt) the way its
documentation shows, and stores what it pulls in SQLite as a sync client would:

    first-sync   every collection Shelf syncs (books, notes, tasks, cart in the user's
                 `default` bucket, products in `shop`), pulled with
                 `get_records(_limit=10000, pages=inf)` and written in one transaction,
                 with each collection's ETag kept as its cursor
    incremental  per collection, `get_records(_since=<cursor>, if_none_match=<cursor>)`:
                 one conditional GET answers 304 when nothing changed; changes (and
                 tombstones) are applied in one transaction
    push         `--records FILE` (a JSON list of books) created with one
                 `client.batch()`: PUT + `If-None-Match: *` each, sent 25 per request

Account from the environment, never argv: SHELF_SERVER (…/v1), SHELF_USER,
SHELF_PASSWORD. Prints one JSON line describing what it did.
"""
import argparse
import json
import logging
import os
import sqlite3
import sys

from kinto_http import Client

COLLECTIONS = [("default", "books"), ("default", "notes"), ("default", "tasks"),
               ("default", "cart"), ("shop", "products")]
PAGE_LIMIT = 10000


# MARK: - Store

def open_store(path: str) -> sqlite3.Connection:
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA synchronous=NORMAL")
    db.execute("CREATE TABLE IF NOT EXISTS records (collection TEXT NOT NULL, id TEXT NOT NULL, "
               "last_modified INTEGER NOT NULL, json TEXT NOT NULL, PRIMARY KEY (collection, id)) WITHOUT ROWID")
    db.execute("CREATE TABLE IF NOT EXISTS sync_state (collection TEXT PRIMARY KEY, etag TEXT NOT NULL)")
    return db


def apply(db: sqlite3.Connection, pulled: dict) -> dict:
    """Upsert records, drop tombstones, move cursors — all in one transaction."""
    counts = {}
    db.execute("BEGIN")
    try:
        for key, (records, etag) in pulled.items():
            live = [(key, r["id"], r["last_modified"], json.dumps(r, separators=(",", ":")))
                    for r in records if not r.get("deleted")]
            gone = [(key, r["id"]) for r in records if r.get("deleted")]
            db.executemany("INSERT OR REPLACE INTO records (collection, id, last_modified, json) "
                           "VALUES (?, ?, ?, ?)", live)
            db.executemany("DELETE FROM records WHERE collection = ? AND id = ?", gone)
            if etag:
                db.execute("INSERT OR REPLACE INTO sync_state (collection, etag) VALUES (?, ?)", (key, etag))
            counts[key] = len(records)
        db.execute("COMMIT")
    except BaseException:
        db.execute("ROLLBACK")
        raise
    return counts


# MARK: - Modes

def first_sync(client: Client, db: sqlite3.Connection) -> dict:
    pulled = {}
    for bucket, collection in COLLECTIONS:
        records = client.get_records(bucket=bucket, collection=collection,
                                     _limit=PAGE_LIMIT, pages=float("inf"))
        # Cached from the list response's ETag header by kinto-http: no extra request.
        etag = client.get_records_timestamp(bucket=bucket, collection=collection)
        pulled[f"{bucket}/{collection}"] = (records, etag)
    return {"pulled": apply(db, pulled)}


def incremental(client: Client, db: sqlite3.Connection) -> dict:
    cursors = dict(db.execute("SELECT collection, etag FROM sync_state"))
    pulled = {}
    for bucket, collection in COLLECTIONS:
        key = f"{bucket}/{collection}"
        cursor = cursors.get(key)
        if cursor is None:
            records = client.get_records(bucket=bucket, collection=collection,
                                         _limit=PAGE_LIMIT, pages=float("inf"))
        else:
            records = client.get_records(bucket=bucket, collection=collection, _since=cursor,
                                         if_none_match=cursor, _limit=PAGE_LIMIT, pages=float("inf"))
        etag = client.get_records_timestamp(bucket=bucket, collection=collection) or cursor
        pulled[key] = (records, etag)
    return {"pulled": apply(db, pulled)}


def push(client: Client, records_file: str) -> dict:
    """Creates the records (books unless an item names its `_collection`) in one batch."""
    with open(records_file) as handle:
        records = json.load(handle)
    with client.batch() as batch:
        for record in records:
            data = {k: v for k, v in record.items() if k not in ("id", "_collection")}
            batch.create_record(bucket="default", collection=record.get("_collection", "books"),
                                id=record["id"], data=data, safe=True)
    created = [body for body in batch.results() if body.get("data", {}).get("id")]
    return {"pushed": len(records), "created": len(created)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("mode", choices=["first-sync", "incremental", "push"])
    parser.add_argument("--store", help="SQLite file (first-sync, incremental)")
    parser.add_argument("--records", help="JSON list of books to create (push)")
    args = parser.parse_args()

    try:
        server, user, password = (os.environ[k] for k in ("SHELF_SERVER", "SHELF_USER", "SHELF_PASSWORD"))
    except KeyError as missing:
        print(f"peer: {missing.args[0]} is not set", file=sys.stderr)
        return 78
    # kinto-http logs every batch sub-response at WARNING; an application would not
    # print 1,000 lines per push, so neither does the peer.
    logging.getLogger("kinto_http").setLevel(logging.ERROR)
    client = Client(server_url=server, auth=(user, password))

    if args.mode == "push":
        if not args.records:
            parser.error("push needs --records")
        result = push(client, args.records)
    else:
        if not args.store:
            parser.error(f"{args.mode} needs --store")
        db = open_store(args.store)
        result = first_sync(client, db) if args.mode == "first-sync" else incremental(client, db)
        db.close()
    print(json.dumps({"mode": args.mode, **result}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
