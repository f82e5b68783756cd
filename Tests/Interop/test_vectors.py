"""The second implementation (shelf_format.py) against the committed known-answer vectors
(Fixtures/encryption/vectors.json), which Shelf's own code wrote.

    .venv/bin/python -m unittest discover -s Tests/Interop

Run by Shelf's EncryptionTests (InteropTests.swift), so `make test` runs it; without
PyNaCl it fails (an import error), it never skips.
"""

import json
import pathlib
import re
import unittest

import nacl

import shelf_format as shelf

ROOT = pathlib.Path(__file__).resolve().parents[2]
VECTORS = json.loads((ROOT / "Fixtures/encryption/vectors.json").read_text(encoding="utf-8"))


def unhex(text):
    return bytes.fromhex(text)


class PinnedPyNaCl(unittest.TestCase):
    def test_the_installed_pynacl_is_the_pinned_one(self):
        requirements = (ROOT / "Fixtures/encryption/requirements.txt").read_text(encoding="utf-8")
        pinned = re.search(r"^pynacl==(\S+)$", requirements, re.MULTILINE | re.IGNORECASE).group(1)
        self.assertEqual(nacl.__version__, pinned, "run 'make setup'")


class Keys(unittest.TestCase):
    def setUp(self):
        self.keys = {vector["name"]: unhex(vector["key"]) for vector in VECTORS["data_keys"]}

    def test_the_passphrase_becomes_the_kek(self):
        vector = VECTORS["kek"]
        self.assertEqual(vector["passphrase"].encode("utf-8").hex(), vector["passphrase_utf8"])
        kek = shelf.derive_kek(vector["passphrase"], unhex(vector["salt"]), vector["ops"], vector["mem"])
        self.assertEqual(kek.hex(), vector["kek"])

    def test_each_data_key_has_its_id(self):
        for vector in VECTORS["data_keys"]:
            key = unhex(vector["key"])
            self.assertEqual(shelf.blake2b(16, b"shelf data key id v1", key=key).hex(), vector["id_mac"])
            self.assertEqual(shelf.key_id(key), vector["kid"])

    def test_the_wrapped_key_wraps_unwraps_and_has_its_digest(self):
        vector = VECTORS["wrapped_key"]
        kek_vector = VECTORS["kek"]
        kek = unhex(kek_vector["kek"])
        key = self.keys[vector["key"]]
        made = shelf.wrap_key(key, kek, unhex(kek_vector["salt"]), kek_vector["ops"], kek_vector["mem"], nonce=unhex(vector["nonce"]))
        self.assertEqual(made, vector["json"])
        self.assertEqual(shelf.wrapped_key_ad(shelf.key_id(key), kek_vector["ops"], kek_vector["mem"]).hex(), vector["associated_data"])
        wrapped = shelf.WrappedKey(vector["json"])
        self.assertEqual(wrapped.ciphertext.hex(), vector["ciphertext"])
        self.assertEqual(wrapped.unwrap(kek), key)
        self.assertEqual(shelf.unwrap_key(vector["json"], kek_vector["passphrase"]), key)
        self.assertEqual(wrapped.digest_message().hex(), vector["digest_message"])
        self.assertEqual(wrapped.digest(), vector["digest"])

    def test_a_wrong_passphrase_does_not_unwrap(self):
        with self.assertRaises(shelf.WrongPassphrase):
            shelf.unwrap_key(VECTORS["wrapped_key"]["json"], "correct horse battery staple, a la cafe")

    def test_a_cost_beyond_the_bounds_is_refused_before_any_work(self):
        fields = json.loads(json.dumps(VECTORS["wrapped_key"]["json"]))
        fields["kdf"]["mem"] = 64 << 30
        with self.assertRaises(shelf.Malformed):
            shelf.WrappedKey(fields)

    def test_keyed_ids(self):
        vector = VECTORS["keyed_ids"]
        identity = self.keys[vector["identity"]]
        self.assertEqual(shelf.subkey(identity, b"shelf_id").hex(), vector["subkey"])
        for item in vector["ids"]:
            self.assertEqual(shelf.keyed_id_message(item["collection"], item["natural_id"]).hex(), item["message"])
            self.assertEqual(shelf.keyed_id(identity, item["collection"], item["natural_id"]), item["id"])


class Records(unittest.TestCase):
    def setUp(self):
        self.keys = {vector["name"]: unhex(vector["key"]) for vector in VECTORS["data_keys"]}
        # A device holding A and B, as the keyring vector lists them; C is a stranger.
        self.held = {shelf.key_id(self.keys[name]): self.keys[name] for name in ("A", "B")}

    def test_each_record_seals_to_its_vector(self):
        for vector in VECTORS["records"]:
            with self.subTest(vector["name"]):
                key = self.keys[vector["key"]]
                content = vector["content"].encode("utf-8")
                self.assertEqual(json.loads(shelf.content_of(vector["fields"])), json.loads(content))
                self.assertEqual(shelf.pad(content).hex(), vector["padded"])
                seq = vector.get("seq")
                ad = shelf.record_ad(vector["format"], shelf.key_id(key), vector["collection"], vector["id"], seq, vector["deletion"],
                                     vector["bucket"])
                self.assertEqual(ad.hex(), vector["associated_data"])
                envelope = shelf.seal(vector["id"], vector["collection"], seq, key, content=content, deletion=vector["deletion"],
                                      nonce=unhex(vector["nonce"]), version=vector["format"])
                self.assertEqual(shelf.b64_decode(envelope["c"], maximum=shelf.MAX_CIPHERTEXT).hex(), vector["ciphertext"])
                server = json.loads(vector["server_record"])
                self.assertEqual(server, {"id": vector["id"], "last_modified": vector["last_modified"], "shelf_enc": envelope})
                self.assertEqual(shelf.server_record(vector["id"], vector["last_modified"], envelope).decode("utf-8"),
                                 vector["server_record"])

    def test_a_deletion_seals_to_its_vector_from_its_lineage(self):
        vector = next(vector for vector in VECTORS["records"] if vector["deletion"])
        envelope = shelf.seal_deletion(vector["id"], vector["collection"], vector["seq"], self.keys[vector["key"]],
                                       vector["fields"]["_shelf_revs"], nonce=unhex(vector["nonce"]))
        self.assertEqual(json.loads(vector["server_record"])["shelf_enc"], envelope)

    def test_each_record_opens_to_its_opened_form(self):
        for vector in VECTORS["records"]:
            with self.subTest(vector["name"]):
                opened = shelf.open_record(vector["server_record"], vector["collection"], self.held)
                self.assertEqual(opened, vector["opened"])

    def test_each_refused_record_is_refused_for_its_reason(self):
        self.assertGreaterEqual(len(VECTORS["refused"]), 20)
        for vector in VECTORS["refused"]:
            with self.subTest(vector["name"]):
                with self.assertRaises(shelf.FormatError) as refusal:
                    shelf.open_record(vector["record"], vector["collection"], self.held)
                self.assertEqual(refusal.exception.kind, vector["kind"])


class Keyring(unittest.TestCase):
    def setUp(self):
        self.keys = {vector["name"]: unhex(vector["key"]) for vector in VECTORS["data_keys"]}
        self.vector = VECTORS["keyring"]
        self.kek = VECTORS["kek"]

    def test_the_manifest_bytes_macs_and_digest(self):
        manifest = self.vector["record"]["manifest"]
        self.assertEqual(shelf.manifest_bytes(manifest).hex(), self.vector["manifest_bytes"])
        self.assertEqual(shelf.manifest_digest(manifest), self.vector["digest"])
        for name in self.vector["keys"]:
            key = self.keys[name]
            kid = shelf.key_id(key)
            self.assertEqual(shelf.keyring_mac_key(key).hex(), self.vector["mac_subkeys"][kid])
            self.assertEqual(shelf.keyring_mac(manifest, key).hex(), self.vector["macs"][kid])
            self.assertEqual(shelf.b64_decode(self.vector["record"]["auth"][kid], exact=32).hex(), self.vector["macs"][kid])

    def test_the_keyring_is_made_again(self):
        record = self.vector["record"]
        manifest = record["manifest"]
        keys = [self.keys[name] for name in self.vector["keys"]]
        kek = unhex(self.kek["kek"])
        wrapped = {shelf.key_id(key): shelf.wrap_key(key, kek, unhex(self.kek["salt"]), self.kek["ops"], self.kek["mem"],
                                                     nonce=unhex(self.vector["wrap_nonces"][shelf.key_id(key)]))
                   for key in keys}
        made = shelf.make_keyring(manifest["version"], manifest["current"], manifest["identity"], manifest["plaintext"] == "closed",
                                  wrapped, {kid: line["state"] for kid, line in manifest["keys"].items()}, keys)
        self.assertEqual(made, record)

    def test_the_keyring_verifies_and_opens_with_the_passphrase(self):
        keyring = shelf.Keyring(self.vector["record"])
        self.assertEqual(keyring.verify([self.keys["A"], self.keys["B"]]), 2)
        opened = keyring.open(self.kek["passphrase"])
        self.assertEqual(opened, {shelf.key_id(self.keys[name]): self.keys[name] for name in ("A", "B")})

    def test_an_edited_manifest_does_not_verify(self):
        for edit in ("version", "plaintext", "current"):
            with self.subTest(edit):
                record = json.loads(json.dumps(self.vector["record"]))
                manifest = record["manifest"]
                if edit == "version":
                    manifest["version"] += 1
                elif edit == "plaintext":
                    manifest["plaintext"] = "open"
                else:
                    a, b = shelf.key_id(self.keys["A"]), shelf.key_id(self.keys["B"])
                    manifest["current"] = a
                    manifest["keys"][a]["state"], manifest["keys"][b]["state"] = "current", "retiring"
                with self.assertRaises(shelf.NotAuthentic):
                    shelf.Keyring(record).verify([self.keys["A"], self.keys["B"]])

    def test_an_extra_member_refuses_the_manifest(self):
        record = json.loads(json.dumps(self.vector["record"]))
        record["manifest"]["enabled_at"] = 0
        with self.assertRaises(shelf.Malformed):
            shelf.Keyring(record)


if __name__ == "__main__":
    unittest.main()
