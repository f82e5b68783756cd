#!/usr/bin/env python3
"""A stand-in for Shelf's two binaries, so the harness's Shelf paths can be tested.

Linked as `shelf-sync` it syncs like the real worker would from the harness's point
of view (environment account, XDG store, push the outbox in batches of 25, pull every
collection with `_since` and `If-None-Match`, exit 0); `--reconcile` also lists every
collection's ids and versions and fetches by `in_id` what the store lacks, `--report
FILE` writes the worker's report shape (pulled, late, reconciliation per collection),
`--commit-window` is taken and ignored (the stand-in has no window). Linked as `shelf` it answers
the commands the harness runs: `--version`, `books --search TEXT`, `--json books`,
`books --help` (naming `--limit`), `[--quiet] book add --title T --author A`. Linked as `shelf-bench-local-edits` it
queues a JSON file's books for the next push. Standard library only; not a benchmark
contender — only the harness's tests use it.
"""
import base64
import http.client
import json
import os
import pathlib
import sqlite3
import sys
import urllib.parse
import uuid

COLLECTIONS = [("default", "books"), ("default", "notes"), ("default", "tasks"),
               ("default", "cart"), ("shop", "products")]


def store() -> sqlite3.Connection:
    folder = pathlib.Path(os.environ["XDG_DATA_HOME"]) / "shelf"
    folder.mkdir(parents=True, exist_ok=True)
    db = sqlite3.connect(folder / "fake.sqlite", isolation_level=None)
    db.execute("CREATE TABLE IF NOT EXISTS records (collection TEXT, id TEXT, json TEXT, PRIMARY KEY (collection, id))")
    db.execute("CREATE TABLE IF NOT EXISTS cursors (collection TEXT PRIMARY KEY, etag TEXT)")
    db.execute("CREATE TABLE IF NOT EXISTS outbox (seq INTEGER PRIMARY KEY, id TEXT, json TEXT)")
    return db


# MARK: - shelf-sync

class Server:
    def __init__(self) -> None:
        url = urllib.parse.urlsplit(os.environ["SHELF_SERVER"])
        self.prefix = url.path.rstrip("/")
        self.conn = http.client.HTTPConnection(url.hostname, url.port, timeout=120)
        token = f"{os.environ['SHELF_USER']}:{os.environ['SHELF_PASSWORD']}".encode()
        self.auth = "Basic " + base64.b64encode(token).decode()

    def call(self, method, path, body=None, headers=None):
        if path.startswith("http"):
            parts = urllib.parse.urlsplit(path)
            path = parts.path + "?" + parts.query
        else:
            path = self.prefix + path
        all_headers = {"Authorization": self.auth, "Content-Type": "application/json", **(headers or {})}
        self.requests = getattr(self, "requests", 0) + 1
        self.conn.request(method, path, body=None if body is None else json.dumps(body), headers=all_headers)
        response = self.conn.getresponse()
        payload = response.read()
        return response.status, {k.lower(): v for k, v in response.getheaders()}, payload


def sync(args: list) -> int:
    report_path = args[args.index("--report") + 1] if "--report" in args else None
    db, server = store(), Server()
    server.requests = 0
    collections = {}
    status = pull_and_push(db, server, collections)
    if status == 0 and ("--reconcile" in args or "--reconcile-whole" in args):
        for bucket, name in COLLECTIONS:
            collections.setdefault(name, {"pulled": 0, "late": 0})["reconciliation"] = reconcile(db, server, bucket, name)
    if report_path:
        account = {"account": os.environ["SHELF_USER"], "outcome": "synced" if status == 0 else "temporary_failure",
                   "requests": server.requests, "collections": collections}
        pathlib.Path(report_path).write_text(json.dumps({"exit_code": status, "accounts": [account]}))
    return status


def reconcile(db, server, bucket: str, name: str) -> dict:
    """The ids and versions the server lists, against the store's; what differs, by id."""
    key = f"{bucket}/{name}"
    cursor = db.execute("SELECT etag FROM cursors WHERE collection = ?", (key,)).fetchone()
    cursor = int(cursor[0]) if cursor and cursor[0] else 0
    held = {rid: json.loads(data).get("last_modified", 0)
            for rid, data in db.execute("SELECT id, json FROM records WHERE collection = ?", (key,))}
    found = {"listed": 0, "listed_bytes": 0, "fetched": 0, "deleted": 0, "absent": 0, "requests": 0, "duration_ms": 0}
    missing, matched = [], set()
    path = (f"/buckets/{bucket}/collections/{name}/records?_since=0&_sort=last_modified&_limit=10000"
            "&_fields=id,last_modified,deleted")
    while path:
        status, headers, payload = server.call("GET", path)
        found["requests"] += 1
        for entry in json.loads(payload)["data"]:
            found["listed"] += 1
            found["listed_bytes"] += len(json.dumps(entry, separators=(",", ":")))
            if entry["id"] in held:
                matched.add(entry["id"])
            if entry["last_modified"] <= cursor and held.get(entry["id"], -1) < entry["last_modified"] \
                    and not entry.get("deleted"):
                missing.append(entry["id"])
        path = headers.get("next-page")
    found["absent"] = len(set(held) - matched)
    for start in range(0, len(missing), 50):
        ids = ",".join(missing[start:start + 50])
        _, _, payload = server.call("GET", f"/buckets/{bucket}/collections/{name}/records?_since=0&in_id={ids}")
        found["requests"] += 1
        for record in json.loads(payload)["data"]:
            db.execute("INSERT OR REPLACE INTO records VALUES (?, ?, ?)", (key, record["id"], json.dumps(record)))
            found["fetched"] += 1
    return found


def pull_and_push(db, server, collections: dict) -> int:
    pending = db.execute("SELECT seq, id, json FROM outbox ORDER BY seq").fetchall()
    for start in range(0, len(pending), 25):
        chunk = pending[start:start + 25]
        requests = [{"method": "PUT", "path": f"/buckets/default/collections/books/records/{rid}",
                     "body": {"data": json.loads(data)}, "headers": {"If-None-Match": "*"}}
                    for _, rid, data in chunk]
        status, _, payload = server.call("POST", "/batch", {"requests": requests})
        if status != 200 or any(r["status"] >= 400 for r in json.loads(payload)["responses"]):
            return 75
        db.execute("DELETE FROM outbox WHERE seq <= ?", (chunk[-1][0],))
    cursors = dict(db.execute("SELECT collection, etag FROM cursors"))
    for bucket, name in COLLECTIONS:
        key = f"{bucket}/{name}"
        path = f"/buckets/{bucket}/collections/{name}/records?_limit=10000"
        headers = {}
        if key in cursors:
            path += f"&_since={cursors[key]}"
            headers["If-None-Match"] = f'"{cursors[key]}"'
        etag = None
        db.execute("BEGIN")
        while path:
            status, response_headers, payload = server.call("GET", path, headers=headers)
            counts = collections.setdefault(name, {"pulled": 0, "late": 0})
            if status == 304:
                break
            if status != 200:
                db.execute("ROLLBACK")
                return 75
            etag = etag or response_headers.get("etag", "").strip('"')
            for record in json.loads(payload)["data"]:
                counts["pulled"] += 1
                if record.get("deleted"):
                    db.execute("DELETE FROM records WHERE collection = ? AND id = ?", (key, record["id"]))
                else:
                    db.execute("INSERT OR REPLACE INTO records VALUES (?, ?, ?)", (key, record["id"], json.dumps(record)))
            path, headers = response_headers.get("next-page"), {}
        if etag:
            db.execute("INSERT OR REPLACE INTO cursors VALUES (?, ?)", (key, etag))
        db.execute("COMMIT")
    return 0


# MARK: - shelf

def books(db) -> list:
    return [json.loads(row[0]) for row in db.execute("SELECT json FROM records WHERE collection = 'default/books'")]


def cli(args: list) -> int:
    if args == ["--version"]:
        print("shelf 0.0.0-fake")
        return 0
    quiet = "--quiet" in args
    args = [a for a in args if a not in ("--quiet", "-q")]
    as_json = "--json" in args
    args = [a for a in args if a != "--json"]
    if args == ["books", "--help"]:
        print("USAGE: shelf books [<options>]\n  --search <text>\n  --limit <n>\n  --json")
        return 0
    db = store()
    if args[:1] == ["books"]:
        text = args[args.index("--search") + 1].lower() if "--search" in args else ""
        found = [b for b in books(db) if text in (b["title"] + " " + b["author_name"]).lower()]
        if "--limit" in args:
            found = found[:int(args[args.index("--limit") + 1])]
        if as_json:
            print(json.dumps(found))
        else:
            for book in found:
                print(f"{book['id']}  {book['title']} — {book['author_name']}")
        return 0
    if args[:2] == ["book", "add"]:
        title, author = args[args.index("--title") + 1], args[args.index("--author") + 1]
        record = {"id": str(uuid.uuid4()), "title": title, "author_name": author, "finished": False}
        db.execute("INSERT INTO outbox (id, json) VALUES (?, ?)", (record["id"], json.dumps(record)))
        if not quiet:
            print(f"Added {record['id']}")
        return 0
    print(f"Error: unknown command {' '.join(args)}", file=sys.stderr)
    return 64


def local_edits(args: list) -> int:
    db = store()
    for book in json.loads(pathlib.Path(args[0]).read_text()):
        db.execute("INSERT INTO outbox (id, json) VALUES (?, ?)", (book["id"], json.dumps(book)))
    return 0


if __name__ == "__main__":
    name = pathlib.Path(sys.argv[0]).name
    if name == "shelf-sync":
        sys.exit(sync(sys.argv[1:]))
    sys.exit(local_edits(sys.argv[1:]) if name == "shelf-bench-local-edits" else cli(sys.argv[1:]))
