"""The hostile operator: Kinto's operator writing the reader's encrypted account by hand.

With `--hostile` (only with `--encrypted`), a history holds `operator` actions between the
devices' steps. Each is done straight against Kinto, not through the fault proxy, as the
server's operator (or whoever broke in) would do it with plain HTTP:

- `replay`: PUT back an older sealed version of a record, one the operator copied earlier
  (every sealed record is copied at each barrier and at each operator step). An older
  live version over a newer one, or over the reader's sealed deletion of the record.
- `forge`: PUT a record in the clear, under a new id or over a sealed one, its text
  marked `FORGE_MARKER`.
- `delete`: DELETE some records, or every record of a collection (one plural DELETE),
  leaving Kinto tombstones no key vouches for.
- `keyring`: PUT back an older copy of the keyring, alter the one there (a manifest said
  to be newer, or the plaintext period said to be open, without the key that MACs it),
  or DELETE it.

What the devices must do is in docs/encryption.md: refuse, say so, keep their copies,
put their versions back by themselves — except deletions, which wait for the reader's
`shelf encryption put-back` (the driver runs it at barriers). The operator acts only once
the account is sealed for every device: every device has joined (a `join` reads the
keyring the server shows, whatever it is), and before a forge or a delete every device
knows the plaintext period is closed — during a migration a record in the clear, or a
tombstone of one never seen sealed, is still taken (docs/encryption.md), by design.

`OperatorLedger` is what the operator did in a run, for the checker: the ids it forged,
the records it replayed or deleted, the keyring bodies it wrote, the newest sealed version
and keyring it saw of each thing.
"""
import hashlib
import json
import random
import uuid

from generator import COLLECTIONS

# Every text the operator forges carries this: a device that lists it took forged content.
FORGE_MARKER = "FORGED by the operator"
KEYRING_COLLECTION, KEYRING_ID = "shelf-keys", "keyring"
# How an action that found nothing to act on ends its line.
NOTHING_DONE = "; nothing done"


def envelope_of(record):
    """A Kinto record's `shelf_enc` envelope when it is one of format 2, else None."""
    envelope = record.get("shelf_enc")
    if isinstance(envelope, dict) and envelope.get("v") == 2 and isinstance(envelope.get("seq"), int):
        return envelope
    return None


def _digest(data):
    return hashlib.sha256(json.dumps(data, sort_keys=True).encode()).hexdigest()[:16]


def keyring_digest(record):
    """What tells one keyring record from another: a digest of its members (not its stamp)."""
    return _digest(_keyring_data(record))


# MARK: - The ledger

class OperatorLedger:
    """What the operator did and saw in one run."""

    # What a run's result line counts of the operator's doing.
    COUNTERS = ("operator_actions", "replays", "removed_records_replayed", "forges", "operator_deletes",
                "keyring_attacks", "operator_skipped")

    def __init__(self):
        self.forged = {c: set() for c in COLLECTIONS}        # ids written in the clear by the operator, new
        self.replayed = {c: set() for c in COLLECTIONS}      # ids it put an older sealed version back over
        self.revived = {c: set() for c in COLLECTIONS}       # … over the reader's sealed deletion of them
        self.deleted = {c: set() for c in COLLECTIONS}       # ids it deleted with a Kinto tombstone
        # Sealed versions copied from Kinto: (collection, id) -> {nonce: server record}.
        self.copies = {}
        # The highest sequence number seen of each record on the server (sealed by the reader).
        self.newest_seq = {}
        # Keyrings: genuine copies by manifest version, and the bodies the operator wrote.
        self.keyrings = {}
        self.forged_keyrings = set()
        self.counts = {k: 0 for k in self.COUNTERS}

    def bump(self, key, n=1):
        self.counts[key] += n

    # MARK: Copies

    def copy_records(self, collection, records):
        """Keeps a copy of every sealed version in `records` (Kinto's list of a collection)."""
        for record in records:
            envelope = envelope_of(record)
            if envelope is None:
                continue
            key = (collection, record["id"])
            self.copies.setdefault(key, {}).setdefault(envelope.get("n"), record)
            self.newest_seq[key] = max(self.newest_seq.get(key, 0), envelope["seq"])

    def copy_keyring(self, record):
        """Keeps a copy of a keyring the reader's devices wrote (not one the operator did)."""
        if record is None:
            return
        data = _keyring_data(record)
        version = _manifest_version(data)
        if version is None or _digest(data) in self.forged_keyrings:
            return
        self.keyrings.setdefault(version, data)

    def wrote_keyring(self, record):
        """Whether `record` (a keyring from Kinto) is one the operator put there."""
        return keyring_digest(record) in self.forged_keyrings

    @property
    def newest_keyring_version(self):
        return max(self.keyrings) if self.keyrings else None


def _keyring_data(record):
    return {k: v for k, v in record.items() if k not in ("id", "last_modified")}


def _manifest_version(data):
    manifest = data.get("manifest")
    if isinstance(manifest, dict) and isinstance(manifest.get("version"), int):
        return manifest["version"]
    return None


# MARK: - The operator

class HostileOperator:
    """Carries out `operator` actions against Kinto for one run's user."""

    def __init__(self, servers, user, password, ledger):
        self.servers, self.user, self.password, self.ledger = servers, user, password, ledger

    def _kinto(self, method, path, body=None):
        return self.servers.kinto_request(self.user, self.password, method, path, body)

    # MARK: Copies

    def copy_everything(self):
        """Copies every sealed record and the keyring from Kinto (tombstones included)."""
        view = self.servers.sealed_view(self.user, self.password, COLLECTIONS)
        for collection, records in view.items():
            self.ledger.copy_records(collection, records)
        keyring = self.keyring()
        self.ledger.copy_keyring(keyring)
        return view, keyring

    def keyring(self):
        status, body = self._kinto("GET", f"collections/{KEYRING_COLLECTION}/records/{KEYRING_ID}")
        return body["data"] if status == 200 else None

    # MARK: Actions

    def act(self, action):
        """Does `action`; returns a line for the transcript (what it did, or why nothing).
        The ledger counts it as done, or as skipped when there was nothing to do it to."""
        view, keyring = self.copy_everything()
        rng = random.Random(action.get("pick", 0))
        kind = action["kind"]
        if kind == "replay":
            said = self._replay(view, rng, action.get("count", 1))
        elif kind == "forge":
            said = self._forge(view, rng, action["collection"], action.get("target", "new"))
        elif kind == "delete":
            said = self._delete(view, rng, action["collection"], action.get("scope", "some"), action.get("count", 1))
        elif kind == "keyring":
            said = self._keyring(keyring, rng, action.get("variant", "rollback"))
        else:
            raise ValueError(f"unknown operator action {kind!r}")
        self.ledger.bump("operator_skipped" if said.endswith(NOTHING_DONE) else "operator_actions")
        return said

    def _replay(self, view, rng, count):
        """Puts back older sealed versions: over a newer live one, or over a sealed deletion."""
        candidates = []
        for collection in COLLECTIONS:
            for record in view.get(collection, []):
                current = envelope_of(record)
                if current is None:
                    continue   # a Kinto tombstone, or in the clear: nothing sealed to roll back
                older = [copy for nonce, copy in sorted(self.ledger.copies.get((collection, record["id"]), {}).items(),
                                                         key=lambda item: str(item[0]))
                         if envelope_of(copy)["seq"] < current["seq"] and not envelope_of(copy).get("del")]
                if older:
                    candidates.append((collection, record["id"], bool(current.get("del")), older))
        if not candidates:
            return "replay: no older sealed version copied yet of any record the server holds" + NOTHING_DONE
        done = []
        for collection, rid, over_deletion, older in rng.sample(candidates, min(count, len(candidates))):
            copy = rng.choice(older)
            status, _ = self._kinto("PUT", f"collections/{collection}/records/{rid}",
                                    {"data": {"shelf_enc": copy["shelf_enc"]}})
            if status not in (200, 201):
                done.append(f"{collection}/{rid} refused by Kinto ({status})")
                continue
            self.ledger.replayed[collection].add(rid)
            self.ledger.bump("replays")
            if over_deletion:
                self.ledger.revived[collection].add(rid)
                self.ledger.bump("removed_records_replayed")
            done.append(f"{collection}/{rid} seq {copy['shelf_enc']['seq']}"
                        f"{' over the reader’s deletion' if over_deletion else ''}")
        return "replay: put back " + ", ".join(done)

    def _forge(self, view, rng, collection, target):
        """Writes a record in the clear: a new id, or over a live sealed one."""
        live = sorted(r["id"] for r in view.get(collection, []) if envelope_of(r) and not envelope_of(r).get("del"))
        text = f"{FORGE_MARKER} {rng.randrange(1 << 30):08x}"
        if target == "existing" and live:
            rid = rng.choice(live)
            what = "over the sealed"
        else:
            rid = str(uuid.UUID(int=rng.getrandbits(128), version=4))
            self.ledger.forged[collection].add(rid)
            what = "a new"
        status, _ = self._kinto("PUT", f"collections/{collection}/records/{rid}",
                                {"data": _forged_fields(collection, text)})
        self.ledger.bump("forges")
        return f"forge: {what} {collection}/{rid} in the clear (Kinto {status})"

    def _delete(self, view, rng, collection, scope, count):
        """Deletes live records (Kinto tombstones): some, or the whole list at once."""
        live = sorted(r["id"] for r in view.get(collection, []) if not r.get("deleted")
                      and not (envelope_of(r) or {}).get("del"))
        if not live:
            return f"delete: {collection} holds no live record" + NOTHING_DONE
        if scope == "all":
            status, _ = self._kinto("DELETE", f"collections/{collection}/records")
            gone = live
            said = f"delete: every record of {collection} with one DELETE ({len(gone)} live; Kinto {status})"
        else:
            gone = rng.sample(live, min(count, len(live)))
            statuses = [self._kinto("DELETE", f"collections/{collection}/records/{rid}")[0] for rid in gone]
            said = f"delete: {collection}/{', '.join(gone)} (Kinto {statuses})"
        self.ledger.deleted[collection].update(gone)
        self.ledger.bump("operator_deletes", len(gone))
        return said

    def _keyring(self, keyring, rng, variant):
        """Rolls the keyring back to an older copy, alters it, or deletes it."""
        path = f"collections/{KEYRING_COLLECTION}/records/{KEYRING_ID}"
        if keyring is None:
            return "keyring: the server holds none" + NOTHING_DONE
        current = _keyring_data(keyring)
        if self.ledger.wrote_keyring(keyring) and self.ledger.keyrings:
            # Its own earlier write is still there: it works from the newest genuine one.
            current = self.ledger.keyrings[self.ledger.newest_keyring_version]
        version = _manifest_version(current)
        if version is None:
            return "keyring: the server's is not of format 2" + NOTHING_DONE
        older = sorted(v for v in self.ledger.keyrings if v < version)
        if variant == "rollback" and older:
            data = self.ledger.keyrings[rng.choice(older)]
            said = f"keyring: put back version {_manifest_version(data)} over version {version}"
        elif variant == "delete":
            status, _ = self._kinto("DELETE", path)
            self.ledger.bump("keyring_attacks")
            return f"keyring: deleted version {version} (Kinto {status})"
        else:
            data = json.loads(json.dumps(current))
            manifest = data.get("manifest", {})
            if rng.random() < 0.5 or manifest.get("plaintext") == "open":
                manifest["version"] = version + 1
                said = f"keyring: said version {version} is version {version + 1} (its MACs unchanged)"
            else:
                manifest["plaintext"] = "open"
                said = f"keyring: said version {version} leaves the plaintext period open (its MACs unchanged)"
        self.ledger.forged_keyrings.add(_digest(data))
        status, _ = self._kinto("PUT", path, {"data": data})
        self.ledger.bump("keyring_attacks")
        return f"{said} (Kinto {status})"


def _forged_fields(collection, text):
    """A record in the clear in the wire shape a device would read (`author_name`, `finished`, …)."""
    if collection == "books":
        return {"title": text, "author_name": f"{text} (author)", "finished": False}
    if collection == "notes":
        return {"title": text, "body": f"{text} (body)"}
    return {"title": text, "done": False}
