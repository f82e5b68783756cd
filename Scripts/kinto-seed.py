#!/usr/bin/env python3
"""Seed a Kinto server with Shelf's fixture data through its HTTP API.

The shop catalog goes into the shared `shop` bucket, created by the catalog owner
and readable by every authenticated user (readers get 403 when they write to it).
A reader's library (books, notes, tasks, cart) goes into that reader's `default`
bucket. Passwords come from the environment, never from argv:

    SHOP_ADMIN_PASSWORD=... READER_PASSWORD=... kinto-seed.py URL [--reader USER] [--catalog-only]

On a server with the accounts plugin, both users are signed up first
(`PUT /v1/accounts/<user>`); an account that already exists is kept as it is, and its
password must then be the one given. Writes use POST /v1/batch (at most 25 requests
each) and PUT, so seeding twice is harmless.
"""
import argparse
import base64
import json
import os
import pathlib
import sys
import urllib.error
import urllib.request

FIXTURES = pathlib.Path(__file__).resolve().parent.parent / "Fixtures" / "seed"
BATCH = 25


def auth_header(user, password):
    token = base64.b64encode(f"{user}:{password}".encode()).decode()
    return {"Authorization": f"Basic {token}"}


def call(base, method, path, auth, body=None):
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(base.rstrip("/") + path, data=data, method=method)
    req.add_header("Content-Type", "application/json")
    for k, v in auth.items():
        req.add_header(k, v)
    try:
        with urllib.request.urlopen(req, timeout=30) as resp:
            return json.loads(resp.read() or b"null")
    except urllib.error.HTTPError as err:
        sys.exit(f"kinto-seed: {method} {path} failed: HTTP {err.code} {err.read()[:300]!r}")


def has_accounts(base):
    """Whether the server runs Kinto's accounts plugin (passwords checked)."""
    with urllib.request.urlopen(base.rstrip("/") + "/v1/", timeout=30) as resp:
        return "accounts" in json.loads(resp.read()).get("capabilities", {})


def sign_up(base, user, password):
    """Creates the account unless it exists (a 401/403 then: it belongs to someone)."""
    body = json.dumps({"data": {"password": password}}).encode()
    req = urllib.request.Request(f"{base.rstrip('/')}/v1/accounts/{user}", data=body, method="PUT")
    req.add_header("Content-Type", "application/json")
    req.add_header("If-None-Match", "*")
    try:
        with urllib.request.urlopen(req, timeout=30):
            pass
    except urllib.error.HTTPError as err:
        if err.code not in (401, 403, 412):
            sys.exit(f"kinto-seed: sign-up of {user} failed: HTTP {err.code} {err.read()[:300]!r}")


def batch_limit(base):
    """The server's `batch_max_requests` (a test server may lower it), at most BATCH."""
    with urllib.request.urlopen(base.rstrip("/") + "/v1/", timeout=30) as resp:
        limit = json.loads(resp.read()).get("settings", {}).get("batch_max_requests")
    return max(1, min(BATCH, limit)) if isinstance(limit, int) and limit > 0 else BATCH


def put_records(base, auth, bucket, collection, records):
    call(base, "PUT", f"/v1/buckets/{bucket}/collections/{collection}", auth, {"data": {}}) if bucket != "default" else None
    size = batch_limit(base)
    for start in range(0, len(records), size):
        chunk = records[start:start + size]
        requests = [{"method": "PUT", "path": f"/buckets/{bucket}/collections/{collection}/records/{r['id']}",
                     "body": {"data": r}} for r in chunk]
        result = call(base, "POST", "/v1/batch", auth, {"requests": requests})
        bad = [r for r in result["responses"] if r["status"] >= 400]
        if bad:
            sys.exit(f"kinto-seed: {collection}: {bad[0]['status']} {bad[0]['body']}")


def load(name):
    return json.loads((FIXTURES / f"{name}.json").read_text())


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("url", help="server root, e.g. http://127.0.0.1:8888")
    parser.add_argument("--admin", default="shop-admin", help="catalog owner user name")
    parser.add_argument("--reader", default="reader", help="reader whose library is seeded")
    parser.add_argument("--catalog-only", action="store_true", help="seed only the shop catalog")
    args = parser.parse_args()

    admin_password = os.environ.get("SHOP_ADMIN_PASSWORD", "shop-admin-local")
    reader_password = os.environ.get("READER_PASSWORD", "reader-local")
    if has_accounts(args.url):
        sign_up(args.url, args.admin, admin_password)
        if not args.catalog_only:
            sign_up(args.url, args.reader, reader_password)
    admin = auth_header(args.admin, admin_password)
    call(args.url, "PUT", "/v1/buckets/shop", admin,
         {"data": {}, "permissions": {"read": ["system.Authenticated"]}})
    put_records(args.url, admin, "shop", "products", load("products"))
    counts = {"products": len(load("products"))}

    if not args.catalog_only:
        reader = auth_header(args.reader, reader_password)
        for name in ("books", "notes", "tasks", "cart"):
            put_records(args.url, reader, "default", name, load(name))
            counts[name] = len(load(name))
    print("seeded " + ", ".join(f"{n} {c}" for n, c in counts.items()))


if __name__ == "__main__":
    main()
