import CSodium
import Foundation
import Vocabulary

// MARK: - KeyringManifest

/// Everything in an account's keyring that decides something, authenticated under the
/// reader's data keys (`KeyringRecord.auth`), so a server that holds none of them cannot
/// change a word of it:
/// - `version`, which only grows: a device remembers the newest it has seen and refuses
///   an older one (a keyring put back from before a rotation);
/// - which key is `current` (every new seal) and the `identity` key (keyed ids);
/// - each key's state and the digest of its wrapped form, so a wrapped key swapped,
///   added or removed shows;
/// - whether the plaintext period is closed: records in the clear are accepted only while
///   the migration that `enable` starts is under way.
public struct KeyringManifest: Hashable, Sendable {
    /// What a key may still do.
    public enum KeyState: String, Sendable, CaseIterable {
        /// Seals every new version.
        case current
        /// Rotated out; records sealed under it are still taken as new versions while the
        /// rotation seals them again.
        case retiring
        /// Every record was sealed again under a newer key: it opens history only, and a
        /// new version sealed under it is refused.
        case retired
    }

    /// One key's line: its state and its wrapped form's digest (`WrappedKey.digest`).
    public struct Entry: Hashable, Sendable {
        public var state: KeyState
        public var wrapDigest: String

        public init(state: KeyState, wrapDigest: String) {
            self.state = state
            self.wrapDigest = wrapDigest
        }
    }

    public static let formatVersion = 2
    /// At most this many keys: a key file holds 255.
    public static let maximumKeys = 255

    public var version: Int64
    public var current: KeyID
    public var identity: KeyID
    public var plaintextClosed: Bool
    public var keys: [KeyID: Entry]

    public init(version: Int64, current: KeyID, identity: KeyID, plaintextClosed: Bool, keys: [KeyID: Entry]) {
        self.version = version
        self.current = current
        self.identity = identity
        self.plaintextClosed = plaintextClosed
        self.keys = keys
    }

    /// The keys in a state.
    public func keys(in state: KeyState) -> Set<KeyID> {
        Set(keys.filter { $0.value.state == state }.keys)
    }

    /// Checks the rules every manifest keeps: exactly one current key, the one `current`
    /// names; the identity key listed; a version from 1.
    public func validate() throws(EncryptionError) {
        guard (1...SealedRecord.maximumSequence).contains(version) else { throw .malformed(reason: "the keyring's version is out of range") }
        guard keys[current]?.state == .current, keys(in: .current).count == 1 else {
            throw .malformed(reason: "the keyring's current key \(current) is not its one key in state current")
        }
        guard keys[identity] != nil else { throw .malformed(reason: "the keyring's identity key \(identity) is not among its keys") }
        guard keys.count <= Self.maximumKeys else { throw .malformed(reason: "the keyring lists more than \(Self.maximumKeys) keys") }
    }

    // MARK: - The bytes authenticated

    /// `lp("shelf keyring", "2", version, current, identity, "open"|"closed", count,
    ///     then per key in kid order: kid, state, wrap digest)`: one encoding, whatever
    /// order or spacing the JSON was written in.
    public var authenticatedBytes: [UInt8] {
        var parts = [
            "shelf keyring", String(Self.formatVersion), String(version), current.rawValue, identity.rawValue,
            plaintextClosed ? "closed" : "open", String(keys.count),
        ]
        for (id, entry) in keys.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
            parts += [id.rawValue, entry.state.rawValue, entry.wrapDigest]
        }
        return AssociatedData.of(parts)
    }

    /// BLAKE2b-256 of `authenticatedBytes`, hex: what a device remembers of the newest
    /// manifest it has seen, to tell a different manifest of the same version.
    public var digest: String {
        let message = authenticatedBytes
        var digest = [UInt8](repeating: 0, count: 32)
        _ = crypto_generichash(&digest, digest.count, message, UInt64(message.count), nil, 0)
        // NB: ignored: crypto_generichash fails only for lengths outside its bounds; 32 is inside.
        return Hex.string(digest)
    }

    // MARK: - JSON form

    /// `{"version", "current", "identity", "plaintext": "open"|"closed", "keys": {kid: {"state", "wrap"}}}`.
    public var fields: [String: JSONValue] {
        var listed: [String: JSONValue] = [:]
        for (id, entry) in keys {
            listed[id.rawValue] = .object(["state": .string(entry.state.rawValue), "wrap": .string(entry.wrapDigest)])
        }
        return [
            "version": .number(Double(version)), "current": .string(current.rawValue), "identity": .string(identity.rawValue),
            "plaintext": .string(plaintextClosed ? "closed" : "open"), "keys": .object(listed),
        ]
    }

    /// - Throws: `.malformed` for any member missing, mistyped or extra, or a rule broken.
    public init(fields: [String: JSONValue]) throws(EncryptionError) {
        let reader = FieldReader(fields, of: "the keyring's manifest")
        try reader.requireOnly(["version", "current", "identity", "plaintext", "keys"])
        let plaintext = try reader.string("plaintext")
        guard plaintext == "open" || plaintext == "closed" else { throw .malformed(reason: "the keyring's \"plaintext\" is neither open nor closed") }
        let listed = try reader.object("keys")
        guard listed.count <= Self.maximumKeys else { throw .malformed(reason: "the keyring lists more than \(Self.maximumKeys) keys") }
        var keys: [KeyID: Entry] = [:]
        for (name, value) in listed {
            let id = try KeyID(name)
            let entry = FieldReader(try value.objectValue.orThrow(.malformed(reason: "the keyring's line for \(id) is not an object")), of: "the keyring's line for \(id)")
            try entry.requireOnly(["state", "wrap"])
            guard let state = KeyState(rawValue: try entry.string("state")) else { throw .malformed(reason: "key \(id) has a state Shelf does not know") }
            let wrap = try entry.string("wrap")
            guard wrap.utf8.count == 64, wrap.utf8.allSatisfy({ Hex.digitValue($0) != nil }) else {
                throw .malformed(reason: "key \(id)'s wrap digest is not 64 lowercase hex digits")
            }
            keys[id] = Entry(state: state, wrapDigest: wrap)
        }
        self.init(
            version: Int64(try reader.integer("version", in: 1...Int(SealedRecord.maximumSequence))),
            current: try reader.keyID("current"), identity: try reader.keyID("identity"),
            plaintextClosed: plaintext == "closed", keys: keys)
        try validate()
    }
}

// MARK: - Authentication

extension KeyringManifest {
    /// The MAC of this manifest under `key`: BLAKE2b-256 keyed with a subkey of the data key
    /// (`crypto_kdf_derive_from_key`, id 1, context `shelfkrg`), over `authenticatedBytes`.
    /// The subkey is never the data key itself, so a MAC and a seal never share a key.
    public func authenticator(under key: DataKey) throws(EncryptionError) -> [UInt8] {
        let subkey = try Self.authenticationKey(of: key)
        let message = authenticatedBytes
        var mac = [UInt8](repeating: 0, count: Self.authenticatorLength)
        subkey.withPointer { pointer in
            _ = crypto_generichash(&mac, mac.count, message, UInt64(message.count), pointer, subkey.count)
            // NB: ignored: a 32-byte output with a 32-byte key is inside crypto_generichash's bounds.
        }
        return mac
    }

    /// Whether `mac` is this manifest's MAC under `key` (compared in constant time).
    public func isAuthenticated(by mac: [UInt8], under key: DataKey) -> Bool {
        guard mac.count == Self.authenticatorLength, let expected = try? authenticator(under: key) else { return false }
        return sodium_memcmp(mac, expected, mac.count) == 0
    }

    public static let authenticatorLength = 32
    private static let context = Array("shelfkrg".utf8.map { CChar(bitPattern: $0) })
    private static let subkeyID: UInt64 = 1

    private static func authenticationKey(of key: DataKey) throws(EncryptionError) -> SecretBytes {
        try SecretBytes.make(count: Int(crypto_kdf_KEYBYTES)) { (output, count) throws(EncryptionError) in
            let status = key.bytes.withPointer { key in crypto_kdf_derive_from_key(output, count, subkeyID, context, key) }
            guard status == 0 else { throw .libraryUnavailable }
        }
    }
}

// MARK: - Helpers

extension Optional {
    /// The value, or `error` thrown.
    func orThrow(_ error: EncryptionError) throws(EncryptionError) -> Wrapped {
        guard let self else { throw error }
        return self
    }
}
