"""Shelf's encryption format 2, a second implementation written from docs/encryption-format.md.

It does not share a line with Shelf's Swift code: libsodium through PyNaCl (pinned in
Fixtures/encryption/requirements.txt), the standard library for JSON and base64. The tests
beside it check it against the committed known-answer vectors (test_vectors.py) and
Shelf's EncryptionTests exchange fresh records and keyrings with it (interop.py).

Names follow the document: lp() is its length-prefixed list, subkey() its
crypto_kdf_derive_from_key, AD_* its authenticated data.
"""

import base64
import binascii
import hmac
import json
import math
import re

import nacl.bindings as sodium
import nacl.encoding
import nacl.exceptions
import nacl.hash
import nacl.pwhash.argon2id
import nacl.utils

# MARK: - Constants (docs/encryption-format.md, "Constants")

KEY_ID_CONTEXT = "shelf data key id v1"
WRAPPED_KEY = "shelf wrapped key"
KDF_NAME = "argon2id13"
KEYED_ID_CONTEXT = b"shelf_id"
KEYED_ID = "shelf keyed id"
RECORD = "shelf record"
KEYRING = "shelf keyring"
KEYRING_MAC_CONTEXT = b"shelfkrg"
BUCKET = "default"
ENVELOPE = "shelf_enc"
LINEAGE = "_shelf_revs"
SEQUENCE = "_shelf_seq"
DELETION_MARK = "_shelf_deleted"

WRAPPED_KEY_FORMAT = 1
RECORD_FORMAT = 2
LEGACY_RECORD_FORMAT = 1
KEYRING_FORMAT = 2

SEALED_COLLECTIONS = ("books", "notes", "tasks", "cart", "preferences", "sessions")
KEY_STATES = ("current", "retiring", "retired")

MAX_SEQUENCE = 2**53 - 1
MAX_CIPHERTEXT = 4 * 1024 * 1024
MAX_KEYS = 255
MAX_DEPTH = 512
MIN_OPS, MAX_OPS = 1, 10
MIN_MEM, MAX_MEM = 8192, 1 << 30
PADDING_BLOCK = 64
NONCE_BYTES = 24
TAG_BYTES = 16
KEY_BYTES = 32
SALT_BYTES = 16
MAC_BYTES = 32

RECORD_ID = re.compile(r"[A-Za-z0-9_-]{1,64}\Z")
KEY_ID = re.compile(r"[0-9a-f]{16}\Z")
DIGEST = re.compile(r"[0-9a-f]{64}\Z")


class FormatError(Exception):
    """Something a reader refuses. `kind` sorts it as the document does."""

    kind = "malformed"


class Malformed(FormatError):
    kind = "malformed"


class NotJSON(FormatError):
    kind = "not json"


class Unsupported(FormatError):
    kind = "unsupported"


class Tampered(FormatError):
    kind = "tampered"


class UnknownKey(FormatError):
    kind = "unknown key"


class WrongPassphrase(FormatError):
    kind = "wrong passphrase"


class NotAuthentic(FormatError):
    kind = "not authentic"


class Damaged(FormatError):
    kind = "damaged"


# MARK: - Notation


def lp(*parts):
    """Each part's UTF-8 byte count, 4 bytes big-endian, then its bytes."""
    out = bytearray()
    for part in parts:
        data = part.encode("utf-8") if isinstance(part, str) else bytes(part)
        out += len(data).to_bytes(4, "big") + data
    return bytes(out)


def dec(n):
    if type(n) is not int or n < 0:
        raise ValueError("dec() takes a non-negative integer")
    return str(n)


def b64(data):
    return base64.b64encode(data).decode("ascii")


def b64_decode(text, *, exact=None, maximum=None, what="a member"):
    """Standard base64 with padding; the text's length is checked before decoding."""
    limit = exact if exact is not None else maximum
    if not isinstance(text, str) or len(text) > (limit // 3 + 1) * 4:
        raise Malformed(f"{what} is not base64 of {'exactly' if exact is not None else 'at most'} {limit} bytes")
    try:
        data = base64.b64decode(text.encode("ascii"), validate=True)
    except (binascii.Error, UnicodeEncodeError, ValueError):
        raise Malformed(f"{what} is not base64") from None
    if (exact is not None and len(data) != exact) or (maximum is not None and len(data) > maximum):
        raise Malformed(f"{what} is not base64 of {'exactly' if exact is not None else 'at most'} {limit} bytes")
    return data


def blake2b(size, message, key=b"", salt=b"", person=b""):
    return nacl.hash.blake2b(message, digest_size=size, key=key, salt=salt, person=person, encoder=nacl.encoding.RawEncoder)


def subkey(key, context):
    """crypto_kdf_derive_from_key(32, 1, context, key): BLAKE2b keyed with `key` over
    nothing, salt = the subkey id (1) as 8 bytes little-endian + 8 zero bytes,
    personalization = the 8-byte context + 8 zero bytes."""
    if len(context) != 8 or len(key) != KEY_BYTES:
        raise ValueError("a subkey needs a 32-byte key and an 8-byte context")
    salt = (1).to_bytes(8, "little") + bytes(8)
    person = context + bytes(8)
    return blake2b(32, b"", key=key, salt=salt, person=person)


def aead_encrypt(key, nonce, plaintext, ad):
    return sodium.crypto_aead_xchacha20poly1305_ietf_encrypt(plaintext, ad, nonce, key)


def aead_decrypt(key, nonce, ciphertext, ad):
    """The plaintext, or None when the tag does not verify."""
    try:
        return sodium.crypto_aead_xchacha20poly1305_ietf_decrypt(ciphertext, ad, nonce, key)
    except nacl.exceptions.CryptoError:
        return None


# MARK: - Strict JSON (docs/encryption-format.md, "What a reader refuses")


def _no_duplicates(pairs):
    seen = {}
    for name, value in pairs:
        if name in seen:
            raise NotJSON(f'the member "{name}" is given twice')
        seen[name] = value
    return seen


def _finite_float(text):
    value = float(text)
    if not math.isfinite(value):
        raise NotJSON("a number does not fit a double")
    return value


def _refuse_constant(name):
    raise NotJSON(f"{name} is not JSON")


def _check_value(value, depth):
    if depth > MAX_DEPTH:
        raise NotJSON("nested too deep")
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            raise NotJSON("a string holds an unpaired surrogate") from None
    elif isinstance(value, dict):
        for name, member in value.items():
            _check_value(name, depth)
            _check_value(member, depth + 1)
    elif isinstance(value, list):
        for element in value:
            _check_value(element, depth + 1)
    elif type(value) is int and abs(value) > 1.7976931348623157e308:
        raise NotJSON("a number does not fit a double")


def parse_json(data):
    """One JSON value from UTF-8 bytes: a member named twice at any depth, a raw control
    character, an unpaired surrogate, NaN or Infinity, too deep a nesting: refused."""
    if isinstance(data, str):
        data = data.encode("utf-8")
    try:
        text = bytes(data).decode("utf-8")
    except UnicodeDecodeError:
        raise NotJSON("not UTF-8") from None
    try:
        value = json.loads(text, object_pairs_hook=_no_duplicates, parse_float=_finite_float, parse_constant=_refuse_constant)
    except (ValueError, RecursionError) as error:
        if isinstance(error, FormatError):
            raise
        raise NotJSON(str(error)) from None
    _check_value(value, 1)
    return value


def is_integer(value):
    """A JSON integer written with digits only (bool is not an integer here)."""
    return type(value) is int


def is_integral(value):
    """A JSON number with an integer value (a keyring's and a wrapped key's numbers)."""
    return (type(value) is int) or (type(value) is float and value.is_integer())


def write_json(value):
    """Shelf's way: keys sorted, no whitespace, UTF-8."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False).encode("utf-8")


# MARK: - Passphrase, data keys, key ids


def derive_kek(passphrase, salt, ops, mem):
    """Argon2id (crypto_pwhash, ALG_ARGON2ID13): the passphrase's bytes as given, a
    16-byte salt, the cost bounded before any work."""
    if isinstance(passphrase, str):
        passphrase = passphrase.encode("utf-8")
    if not 1 <= len(passphrase) <= 1024:
        raise Malformed("a passphrase is 1 to 1024 bytes")
    if len(salt) != SALT_BYTES:
        raise Malformed("a salt is 16 bytes")
    check_cost(ops, mem)
    return nacl.pwhash.argon2id.kdf(KEY_BYTES, passphrase, salt, opslimit=ops, memlimit=mem)


def check_cost(ops, mem):
    if not is_integral(ops) or not MIN_OPS <= ops <= MAX_OPS:
        raise Malformed("the KDF's ops is outside 1...10")
    if not is_integral(mem) or not MIN_MEM <= mem <= MAX_MEM:
        raise Malformed("the KDF's mem is outside 8192...1073741824")


def key_id(data_key):
    return blake2b(16, KEY_ID_CONTEXT.encode(), key=data_key)[:8].hex()


def check_key_id(text):
    if not isinstance(text, str) or not KEY_ID.match(text):
        raise Malformed("a key id is not 16 lowercase hex digits")
    return text


def new_data_key():
    return nacl.utils.random(KEY_BYTES)


# MARK: - Wrapped keys


def wrapped_key_ad(kid, ops, mem):
    return lp(WRAPPED_KEY, dec(WRAPPED_KEY_FORMAT), kid, KDF_NAME, dec(int(ops)), dec(int(mem)))


def wrap_key(data_key, kek, salt, ops, mem, nonce=None):
    """The wrapped key's JSON object for `data_key` under `kek` (derived with salt, ops, mem)."""
    nonce = nonce if nonce is not None else nacl.utils.random(NONCE_BYTES)
    kid = key_id(data_key)
    ciphertext = aead_encrypt(kek, nonce, data_key, wrapped_key_ad(kid, ops, mem))
    return {
        "format": WRAPPED_KEY_FORMAT, "kid": kid,
        "kdf": {"name": KDF_NAME, "ops": ops, "mem": mem},
        "salt": b64(salt), "nonce": b64(nonce), "ciphertext": b64(ciphertext),
    }


class WrappedKey:
    """A wrapped key read strictly from its JSON object."""

    def __init__(self, fields):
        if not isinstance(fields, dict):
            raise Malformed("a wrapped key is not an object")
        version = fields.get("format")
        if not is_integral(version) or version < 1:
            raise Malformed('a wrapped key\'s "format" is not an integer')
        if version != WRAPPED_KEY_FORMAT:
            raise Unsupported(f"wrapped key format {int(version)}")
        self.kid = check_key_id(fields.get("kid"))
        kdf = fields.get("kdf")
        if not isinstance(kdf, dict) or kdf.get("name") != KDF_NAME:
            raise Malformed('a wrapped key\'s "kdf" is not argon2id13')
        check_cost(kdf.get("ops"), kdf.get("mem"))
        self.ops, self.mem = int(kdf["ops"]), int(kdf["mem"])
        self.salt = b64_decode(fields.get("salt"), exact=SALT_BYTES, what="salt")
        self.nonce = b64_decode(fields.get("nonce"), exact=NONCE_BYTES, what="nonce")
        self.ciphertext = b64_decode(fields.get("ciphertext"), exact=KEY_BYTES + TAG_BYTES, what="ciphertext")

    def unwrap(self, kek):
        key = aead_decrypt(kek, self.nonce, self.ciphertext, wrapped_key_ad(self.kid, self.ops, self.mem))
        if key is None:
            raise WrongPassphrase("the wrapped key does not open")
        if key_id(key) != self.kid:
            raise Damaged(f"the wrapped key {self.kid} holds another key")
        return key

    def digest_message(self):
        return lp(WRAPPED_KEY, dec(WRAPPED_KEY_FORMAT), self.kid, KDF_NAME, dec(self.ops), dec(self.mem),
                  b64(self.salt), b64(self.nonce), b64(self.ciphertext))

    def digest(self):
        return blake2b(32, self.digest_message()).hex()


def unwrap_key(fields, passphrase):
    wrapped = WrappedKey(fields)
    return wrapped.unwrap(derive_kek(passphrase, wrapped.salt, wrapped.ops, wrapped.mem))


# MARK: - Keyed ids


def keyed_id_message(collection, natural_id):
    return lp(KEYED_ID, collection, natural_id)


def keyed_id(identity_key, collection, natural_id):
    return blake2b(16, keyed_id_message(collection, natural_id), key=subkey(identity_key, KEYED_ID_CONTEXT)).hex()


# MARK: - Sealed records


def record_ad(version, kid, collection, record_id, seq=None, deletion=False, bucket=BUCKET):
    parts = [RECORD, dec(version), kid, bucket, collection, record_id]
    if version == RECORD_FORMAT:
        parts += [dec(seq), "deleted" if deletion else "live"]
    return lp(*parts)


def pad(content):
    return sodium.sodium_pad(content, PADDING_BLOCK)


def unpad(padded):
    try:
        return sodium.sodium_unpad(padded, PADDING_BLOCK)
    except (nacl.exceptions.CryptoError, ValueError):
        raise Malformed("the opened plaintext is not padded") from None


SERVER_OWNED = ("id", "last_modified", "deleted")


def content_of(fields):
    """The record's members but the server's and `_shelf_seq`, as Shelf writes JSON."""
    if fields.get(DELETION_MARK) is not None:
        raise Malformed("a record to seal carries the deletion mark")
    if ENVELOPE in fields:
        raise Malformed("the record is sealed already")
    return write_json({name: value for name, value in fields.items() if name not in SERVER_OWNED and name != SEQUENCE})


def seal(record_id, collection, seq, key, *, fields=None, content=None, deletion=False, nonce=None, version=RECORD_FORMAT):
    """The envelope (`shelf_enc`'s value) of a version: `content` as given (bytes), else the
    content of `fields`. `version` 1 only to make a legacy record for a test."""
    if not RECORD_ID.match(record_id):
        raise Malformed("a record id is 1 to 64 characters of A-Z a-z 0-9 - _")
    if version == RECORD_FORMAT and not (is_integer(seq) and 1 <= seq <= MAX_SEQUENCE):
        raise Malformed("a sequence number is an integer in 1...2^53-1")
    if content is None:
        content = content_of(fields)
    nonce = nonce if nonce is not None else nacl.utils.random(NONCE_BYTES)
    kid = key_id(key)
    ciphertext = aead_encrypt(key, nonce, pad(content), record_ad(version, kid, collection, record_id, seq, deletion))
    envelope = {"v": version, "kid": kid, "n": b64(nonce), "c": b64(ciphertext)}
    if version == RECORD_FORMAT:
        envelope["seq"] = seq
        if deletion:
            envelope["del"] = True
    return envelope


def seal_deletion(record_id, collection, seq, key, lineage, nonce=None):
    return seal(record_id, collection, seq, key, content=write_json({LINEAGE: list(lineage)}), deletion=True, nonce=nonce)


def server_record(record_id, last_modified, envelope):
    """The record as the server keeps it."""
    return write_json({"id": record_id, "last_modified": last_modified, ENVELOPE: envelope})


FORBIDDEN_IN_CONTENT = ("id", "last_modified", "deleted", SEQUENCE, DELETION_MARK)


def open_record(data, collection, keys, bucket=BUCKET):
    """Opens a record as the server sent it (bytes or text) with `keys` ({kid: key}).

    Returns the opened record: the content's members with id, last_modified and
    _shelf_seq; a reader's deletion as a tombstone. Raises a FormatError for anything the
    document says a reader refuses."""
    record = parse_json(data)
    if not isinstance(record, dict):
        raise Malformed("a record is not an object")
    record_id = record.get("id")
    if not isinstance(record_id, str) or not RECORD_ID.match(record_id):
        raise Malformed("a record has no valid id")
    stamp = record.get("last_modified")
    if not is_integer(stamp):
        raise Malformed('a record\'s "last_modified" is not an integer')
    if ENVELOPE not in record:
        raise Malformed("the record is not sealed")
    beside = set(record) - {"id", "last_modified", ENVELOPE}
    if beside:
        raise Malformed(f"member(s) in the clear beside the envelope: {sorted(beside)}")
    envelope = record[ENVELOPE]
    if not isinstance(envelope, dict):
        raise Malformed("the envelope is not an object")

    version = envelope.get("v")
    if not is_integer(version) or version < 1:
        raise Malformed('the envelope\'s "v" is not an integer from 1')
    if version == RECORD_FORMAT:
        allowed = {"v", "kid", "seq", "del", "n", "c"}
        seq = envelope.get("seq")
        if not is_integer(seq) or not 1 <= seq <= MAX_SEQUENCE:
            raise Malformed('the envelope\'s "seq" is not an integer in 1...2^53-1')
        deletion = "del" in envelope
        if deletion and envelope["del"] is not True:
            raise Malformed('the envelope\'s "del" is not true')
    elif version == LEGACY_RECORD_FORMAT:
        allowed = {"v", "kid", "n", "c"}
        seq, deletion = None, False
    else:
        raise Unsupported(f"envelope format {version}")
    extra = set(envelope) - allowed
    if extra:
        raise Malformed(f"the envelope has member(s) Shelf does not write: {sorted(extra)}")
    kid = check_key_id(envelope.get("kid"))
    nonce = b64_decode(envelope.get("n"), exact=NONCE_BYTES, what='"n"')
    ciphertext = b64_decode(envelope.get("c"), maximum=MAX_CIPHERTEXT, what='"c"')

    key = keys.get(kid)
    if key is None:
        raise UnknownKey(kid)
    if len(ciphertext) < TAG_BYTES + 1:
        raise Tampered("a ciphertext shorter than a tag and one byte")
    padded = aead_decrypt(key, nonce, ciphertext, record_ad(version, kid, collection, record_id, seq, deletion, bucket))
    if padded is None:
        raise Tampered(f"record {collection}/{record_id} does not verify")
    try:
        content = parse_json(unpad(padded))
    except NotJSON as error:
        raise Malformed(f"the opened content is not JSON Shelf reads: {error}") from None
    if not isinstance(content, dict):
        raise Malformed("the opened content is not an object")
    forbidden = [name for name in FORBIDDEN_IN_CONTENT if name in content]
    if forbidden:
        raise Malformed(f"the opened content holds {forbidden}")
    if LINEAGE in content and not isinstance(content[LINEAGE], list):
        raise Malformed("the opened lineage is not an array")
    if deletion:
        if set(content) - {LINEAGE}:
            raise Malformed("a deletion's content holds more than its lineage")
        lineage = [entry for entry in content.get(LINEAGE, []) if isinstance(entry, str)]
        return {LINEAGE: lineage, SEQUENCE: seq, "deleted": True, "id": record_id, "last_modified": stamp}
    opened = dict(content)
    opened["id"] = record_id
    opened["last_modified"] = stamp
    if seq is not None:
        opened[SEQUENCE] = seq
    return opened


# MARK: - The keyring


def manifest_bytes(manifest):
    """M = lp("shelf keyring", "2", version, current, identity, open|closed, count,
    then per key in kid order: kid, state, wrap)."""
    parts = [KEYRING, dec(KEYRING_FORMAT), dec(int(manifest["version"])), manifest["current"], manifest["identity"],
             manifest["plaintext"], dec(len(manifest["keys"]))]
    for kid in sorted(manifest["keys"]):
        line = manifest["keys"][kid]
        parts += [kid, line["state"], line["wrap"]]
    return lp(*parts)


def keyring_mac_key(data_key):
    return subkey(data_key, KEYRING_MAC_CONTEXT)


def keyring_mac(manifest, data_key):
    return blake2b(32, manifest_bytes(manifest), key=keyring_mac_key(data_key))


def manifest_digest(manifest):
    return blake2b(32, manifest_bytes(manifest)).hex()


def make_keyring(version, current, identity, plaintext_closed, wrapped, states, keys):
    """A keyring record (its members) from wrapped keys ({kid: JSON}), their states and
    the data keys, every listed one held."""
    by_id = {key_id(key): key for key in keys}
    manifest = {
        "version": version, "current": current, "identity": identity,
        "plaintext": "closed" if plaintext_closed else "open",
        "keys": {kid: {"state": states[kid], "wrap": WrappedKey(fields).digest()} for kid, fields in wrapped.items()},
    }
    check_manifest(manifest)
    auth = {kid: b64(keyring_mac(manifest, by_id[kid])) for kid in manifest["keys"]}
    return {"format": KEYRING_FORMAT, "keys": dict(wrapped), "manifest": manifest, "auth": auth}


def check_manifest(manifest):
    if not isinstance(manifest, dict) or set(manifest) != {"version", "current", "identity", "plaintext", "keys"}:
        raise Malformed("the manifest's members are not version, current, identity, plaintext, keys")
    version = manifest["version"]
    if not is_integral(version) or not 1 <= version <= MAX_SEQUENCE:
        raise Malformed("the manifest's version is not an integer in 1...2^53-1")
    if manifest["plaintext"] not in ("open", "closed"):
        raise Malformed("the manifest's plaintext is neither open nor closed")
    check_key_id(manifest["current"])
    check_key_id(manifest["identity"])
    lines = manifest["keys"]
    if not isinstance(lines, dict) or len(lines) > MAX_KEYS:
        raise Malformed("the manifest's keys are not an object of at most 255 lines")
    for kid, line in lines.items():
        check_key_id(kid)
        if not isinstance(line, dict) or set(line) != {"state", "wrap"}:
            raise Malformed(f"the manifest's line for {kid} is not exactly state and wrap")
        if line["state"] not in KEY_STATES:
            raise Malformed(f"key {kid} has an unknown state")
        if not isinstance(line["wrap"], str) or not DIGEST.match(line["wrap"]):
            raise Malformed(f"key {kid}'s wrap is not 64 lowercase hex digits")
    currents = [kid for kid, line in lines.items() if line["state"] == "current"]
    if currents != [manifest["current"]]:
        raise Malformed("the manifest's current key is not its one key in state current")
    if manifest["identity"] not in lines:
        raise Malformed("the manifest's identity key is not listed")


class Keyring:
    """A format 2 keyring record, read as the document says."""

    def __init__(self, fields):
        if not isinstance(fields, dict):
            raise Malformed("the keyring is not an object")
        extra = set(fields) - {"id", "last_modified", "format", "keys", "manifest", "auth"}
        if extra:
            raise Malformed(f"the keyring has member(s) Shelf does not write: {sorted(extra)}")
        version = fields.get("format")
        if not is_integral(version) or version < 1:
            raise Malformed('the keyring\'s "format" is not an integer')
        if version != KEYRING_FORMAT:
            raise Unsupported(f"keyring format {int(version)}")
        self.manifest = fields.get("manifest")
        check_manifest(self.manifest)
        listed = fields.get("keys")
        if not isinstance(listed, dict) or len(listed) > MAX_KEYS:
            raise Malformed("the keyring's keys are not an object of at most 255 wrapped keys")
        self.wrapped = {}
        for name, value in listed.items():
            try:
                wrapped = WrappedKey(value)
            except FormatError:
                continue  # left out: a listed key then shows as missing
            if wrapped.kid == name:
                self.wrapped[name] = wrapped
        auth = fields.get("auth")
        if not isinstance(auth, dict):
            raise Malformed("the keyring's auth is not an object")
        self.auth = {}
        for name, value in auth.items():
            if name not in self.manifest["keys"]:
                continue
            try:
                self.auth[name] = b64_decode(value, exact=MAC_BYTES, what="a MAC")
            except FormatError:
                continue

    def digest(self):
        return manifest_digest(self.manifest)

    def verify(self, keys):
        """How many held keys verify the manifest; NotAuthentic when one does not or none is listed."""
        verified = 0
        for key in keys:
            kid = key_id(key)
            if kid not in self.manifest["keys"]:
                continue
            mac = self.auth.get(kid)
            if mac is None or not hmac.compare_digest(mac, keyring_mac(self.manifest, key)):
                raise NotAuthentic(f"the manifest does not verify under key {kid}")
            verified += 1
        if verified == 0:
            raise NotAuthentic("the keyring lists none of the keys held")
        return verified

    def open(self, passphrase):
        """The listed keys the passphrase opens ({kid: key}), after the manifest verified
        under all of them; the current key's entry must be sound."""
        keks = {}
        opened = {}
        for kid, wrapped in sorted(self.wrapped.items()):
            cost = (wrapped.salt, wrapped.ops, wrapped.mem)
            if cost not in keks:
                keks[cost] = derive_kek(passphrase, *cost)
            try:
                opened[kid] = wrapped.unwrap(keks[cost])
            except (WrongPassphrase, Damaged):
                continue
        if not opened:
            raise WrongPassphrase("no wrapped key opens with this passphrase")
        listed = {kid: key for kid, key in opened.items() if kid in self.manifest["keys"]}
        self.verify(list(listed.values()))
        current = self.manifest["current"]
        wrapped = self.wrapped.get(current)
        if (wrapped is None or wrapped.digest() != self.manifest["keys"][current]["wrap"]
                or current not in listed or current not in self.auth):
            raise Damaged(f"the current key {current}'s entry is missing, altered or does not open")
        return listed
