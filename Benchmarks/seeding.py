"""Large data sets for the benchmark, written in bulk straight into Kinto's storage.

Kinto accepts about 80 writes a second on PostgreSQL, so 100,000 books through the
API would take twenty minutes. Instead the user's `default` bucket and `books`
collection are created once through the API (the default-bucket plugin derives the
bucket id from the user id with `kinto.default_bucket_hmac_secret`; the harness
reads it back rather than recomputing it), and the records are COPYed into the
`objects` table Kinto's `migrate` created:

    objects(id, parent_id = '/buckets/<bucket id>/collections/books',
            resource_name = 'record', last_modified, data jsonb, deleted)

`data` holds the record without `id` and `last_modified`, exactly as Kinto stores
it. Timestamps are unique and increasing, spread over the past weeks. The trigger
that bumps timestamps on write is bypassed for the bulk insert
(`session_replication_role = replica`), and the collection's "empty since" entry in
`timestamps` is dropped so its ETag is the newest record's `last_modified`, as if
the records had been written one by one. Afterwards the harness checks that Kinto
serves them all, by paging through the API and by its Total-Records count.

The small collections (notes, tasks, cart) and the shared `shop/products` catalog
are seeded through the API by Scripts/kinto-seed.py, as `make server` does.
"""
from __future__ import annotations

import csv
import importlib.util
import io
import json
import pathlib
import random
import time
import uuid

from kinto_api import Account, KintoAPI
from postgres_cluster import PostgresCluster

ROOT = pathlib.Path(__file__).resolve().parent.parent
SEED_SCRIPT = ROOT / "Scripts" / "kinto-seed.py"
SMALL_COLLECTIONS = ("notes", "tasks", "cart")
SHOP_ADMIN = Account("shop-admin", "shop-admin-bench")

# MARK: - Realistic books

AUTHORS = [
    "Ursula K. Le Guin", "Frank Herbert", "Gabriel García Márquez", "Albert Camus", "Toni Morrison",
    "Chimamanda Ngozi Adichie", "Kazuo Ishiguro", "Haruki Murakami", "Virginia Woolf", "George Eliot",
    "Fyodor Dostoevsky", "Leo Tolstoy", "Jane Austen", "Charlotte Brontë", "Thomas Mann",
    "Franz Kafka", "Italo Calvino", "Umberto Eco", "Stanisław Lem", "Octavia E. Butler",
    "Isabel Allende", "Jorge Luis Borges", "Julio Cortázar", "Clarice Lispector", "Naguib Mahfouz",
    "Orhan Pamuk", "Wisława Szymborska", "Olga Tokarczuk", "Elena Ferrante", "Marguerite Yourcenar",
    "Victor Hugo", "Émile Zola", "Gustave Flaubert", "Marcel Proust", "Simone de Beauvoir",
    "James Baldwin", "Zadie Smith", "Margaret Atwood", "Alice Munro", "Hilary Mantel",
    "Murasaki Shikibu", "Yasunari Kawabata", "Ngũgĩ wa Thiong'o", "Chinua Achebe", "Wole Soyinka",
    "Selma Lagerlöf", "Halldór Laxness", "Knut Hamsun", "Tove Jansson", "Astrid Lindgren",
]
ADJECTIVES = ["Silent", "Hidden", "Last", "Burning", "Distant", "Broken", "Golden", "Quiet", "Endless",
              "Forgotten", "Winter", "Northern", "Secret", "Wandering", "Painted", "Hollow", "Bright"]
NOUNS = ["River", "Garden", "Mountain", "Lighthouse", "Archive", "Harbour", "Orchard", "Library", "City",
         "Island", "Forest", "Bridge", "Season", "Letter", "Mirror", "Kingdom", "Station", "Voyage"]
WORDS = ("a novel about memory exile and the small rituals that hold a family together across three "
         "generations told through letters recipes and a map drawn by hand in the margins of an old atlas "
         "where every road ends at the sea and every chapter begins with a departure").split()
TARGET_RECORD_BYTES = 300
SEARCH_COMMON = "ursula"   # one author in 50: about 2% of the books match
SEARCH_NONE = "zzyzx"      # matches nothing: a pure scan


class BookGenerator:
    """Deterministic books of about 300 bytes as Kinto serves them (id and timestamp included)."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def book(self) -> dict:
        rng = self.rng
        record = {
            "id": str(uuid.UUID(int=rng.getrandbits(128), version=4)),
            "title": f"The {rng.choice(ADJECTIVES)} {rng.choice(NOUNS)}" + rng.choice(
                ["", " of " + rng.choice(NOUNS) + "s", ": A Novel", f", Volume {rng.randint(1, 9)}"]),
            "author_name": rng.choice(AUTHORS),
            "finished": rng.random() < 0.4,
            "last_modified": 1_700_000_000_000,
        }
        compact = json.dumps(record, separators=(",", ":"))  # as Kinto serves it
        room = TARGET_RECORD_BYTES - len(compact) - len(',"description":""')
        start = rng.randrange(len(WORDS))
        words, length = [], 0
        while length < room:
            word = WORDS[(start + len(words)) % len(WORDS)]
            words.append(word)
            length += len(word) + 1
        record["description"] = " ".join(words)[:max(room, 0)].rstrip().capitalize() + "."
        del record["last_modified"]
        return record

    def books(self, count: int) -> list[dict]:
        return [self.book() for _ in range(count)]


# MARK: - Seeding one account

def seed_account(cluster: PostgresCluster, root_url: str, account: Account, books: list[dict],
                 page_limit: int) -> dict:
    """Bulk `books` plus the small collections for `account`; verified through the API."""
    api = KintoAPI(root_url, account)
    try:
        seed_small_collections(root_url, account)
        # Touching the collection makes the default-bucket plugin create bucket and collection.
        api.request("GET", api.records_path("default", "books") + "?_limit=1")
        bucket_id = api.json("GET", "/v1/buckets/default")["data"]["id"]
        parent_id = f"/buckets/{bucket_id}/collections/books"
        exists = cluster.psql("SELECT count(*) FROM objects WHERE resource_name = 'collection' "
                              f"AND parent_id = '/buckets/{bucket_id}' AND id = 'books'").strip()
        if exists != "1":
            raise RuntimeError(f"collection {parent_id} not found in the objects table")

        started = time.perf_counter()
        bulk_insert_books(cluster, parent_id, books)
        insert_s = time.perf_counter() - started

        total = api.total_records("default", "books")
        paged, pages = api.count_by_paging("default", "books", page_limit)
        if total != len(books) or paged != len(books):
            raise RuntimeError(f"{account.user}: seeded {len(books)} books but Kinto counts {total} "
                               f"and serves {paged} through {pages} pages")
        small = {name: api.total_records("default", name) for name in SMALL_COLLECTIONS}
        products = api.total_records("shop", "products")
        return {"user": account.user, "bucket_id": bucket_id, "books": len(books), "served_books": paged,
                "pages": pages, "insert_s": round(insert_s, 2), "small": small, "products": products}
    finally:
        api.close()


def bulk_insert_books(cluster: PostgresCluster, parent_id: str, books: list[dict]) -> None:
    """COPY the books into a staging table, then one INSERT into `objects`, one transaction."""
    now_ms = int(time.time() * 1000)
    step_ms = 20_000
    buffer = io.StringIO()
    buffer.write("SET session_replication_role = replica;\nBEGIN;\n"
                 "CREATE TEMP TABLE seed (id text, lm bigint, data jsonb) ON COMMIT DROP;\n"
                 "COPY seed FROM STDIN WITH (FORMAT csv);\n")
    writer = csv.writer(buffer, lineterminator="\n")
    count = len(books)
    for index, book in enumerate(books):
        data = {key: value for key, value in book.items() if key != "id"}
        writer.writerow([book["id"], now_ms - (count - index) * step_ms, json.dumps(data)])
    quoted = parent_id.replace("'", "''")
    buffer.write("\\.\n"
                 "INSERT INTO objects (id, parent_id, resource_name, last_modified, data, deleted) "
                 f"SELECT id, '{quoted}', 'record', from_epoch(lm), data, false FROM seed;\n"
                 f"DELETE FROM timestamps WHERE parent_id = '{quoted}' AND resource_name = 'record';\n"
                 "COMMIT;\nANALYZE objects;\n")
    cluster.psql(stdin=buffer.getvalue().encode())


def _seed_script():
    """Scripts/kinto-seed.py as a module (its file name is not importable as such)."""
    spec = importlib.util.spec_from_file_location("kinto_seed", SEED_SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def seed_small_collections(root_url: str, account: Account) -> None:
    """notes, tasks, cart from Fixtures/seed, and the shop catalog (idempotent), through the API.

    The fixture books are left out: the books collection holds exactly the bulk data set.
    """
    script = _seed_script()
    admin = script.auth_header(SHOP_ADMIN.user, SHOP_ADMIN.password)
    script.call(root_url, "PUT", "/v1/buckets/shop", admin,
                {"data": {}, "permissions": {"read": ["system.Authenticated"]}})
    script.put_records(root_url, admin, "shop", "products", script.load("products"))
    reader = script.auth_header(account.user, account.password)
    for name in SMALL_COLLECTIONS:
        script.put_records(root_url, reader, "default", name, script.load(name))
