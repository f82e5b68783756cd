"""One exchange with Shelf, driven by Tests/EncryptionTests/InteropTests.swift.

    python interop.py REQUEST.json

The request holds what Shelf made just now (a keyring, sealed records, under a fresh
passphrase) for this implementation to read, and what this implementation is to make
(records and natural ids, under a fresh key and passphrase of its own) for Shelf to read.
The answer, on stdout, is JSON: what was read ("read") and what was made ("made"); bytes
in hex. Any refusal is an error on stderr and exit status 1.
"""

import json
import sys

import nacl.utils

import shelf_format as shelf


def read(request):
    """Shelf's keyring opened with the passphrase, its records opened, ids derived."""
    passphrase = request["passphrase"].encode("utf-8")
    keyring = shelf.Keyring(shelf.parse_json(request["keyring"]))
    keys = keyring.open(passphrase)
    current = keyring.wrapped[keyring.manifest["current"]]
    identity = keys[keyring.manifest["identity"]]
    return {
        "keys": {kid: key.hex() for kid, key in keys.items()},
        "key_ids": {key.hex(): shelf.key_id(key) for key in keys.values()},
        "kek": shelf.derive_kek(passphrase, current.salt, current.ops, current.mem).hex(),
        "digest": keyring.digest(),
        "wrap_digests": {kid: wrapped.digest() for kid, wrapped in keyring.wrapped.items()},
        "opened": [shelf.open_record(item["record"], item["collection"], keys) for item in request["records"]],
        "keyed_ids": [shelf.keyed_id(identity, item["collection"], item["natural_id"]) for item in request["natural_ids"]],
    }


def make(request):
    """A keyring of two keys (the first retired, the second current) wrapped under the
    passphrase, records sealed under the current key, and keyed ids under the first."""
    passphrase = request["passphrase"].encode("utf-8")
    ops, mem = request["ops"], request["mem"]
    salt = nacl.utils.random(shelf.SALT_BYTES)
    kek = shelf.derive_kek(passphrase, salt, ops, mem)
    first, second = shelf.new_data_key(), shelf.new_data_key()
    wrapped = {shelf.key_id(key): shelf.wrap_key(key, kek, salt, ops, mem) for key in (first, second)}
    keyring = shelf.make_keyring(
        version=request["version"], current=shelf.key_id(second), identity=shelf.key_id(first), plaintext_closed=True,
        wrapped=wrapped, states={shelf.key_id(first): "retired", shelf.key_id(second): "current"}, keys=[first, second])
    records = []
    for item in request["records"]:
        if item.get("deletion"):
            envelope = shelf.seal_deletion(item["id"], item["collection"], item["seq"], second, item["lineage"])
        else:
            envelope = shelf.seal(item["id"], item["collection"], item["seq"], second, fields=item["fields"])
        records.append({"collection": item["collection"],
                        "record": shelf.server_record(item["id"], item["last_modified"], envelope).decode("utf-8")})
    return {
        "keyring": shelf.write_json(keyring).decode("utf-8"),
        "salt": salt.hex(),
        "kek": kek.hex(),
        "keys": {shelf.key_id(key): key.hex() for key in (first, second)},
        "records": records,
        "keyed_ids": [shelf.keyed_id(first, item["collection"], item["natural_id"]) for item in request["natural_ids"]],
    }


def main(arguments):
    if len(arguments) != 1:
        print(__doc__, file=sys.stderr)
        return 64
    with open(arguments[0], "rb") as file:
        request = json.loads(file.read())
    try:
        answer = {"read": read(request["read"]), "made": make(request["make"])}
    except shelf.FormatError as error:
        print(f"refused ({error.kind}): {error}", file=sys.stderr)
        return 1
    json.dump(answer, sys.stdout, sort_keys=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
