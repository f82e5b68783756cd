"""A sealed library made offline, for `bench_sealed.py`: the pure parts, tested alone.

Writing 100,000 sealed records through Shelf would cost the minutes Kinto's writes take
(~80 a second on PostgreSQL), so the benchmark seals them here, with the second
implementation of the format (`Tests/Interop/shelf_format.py`, PyNaCl, written from
docs/encryption-format.md alone), and seeds them in bulk the way `seeding.py` seeds
plaintext books. What a device then meets is what Shelf itself leaves on a server once
`shelf encryption enable` has finished its migration:

- one data key, wrapped under a passphrase at the format's cheapest KDF cost (`ops` 1,
  `mem` 8 KiB: `join` is not what is measured, and a sync never derives a key), in a
  format 2 keyring whose manifest is version 1, closed (no record in the clear is taken)
  and MACed under that key;
- every record of the reader's collections sealed in format 2, `seq` 1, with a lineage
  (`_shelf_revs`) of one revision id, as a record Shelf wrote carries; the plaintext
  library gets the same lineage, so both libraries hold the same fields.

The commit window (`CommitWindow` in Modules/Sync): right after a first sync, a device's
next pulls reach back 60 s behind the collection's newest stamp, so what lies there comes
back and is dropped by its version. Bulk-seeded stamps are 20 s apart (`seeding.py`),
which leaves three records there; `window_sql` restamps the newest N records a few
milliseconds apart, as a push of N records just before the first sync leaves them, so the
idle runs inside the window carry a known load.
"""
from __future__ import annotations

import pathlib
import random
import sys
import uuid
from dataclasses import dataclass

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "Tests" / "Interop"))

import shelf_format as fmt  # noqa: E402

# The format's lowest KDF cost (docs/encryption-format.md: ops 1…10, mem 8,192…1 GiB).
KDF_OPS, KDF_MEM = 1, 8192
# A push of N records leaves their stamps this far apart at most (Kinto writes ~200/s).
WINDOW_STEP_MS = 5
# Shelf's default commit window (`CommitWindow.standard`).
COMMIT_WINDOW_MS = 60_000
# The records the window may be given: all of them stamped inside one window, with room
# for the time an idle run takes to start.
MAX_WINDOW_RECORDS = (COMMIT_WINDOW_MS - 10_000) // WINDOW_STEP_MS


# MARK: - The account's key and keyring

@dataclass(frozen=True)
class AccountKey:
    """A data key, the passphrase that wraps it, and the keyring a server keeps of it."""

    data_key: bytes
    passphrase: str
    keyring: dict

    @property
    def kid(self) -> str:
        return fmt.key_id(self.data_key)

    @classmethod
    def make(cls, passphrase: str) -> AccountKey:
        """A fresh key in a format 2 keyring: version 1, the key current and identity, the
        plaintext period closed, the manifest MACed under the key."""
        data_key = fmt.new_data_key()
        salt = fmt.nacl.utils.random(fmt.SALT_BYTES)
        kek = fmt.derive_kek(passphrase, salt, KDF_OPS, KDF_MEM)
        wrapped = fmt.wrap_key(data_key, kek, salt, KDF_OPS, KDF_MEM)
        kid = fmt.key_id(data_key)
        keyring = fmt.make_keyring(1, kid, kid, True, {kid: wrapped}, {kid: "current"}, [data_key])
        return cls(data_key=data_key, passphrase=passphrase, keyring=keyring)


# MARK: - Records

def with_lineage(records: list[dict], seed: int) -> list[dict]:
    """The records each with a lineage of one revision id, as Shelf writes them (a
    lowercase UUID), deterministic from `seed`."""
    rng = random.Random(seed)
    return [{**record, fmt.LINEAGE: [str(uuid.UUID(int=rng.getrandbits(128), version=4))]} for record in records]


def sealed_record(record: dict, collection: str, key: bytes) -> dict:
    """The record as Shelf's server keeps it once sealed: its id and the envelope (`seq` 1)."""
    fields = {name: value for name, value in record.items() if name != "_collection"}
    return {"id": record["id"], fmt.ENVELOPE: fmt.seal(record["id"], collection, 1, key, fields=fields)}


def sealed_records(records: list[dict], collection: str, key: bytes) -> list[dict]:
    return [sealed_record(record, collection, key) for record in records]


# MARK: - The commit window's load

def window_sql(parent_id: str, count: int, step_ms: int = WINDOW_STEP_MS) -> str:
    """A psql script that leaves the `count` newest records of `parent_id` inside one
    commit window: the newest keeps its stamp (the collection's timestamp does not move),
    the next `count - 1` are restamped 1 ms behind it and then `step_ms` apart, with
    Kinto's stamping trigger bypassed as `seeding.py` bypasses it. Prints one id for each
    record restamped.

    NB: Kinto's stamps are unique per collection (a unique index, checked row by row as
    the update goes). Bulk-seeded stamps lie a multiple of 20 s behind the newest, and
    `1 + step_ms·k` never is one when `step_ms` divides 20,000: no new stamp meets an old one.
    """
    if step_ms < 2 or 20_000 % step_ms:
        raise ValueError(f"the step must divide 20,000 ms and exceed 1, not {step_ms}")
    if count < 0 or count > MAX_WINDOW_RECORDS:
        raise ValueError(f"the window holds 0 to {MAX_WINDOW_RECORDS} records, not {count}")
    quoted = parent_id.replace("'", "''")
    return (
        "SET session_replication_role = replica;\n"
        "BEGIN;\n"
        "WITH ranked AS (\n"
        "  SELECT id, row_number() OVER (ORDER BY last_modified DESC) AS rank,\n"
        "         max(as_epoch(last_modified)) OVER () AS newest\n"
        f"  FROM objects WHERE parent_id = '{quoted}' AND resource_name = 'record')\n"
        f"UPDATE objects o SET last_modified = from_epoch(r.newest - 1 - {step_ms} * (r.rank - 2))\n"
        f"FROM ranked r WHERE o.parent_id = '{quoted}' AND o.resource_name = 'record'\n"
        f"  AND o.id = r.id AND r.rank BETWEEN 2 AND {count}\n"
        "RETURNING o.id;\n"
        "COMMIT;\n")


def restamped(output: str) -> int:
    """How many records `window_sql`'s script restamped (one id a line)."""
    return sum(1 for line in output.splitlines() if line.strip())


# MARK: - Verdicts

def ratio(sealed: float | None, plain: float | None) -> float | None:
    if sealed is None or not plain:
        return None
    return sealed / plain


def verdict(value: float | None, limit: float) -> str:
    """`MET`, `MISSED`, or `not measured` for a ratio against its ceiling."""
    if value is None:
        return "not measured"
    return "MET" if value <= limit else "MISSED"
