"""How each contender is run: the one file to edit when a client's command line changes.

Every client process gets the same environment (`client_env`): the account in
SHELF_SERVER (`http://127.0.0.1:<proxy port>/v1`, through the counting proxy),
SHELF_USER and SHELF_PASSWORD, and a private home — XDG_DATA_HOME, XDG_CONFIG_HOME
and HOME inside a folder that is fresh for every first-sync run and kept for the
runs that continue from it (nothing changed, small delta, local reads).

Shelf plugs in by path (`bench.py --shelf-sync PATH --shelf PATH --shelf-edits PATH
--swift-json PATH`, defaults under `.build/release/`); a missing binary is reported and its rows are
skipped. The functions below say exactly what is run with those paths.
"""
from __future__ import annotations

import json
import os
import pathlib
import sys
from dataclasses import dataclass

from kinto_api import Account

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent
PEER_SCRIPT = HERE / "peer_kinto_http.py"
PYTHON_JSON_SCRIPT = HERE / "json_throughput.py"
# Shelf's storage work for a page, in Python (json + sqlite3): the like-for-like contender.
PYTHON_STORAGE_SCRIPT = HERE / "storage_race.py"

DEFAULT_SHELF_SYNC = ROOT / ".build" / "release" / "shelf-sync"
DEFAULT_SHELF = ROOT / ".build" / "release" / "shelf"
# Saves a JSON list of books as local edits through Shelf's store, in one transaction.
DEFAULT_SHELF_EDITS = ROOT / ".build" / "release" / "shelf-bench-local-edits"
# An executable that takes a captured Kinto page (a file path) and prints
# `<what>: <number> MB/s` lines, the last one being bytes → stored records.
DEFAULT_SWIFT_JSON = ROOT / ".build" / "release" / "shelf-json-throughput"


# MARK: - The environment every client gets

@dataclass(frozen=True)
class Target:
    server: str          # …/v1, through the counting proxy
    account: Account
    home: pathlib.Path   # this client's private folder


def client_env(target: Target) -> dict:
    home = target.home
    for sub in ("data", "config"):
        (home / sub).mkdir(parents=True, exist_ok=True)
    return {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "LANG": "C.UTF-8",
        "HOME": str(home),
        "XDG_DATA_HOME": str(home / "data"),
        "XDG_CONFIG_HOME": str(home / "config"),
        "NO_COLOR": "1",
        "SHELF_SERVER": target.server,
        "SHELF_USER": target.account.user,
        "SHELF_PASSWORD": target.account.password,
    }


# MARK: - Peer: kinto-http (Benchmarks/peer_kinto_http.py)

def peer_store(target: Target) -> pathlib.Path:
    return target.home / "peer.sqlite"


def peer_first_sync(target: Target) -> list[str]:
    return [sys.executable, str(PEER_SCRIPT), "first-sync", "--store", str(peer_store(target))]


def peer_incremental(target: Target) -> list[str]:
    return [sys.executable, str(PEER_SCRIPT), "incremental", "--store", str(peer_store(target))]


def peer_push(records_file: pathlib.Path) -> list[str]:
    return [sys.executable, str(PEER_SCRIPT), "push", "--records", str(records_file)]


# MARK: - Shelf

# Extra arguments for every measured `shelf-sync` run (one run, then exit).
SHELF_SYNC_ARGS: list[str] = []


def shelf_sync(shelf_sync_path: pathlib.Path) -> list[str]:
    """First sync, nothing changed, small delta and push all measure this one command."""
    return [str(shelf_sync_path), *SHELF_SYNC_ARGS]


def shelf_sync_reporting(shelf_sync_path: pathlib.Path, report: pathlib.Path) -> list[str]:
    """The same run, writing its JSON report (`collections.books.late`, …) to `report`."""
    return [*shelf_sync(shelf_sync_path), "--report", str(report)]


def shelf_reconcile(shelf_sync_path: pathlib.Path, report: pathlib.Path) -> list[str]:
    """A run that also reconciles every collection (`collections.<name>.reconciliation`
    in the report), by counts of stamp ranges: the scale curve's reconciliation rows."""
    return [*shelf_sync_reporting(shelf_sync_path, report), "--reconcile"]


def shelf_reconcile_whole(shelf_sync_path: pathlib.Path, report: pathlib.Path) -> list[str]:
    """The same, by the whole list of ids and versions (`--reconcile-whole`): every
    reconciliation before range counts, kept beside them in the curve."""
    return [*shelf_sync_reporting(shelf_sync_path, report), "--reconcile-whole"]


# A push of 10,000 edits takes Kinto minutes; the worker's default budget (60 s) would end
# the run with the rest left for the next one.
SHELF_PUSH_ARGS: list[str] = ["--budget", "30m"]


def shelf_push(shelf_sync_path: pathlib.Path) -> list[str]:
    """The measured push: one `shelf-sync` run, with a budget a large push fits in."""
    return [*shelf_sync(shelf_sync_path), *SHELF_PUSH_ARGS]


def shelf_push_prepare(shelf_edits_path: pathlib.Path, books: list[dict], home: pathlib.Path) -> list[list[str]]:
    """Commands (run in order, NOT measured) that leave `books` as local edits waiting to be pushed.

    They run with the same `client_env` as the measured `shelf-sync` that follows, on
    an account whose server collections are empty. One command: `shelf-bench-local-edits`
    (Benchmarks/LocalEdits) opens the account's store as `shelf` does and saves every
    book with `StoreTransaction.saveLocal` — the call `shelf book add` ends in — after
    the Domain's checks, all in one transaction (1,000 `shelf book add` processes took
    about 30 s). The measured push is `shelf_sync(...)`.
    """
    books_file = home / "push-books.json"
    books_file.write_text(json.dumps(books))
    return [[str(shelf_edits_path), str(books_file)]]


def shelf_search(shelf_path: pathlib.Path, text: str) -> list[str]:
    return [str(shelf_path), "books", "--search", text]


def shelf_version(shelf_path: pathlib.Path) -> list[str]:
    return [str(shelf_path), "--version"]


def shelf_books_json(shelf_path: pathlib.Path) -> list[str]:
    """Used once after a first sync to check that Shelf stored every book (not timed)."""
    return [str(shelf_path), "--json", "books"]


# MARK: - JSON throughput (same captured page for every language)

def python_json(page: pathlib.Path) -> list[str]:
    return [sys.executable, str(PYTHON_JSON_SCRIPT), str(page)]


def python_storage(page: pathlib.Path) -> list[str]:
    return [sys.executable, str(PYTHON_STORAGE_SCRIPT), str(page)]


def swift_json(swift_json_path: pathlib.Path, page: pathlib.Path) -> list[str]:
    return [str(swift_json_path), str(page)]


def executable(path: pathlib.Path | None) -> bool:
    return path is not None and path.is_file() and os.access(path, os.X_OK)
