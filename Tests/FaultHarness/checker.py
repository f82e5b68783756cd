"""The checker: every device's data equals the model, and nothing waits or conflicts.

Input: the model and one snapshot per device (what `shelf --json books|notes|tasks|
status|conflicts|failed` printed after the devices synced until quiet), optionally the
server's records read directly from Kinto. With the server, every device must also hold
exactly the server's records, collection by collection (`differs_from_server`): a device
that skipped a record for good — a pull past a commit that landed late — shows there even
when the model could not say so (a record the model does not know, a model that is
wrong in the same way). Output: counts per kind of divergence and
one line per finding. A snapshot is a dict:

    {"books": [{"id", "title", "author", "isFinished"}], "notes": [...], "tasks": [...],
     "status": {"pendingChanges", "conflicts", "deadLetters", ...},
     "conflicts": [{"collection", "id", "fields", ...}], "failed": [...],
     "encryption": {"deleted_by_server", ...}}   (encrypted runs)

With a hostile operator (`operator`, hostile.py's ledger), what the operator wrote must
reach no device: a record it forged, or text it forged (`forged_accepted`), a value older
than the model's of a record it put an older version back over, or a record the reader
removed that it put back (`replay_accepted`); and the devices must have put their
versions back over its writes (`rollback_on_server`: a sealed version older than the
newest the operator saw, a keyring older than the newest, altered or gone). The records it
forged under new ids stay on the server (no device holds them, so none writes over them):
they are left out of the server's side of the comparison.
"""
from hostile import FORGE_MARKER, envelope_of
from model import FIELDS

KINDS = ("false_conflicts", "resurrected_deletes", "missing_edits", "wrong_fields",
         "extra_records", "duplicate_records", "dead_letters", "pending", "devices_differ",
         "differs_from_server", "plaintext_on_server", "forged_accepted", "replay_accepted",
         "rollback_on_server")

# What a sealed record, and a tombstone, may show the server (docs/encryption.md): the
# envelope of format 2 numbers each version (`seq`) and marks a reader's deletion (`del`).
SEALED_MEMBERS = {"id", "last_modified", "shelf_enc"}
SEALED_ENVELOPE = {"v", "kid", "seq", "n", "c"}
SEALED_DELETION_ENVELOPE = SEALED_ENVELOPE | {"del"}
TOMBSTONE_MEMBERS = {"id", "last_modified", "deleted"}


class Findings:
    def __init__(self):
        self.counts = {k: 0 for k in KINDS}
        self.lines = []

    def add(self, kind, line, n=1):
        self.counts[kind] += n
        self.lines.append(f"[{kind}] {line}")

    @property
    def ok(self):
        return not any(self.counts.values())

    def merge(self, other):
        for k, v in other.counts.items():
            self.counts[k] += v
        self.lines.extend(other.lines)


def check(model, snapshots, server=None, sealed=None, operator=None, keyring=None):
    """Compares every device (and the server, when given) with the model.

    `sealed` replaces `server` for an encrypted account: Kinto's records as it holds
    them (`Servers.sealed_view`, tombstones included). Their fields cannot be read, so
    the server is compared by id — live and deleted — with the model and with every
    device, and every record must show nothing but its id, its stamp and its sealed
    envelope (`plaintext_on_server` otherwise).

    `operator` (an `OperatorLedger`) is what a hostile operator did in the run, and
    `keyring` the keyring record Kinto holds now (None: none): see the module's doc."""
    findings = Findings()
    for device, snapshot in sorted(snapshots.items()):
        _check_records(model, f"device {device}", snapshot, findings, operator)
        _check_sync_state(f"device {device}", snapshot, findings)
    if sealed is not None:
        if operator is not None:
            sealed = _without_forged(sealed, operator)
            _check_operator_undone(sealed, keyring, operator, findings)
        _check_sealed(sealed, findings)
        _check_server_ids(model, sealed, findings)
        _check_devices_hold_the_sealed_server(snapshots, sealed, findings)
    elif server is not None:
        _check_records(model, "server", server, findings)
        _check_devices_hold_the_server(snapshots, server, findings)
    _check_devices_agree(snapshots, findings)
    return findings


# MARK: - Records

def _check_records(model, who, snapshot, findings, operator=None):
    for collection in FIELDS:
        expected = model.expected(collection)
        listed = snapshot.get(collection, [])
        seen = {}
        for record in listed:
            rid = record.get("id")
            if rid in seen:
                findings.add("duplicate_records", f"{who}: {collection}/{rid} is listed twice")
                continue
            if operator is not None and _is_forged(record, collection, operator):
                findings.add("forged_accepted", f"{who}: {collection}/{rid} shows what the operator forged: {record}")
                continue
            seen[rid] = record
        # The same content under two ids: a create applied twice under new ids.
        by_content = {}
        for rid, record in seen.items():
            key = tuple(record.get(f) for f in FIELDS[collection])
            by_content.setdefault(key, []).append(rid)
        for key, ids in by_content.items():
            if len(ids) > 1:
                findings.add("duplicate_records", f"{who}: {collection} {ids} carry the same fields {key}", len(ids) - 1)
        for rid, want in sorted(expected.items()):
            got = seen.get(rid)
            if got is None:
                findings.add("missing_edits", f"{who}: {collection}/{rid} is missing (expected {want})"
                                              f"{_what_the_operator_did(operator, collection, rid)}")
                continue
            for field, value in want.items():
                if got.get(field) != value:
                    shown = got.get(field)
                    if _replayed(operator, collection, rid) and model.is_past(collection, rid, field, shown):
                        findings.add("replay_accepted", f"{who}: {collection}/{rid}.{field} is {shown!r}, an older "
                                     f"value (the operator put an older version of the record back); expected {value!r}")
                    else:
                        findings.add("wrong_fields", f"{who}: {collection}/{rid}.{field} is {shown!r}, expected {value!r}")
        for rid in sorted(set(seen) - set(expected)):
            if rid in model.deleted[collection] and operator is not None and rid in operator.revived[collection]:
                findings.add("replay_accepted", f"{who}: {collection}/{rid} was deleted by the reader and the operator "
                             f"put an older version back over the deletion; it is listed again: {seen[rid]}")
            elif rid in model.deleted[collection]:
                findings.add("resurrected_deletes", f"{who}: {collection}/{rid} was deleted but is back: {seen[rid]}"
                                                    f"{_what_the_operator_did(operator, collection, rid)}")
            elif rid in model.created[collection] or not _is_duplicate_content(seen[rid], expected, collection):
                findings.add("extra_records", f"{who}: {collection}/{rid} is not in the model: {seen[rid]}")


def forged_records(records, collection, operator):
    """The records among `records` (a device's list of `collection`) that the operator forged."""
    return [r for r in records if _is_forged(r, collection, operator)]


def _is_forged(record, collection, operator):
    """A record the operator forged, or one showing text it forged."""
    return record.get("id") in operator.forged[collection] or any(
        isinstance(value, str) and FORGE_MARKER in value for value in record.values())


def _replayed(operator, collection, rid):
    return operator is not None and rid in operator.replayed[collection]


def _what_the_operator_did(operator, collection, rid):
    """What the operator did to a record, for a finding's line: a lead, not a verdict."""
    if operator is None:
        return ""
    did = [what for what, ids in (("deleted it", operator.deleted), ("put older versions of it back", operator.replayed))
           if rid in ids[collection]]
    return f" (the operator {' and '.join(did)} on the server)" if did else ""


def _is_duplicate_content(record, expected, collection):
    key = tuple(record.get(f) for f in FIELDS[collection])
    return any(tuple(v.get(f) for f in FIELDS[collection]) == key for v in expected.values())


# MARK: - Sync state

def _check_sync_state(who, snapshot, findings):
    status = snapshot.get("status", {})
    conflicts = snapshot.get("conflicts", [])
    if conflicts or status.get("conflicts"):
        n = max(len(conflicts), status.get("conflicts") or 0)
        shown = ", ".join(f"{c.get('collection')}/{c.get('id')} {c.get('fields')}" for c in conflicts)
        findings.add("false_conflicts", f"{who}: {n} conflict(s) where the model has none: {shown}", n)
    failed = snapshot.get("failed", [])
    if failed or status.get("deadLetters"):
        n = max(len(failed), status.get("deadLetters") or 0)
        shown = "; ".join(f"{f.get('collection')}/{f.get('recordID')} {f.get('change')} {f.get('status')}: {f.get('reason')}"
                          for f in failed)
        findings.add("dead_letters", f"{who}: {n} dead letter(s): {shown}", n)
    if status.get("pendingChanges"):
        findings.add("pending", f"{who}: {status['pendingChanges']} change(s) still pending", status["pendingChanges"])
    kept = (snapshot.get("encryption") or {}).get("deleted_by_server")
    if kept:
        findings.add("pending", f"{who}: {kept} record(s) the server deleted without the reader still wait for "
                     f"'shelf encryption put-back'", kept)


# MARK: - Devices against the server

SHOWN_IDS = 5   # ids named in one finding line; the count says how many in all


def _check_devices_hold_the_server(snapshots, server, findings):
    """Each device's records of a collection are the server's, id for id and field for
    field (the model's fields): one line per device, collection and kind of difference."""
    for collection in FIELDS:
        theirs = _by_id(server.get(collection, []), collection)
        for device, snapshot in sorted(snapshots.items()):
            mine = _by_id(snapshot.get(collection, []), collection)
            who = f"device {device}"
            lacking = sorted(set(theirs) - set(mine))
            extra = sorted(set(mine) - set(theirs))
            other = sorted(rid for rid in set(mine) & set(theirs) if mine[rid] != theirs[rid])
            _differences(findings, who, [
                (lacking, f"lacks {len(lacking)} of the server's {len(theirs)} {collection}"),
                (extra, f"holds {len(extra)} {collection} the server does not"),
                (other, f"{len(other)} {collection} differ from the server's"),
            ])


def _differences(findings, who, cases):
    """One `differs_from_server` line for each kind of difference that has ids: what it
    is, then some of the ids."""
    for ids, what in cases:
        if ids:
            findings.add("differs_from_server", f"{who}: {what}: {_some(ids)}", len(ids))


# MARK: - An encrypted server

def _check_sealed(sealed, findings):
    """Every live record shows only `id`, `last_modified` and a `shelf_enc` envelope;
    every tombstone only `id`, `last_modified` and `deleted`. One line per collection."""
    for collection, records in sorted(sealed.items()):
        plain = []
        for record in records:
            members = set(record)
            if record.get("deleted"):
                if not members <= TOMBSTONE_MEMBERS:
                    plain.append(f"{record.get('id')} (tombstone with {sorted(members - TOMBSTONE_MEMBERS)})")
                continue
            envelope = record.get("shelf_enc")
            if members != SEALED_MEMBERS or not isinstance(envelope, dict) or envelope.get("v") != 2 \
                    or set(envelope) not in (SEALED_ENVELOPE, SEALED_DELETION_ENVELOPE):
                shown = sorted(members - SEALED_MEMBERS) or ["no shelf_enc envelope"]
                plain.append(f"{record.get('id')} ({', '.join(shown)})")
        if plain:
            findings.add("plaintext_on_server", f"server: {len(plain)} {collection} record(s) not sealed: "
                         f"{_some(plain)}", len(plain))


def _is_deletion(record):
    """A Kinto tombstone, or a reader's deletion sealed as a record (`shelf_enc.del`)."""
    envelope = record.get("shelf_enc")
    return bool(record.get("deleted")) or (isinstance(envelope, dict) and envelope.get("del") is True)


def _live_and_deleted(records):
    live = {r.get("id"): r.get("last_modified") for r in records if not _is_deletion(r)}
    deleted = {r.get("id") for r in records if _is_deletion(r)}
    return live, deleted


def _check_server_ids(model, sealed, findings):
    """The server's live ids are the model's; a deleted record is a tombstone or gone."""
    for collection in FIELDS:
        live, _ = _live_and_deleted(sealed.get(collection, []))
        expected = model.expected(collection)
        for rid in sorted(set(expected) - set(live)):
            findings.add("missing_edits", f"server: {collection}/{rid} is missing (expected {expected[rid]})")
        for rid in sorted(set(live) - set(expected)):
            kind = "resurrected_deletes" if rid in model.deleted[collection] else "extra_records"
            findings.add(kind, f"server: {collection}/{rid} is live there, the model "
                         f"{'deleted it' if kind == 'resurrected_deletes' else 'does not know it'}")


def _check_devices_hold_the_sealed_server(snapshots, sealed, findings):
    """`differs_from_server` on what a sealed server shows: each device lists exactly the
    server's live ids of a collection, none it holds as a tombstone, and when the CLI
    prints a record's `last_modified` it is the server's."""
    for collection in FIELDS:
        live, deleted = _live_and_deleted(sealed.get(collection, []))
        for device, snapshot in sorted(snapshots.items()):
            mine = {r.get("id"): r for r in snapshot.get(collection, [])}
            who = f"device {device}"
            lacking = sorted(set(live) - set(mine))
            extra = sorted(set(mine) - set(live) - deleted)
            buried = sorted(set(mine) & deleted)
            stamped = sorted(rid for rid in set(mine) & set(live)
                             if "last_modified" in mine[rid] and mine[rid]["last_modified"] != live[rid])
            _differences(findings, who, [
                (lacking, f"lacks {len(lacking)} of the server's {len(live)} {collection}"),
                (extra, f"holds {len(extra)} {collection} the server does not"),
                (buried, f"lists {len(buried)} {collection} the server holds as deleted"),
                (stamped, f"{len(stamped)} {collection} carry another last_modified than the server's"),
            ])


# MARK: - What a hostile operator left

def _without_forged(sealed, operator):
    """The server's records less those the operator forged under new ids: no device holds
    them, so none writes over them, and they stay. (A device that lists one is found by
    `_check_records`.)"""
    return {collection: [r for r in records if r.get("id") not in operator.forged.get(collection, ())]
            for collection, records in sealed.items()}


def _check_operator_undone(sealed, keyring, operator, findings):
    """The devices put their versions back over what the operator wrote: no sealed version
    older than the newest the operator ever saw of it, and the keyring neither gone, nor
    altered, nor older than the newest."""
    for collection in FIELDS:
        older = []
        for record in sealed.get(collection, []):
            envelope = envelope_of(record)
            newest = operator.newest_seq.get((collection, record.get("id")))
            if envelope is not None and newest is not None and envelope["seq"] < newest:
                older.append(f"{record.get('id')} (seq {envelope['seq']} < {newest})")
        if older:
            findings.add("rollback_on_server", f"server: {len(older)} {collection} hold a version older than one it "
                         f"held before: {_some(older)}", len(older))
    newest = operator.newest_keyring_version
    if newest is None:
        return
    if keyring is None:
        findings.add("rollback_on_server", f"server: no keyring (the newest it held was version {newest})")
        return
    manifest = keyring.get("manifest") if isinstance(keyring.get("manifest"), dict) else {}
    version = manifest.get("version")
    if operator.wrote_keyring(keyring):
        findings.add("rollback_on_server", f"server: the keyring is one the operator wrote (version {version})")
    elif not isinstance(version, int) or version < newest:
        findings.add("rollback_on_server", f"server: keyring version {version}, older than version {newest}")


def _by_id(records, collection):
    return {r.get("id"): tuple(r.get(f) for f in FIELDS[collection]) for r in records}


def _some(ids):
    return ", ".join(ids[:SHOWN_IDS]) + (f" … ({len(ids) - SHOWN_IDS} more)" if len(ids) > SHOWN_IDS else "")


# MARK: - Devices against each other

def _check_devices_agree(snapshots, findings):
    def canonical(snapshot):
        return {c: sorted((tuple(sorted(r.items())) for r in snapshot.get(c, [])), key=repr) for c in FIELDS}
    devices = sorted(snapshots)
    if not devices:
        return
    first = canonical(snapshots[devices[0]])
    for other in devices[1:]:
        theirs = canonical(snapshots[other])
        for collection in FIELDS:
            if first[collection] != theirs[collection]:
                findings.add("devices_differ", f"devices {devices[0]} and {other} list different {collection}")
