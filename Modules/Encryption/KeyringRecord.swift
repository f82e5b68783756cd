import Foundation
import Vocabulary

// MARK: - KeyringRecord

/// An account's keyring as the server keeps it (format 2): the wrapped data keys, the
/// manifest that decides what they do (`KeyringManifest`), and the manifest's MAC under
/// every key it lists.
///
/// ```json
/// {"format": 2,
///  "keys": {"3f9c…": {"format": 1, "kid": "3f9c…", "kdf": …, "salt": …, "nonce": …, "ciphertext": …}},
///  "manifest": {"version": 3, "current": "3f9c…", "identity": "a1b2…", "plaintext": "closed",
///               "keys": {"3f9c…": {"state": "current", "wrap": "<64 hex>"}, "a1b2…": {"state": "retired", "wrap": …}}},
///  "auth": {"3f9c…": "<32 bytes, base64>", "a1b2…": "<32 bytes, base64>"}}
/// ```
///
/// Each wrapped key authenticates itself under the passphrase's key; the manifest is
/// authenticated under the data keys, which the server never holds. A device that holds
/// any listed key can verify it without the passphrase (a cron run), and a MAC under every
/// key lets a device still on a rotated-out key verify the rotation that retired it.
public struct KeyringRecord: Sendable {
    public static let formatVersion = KeyringManifest.formatVersion

    public var wrapped: [KeyID: WrappedKey]
    public var manifest: KeyringManifest
    public var authenticators: [KeyID: [UInt8]]

    public init(wrapped: [KeyID: WrappedKey], manifest: KeyringManifest, authenticators: [KeyID: [UInt8]]) {
        self.wrapped = wrapped
        self.manifest = manifest
        self.authenticators = authenticators
    }

    /// A keyring written by a device that holds every key it lists: the manifest made from
    /// the wrapped keys and their states, and authenticated under each key.
    /// - Parameter keys: the data keys, every one the manifest lists.
    public static func make(
        version: Int64, current: KeyID, identity: KeyID, plaintextClosed: Bool,
        wrapped: [KeyID: WrappedKey], states: [KeyID: KeyringManifest.KeyState], keys: [DataKey]
    ) throws(EncryptionError) -> KeyringRecord {
        var entries: [KeyID: KeyringManifest.Entry] = [:]
        for (id, key) in wrapped {
            guard let state = states[id] else { throw .malformed(reason: "no state given for key \(id)") }
            entries[id] = KeyringManifest.Entry(state: state, wrapDigest: key.digest)
        }
        let manifest = KeyringManifest(version: version, current: current, identity: identity, plaintextClosed: plaintextClosed, keys: entries)
        try manifest.validate()
        var authenticators: [KeyID: [UInt8]] = [:]
        for id in entries.keys {
            guard let key = keys.first(where: { $0.id == id }) else { throw .malformed(reason: "key \(id) is not held, so the keyring cannot be authenticated under it") }
            authenticators[id] = try manifest.authenticator(under: key)
        }
        return KeyringRecord(wrapped: wrapped, manifest: manifest, authenticators: authenticators)
    }

    /// The same keyring, changed by `change`, authenticated again as version + 1.
    public func next(
        keys: [DataKey], _ change: (inout [KeyID: WrappedKey], inout KeyringManifest) throws(EncryptionError) -> Void
    ) throws(EncryptionError) -> KeyringRecord {
        var wrapped = self.wrapped
        var manifest = self.manifest
        try change(&wrapped, &manifest)
        var states: [KeyID: KeyringManifest.KeyState] = [:]
        for (id, entry) in manifest.keys { states[id] = entry.state }
        return try Self.make(
            version: self.manifest.version + 1, current: manifest.current, identity: manifest.identity,
            plaintextClosed: manifest.plaintextClosed, wrapped: wrapped, states: states, keys: keys)
    }

    // MARK: - Checking

    /// What is wrong with the keyring's entries, as opposed to the passphrase: wrapped
    /// keys the manifest does not list, listed keys with no wrapped form or another one,
    /// listed keys without a MAC.
    public var problems: [KeyringProblem] {
        var problems: [KeyringProblem] = []
        for id in wrapped.keys.sorted(by: { $0.rawValue < $1.rawValue }) where manifest.keys[id] == nil {
            problems.append(.unlisted(id))
        }
        for (id, entry) in manifest.keys.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
            guard let key = wrapped[id] else {
                problems.append(.missing(id))
                continue
            }
            if key.digest != entry.wrapDigest { problems.append(.altered(id)) }
            if authenticators[id] == nil { problems.append(.unauthenticated(id)) }
        }
        return problems
    }

    /// Verifies the manifest under every key of `keyring` that it lists.
    /// - Returns: how many keys verified it.
    /// - Throws: `.keyringNotAuthentic` when one of them does not, or none of the keyring's
    ///   keys is listed (a keyring this device cannot check: made without its keys).
    @discardableResult
    public func verify(with keys: [DataKey]) throws(EncryptionError) -> Int {
        var verified = 0
        for key in keys where manifest.keys[key.id] != nil {
            guard let mac = authenticators[key.id], manifest.isAuthenticated(by: mac, under: key) else {
                throw .keyringNotAuthentic(reason: "its manifest does not verify under key \(key.id)")
            }
            verified += 1
        }
        guard verified > 0 else { throw .keyringNotAuthentic(reason: "it lists none of the keys this device holds") }
        return verified
    }

    // MARK: - Opening with the passphrase

    /// The data keys a passphrase opens, checked against the manifest (`join`, `rotate`,
    /// `change-passphrase`): one Argon2id derivation per salt and cost.
    ///
    /// - Returns: the keyring (the manifest's current key first, then the other listed keys
    ///   that opened) and what was wrong with entries that did not matter (a wrapped key the
    ///   manifest does not list, a retired key's entry damaged).
    /// - Throws: `.wrongPassphrase` when no wrapped key opens; `.keyringDamaged` when the
    ///   current key's entry is missing, altered or does not open while others do;
    ///   `.keyringNotAuthentic` when the manifest does not verify under a key that opened.
    public func open(passphrase: Passphrase) throws(EncryptionError) -> (keyring: Keyring, problems: [KeyringProblem]) {
        var derived: [KeyEncryptionKey] = []
        var opened: [KeyID: DataKey] = [:]
        var problems = problems
        for (id, key) in wrapped.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
            let kek: KeyEncryptionKey
            if let found = derived.first(where: key.opens(with:)) {
                kek = found
            } else {
                kek = try PassphraseKDF.derive(from: passphrase, salt: key.salt, parameters: key.parameters)
                derived.append(kek)
            }
            do {
                opened[id] = try key.unwrap(with: kek)
            } catch .wrongPassphrase {
                if manifest.keys[id] != nil, !problems.contains(.altered(id)) { problems.append(.doesNotOpen(id)) }
            } catch .keyIDMismatch {
                problems.append(.altered(id))
            }
        }
        guard !opened.isEmpty else {
            // NB: a passphrase is wrong only when a listed key's own wrapped form was there to
            // try; when none is, the keyring was altered, whatever the passphrase.
            let tried = manifest.keys.keys.contains { id in wrapped[id].map { $0.digest == manifest.keys[id]?.wrapDigest } == true }
            if tried { throw .wrongPassphrase }
            throw .keyringDamaged(problems.filter { manifest.keys[$0.keyID] != nil }.map(\.description).joined(separator: "; "))
        }
        let listed = manifest.keys.keys.compactMap { opened[$0] }
        try verify(with: listed)
        guard let current = opened[manifest.current], !problems.contains(where: { $0.keyID == manifest.current }) else {
            throw .keyringDamaged(problems.filter { $0.keyID == manifest.current }.map(\.description).joined(separator: "; "))
        }
        let older = listed.filter { $0.id != current.id }.sorted { $0.id.rawValue < $1.id.rawValue }
        return (Keyring(current: current, older: older), problems)
    }

    // MARK: - JSON form

    /// The record's members (beside the `id` and `last_modified` Kinto adds).
    public var fields: [String: JSONValue] {
        var keys: [String: JSONValue] = [:]
        for (id, key) in wrapped { keys[id.rawValue] = .object(key.fields) }
        var auth: [String: JSONValue] = [:]
        for (id, mac) in authenticators { auth[id.rawValue] = .string(Data(mac).base64EncodedString()) }
        return [
            "format": .number(Double(Self.formatVersion)), "keys": .object(keys),
            "manifest": .object(manifest.fields), "auth": .object(auth),
        ]
    }

    /// Reads a format 2 keyring record. Wrapped keys are read one by one: one that is not
    /// a wrapped key at all is left out and shows as `.missing` (if listed) rather than
    /// failing the whole keyring.
    /// - Throws: `.unsupportedFormat` for another format; `.malformed` for a manifest or
    ///   members Shelf does not write.
    public init(fields: [String: JSONValue]) throws(EncryptionError) {
        let reader = FieldReader(fields, of: "the keyring")
        try reader.requireOnly(["id", "last_modified", "format", "keys", "manifest", "auth"])
        let format = try reader.integer("format", in: 1...Int(Int32.max))
        guard format == Self.formatVersion else { throw .unsupportedFormat(version: format) }
        let manifest = try KeyringManifest(fields: reader.object("manifest"))
        let listed = try reader.object("keys")
        guard listed.count <= KeyringManifest.maximumKeys else { throw .malformed(reason: "the keyring holds more than \(KeyringManifest.maximumKeys) wrapped keys") }
        var wrapped: [KeyID: WrappedKey] = [:]
        for (name, value) in listed {
            guard let id = try? KeyID(name), let object = value.objectValue, let key = try? WrappedKey(fields: object), key.keyID == id else {
                continue
            }
            wrapped[id] = key
        }
        var authenticators: [KeyID: [UInt8]] = [:]
        for (name, value) in try reader.object("auth") {
            guard let id = try? KeyID(name), manifest.keys[id] != nil, let text = value.stringValue,
                  let mac = Data(base64Encoded: text), mac.count == KeyringManifest.authenticatorLength
            else { continue }
            authenticators[id] = [UInt8](mac)
        }
        self.init(wrapped: wrapped, manifest: manifest, authenticators: authenticators)
    }
}

// MARK: - KeyringProblem

/// An entry of a keyring that is not what its manifest says.
public enum KeyringProblem: Hashable, Sendable, CustomStringConvertible {
    /// A wrapped key the manifest does not list: ignored.
    case unlisted(KeyID)
    /// A listed key with no wrapped form (or one Shelf cannot read).
    case missing(KeyID)
    /// A listed key whose wrapped form is not the one the manifest names.
    case altered(KeyID)
    /// A listed key whose wrapped form does not open with the passphrase that opens the others.
    case doesNotOpen(KeyID)
    /// A listed key without a MAC of the manifest.
    case unauthenticated(KeyID)

    public var keyID: KeyID {
        switch self {
        case .unlisted(let id), .missing(let id), .altered(let id), .doesNotOpen(let id), .unauthenticated(let id): id
        }
    }

    public var description: String {
        switch self {
        case .unlisted(let id): "the keyring holds a wrapped key \(id) its manifest does not list (ignored)"
        case .missing(let id): "the keyring's manifest lists key \(id), but its wrapped form is missing or unreadable"
        case .altered(let id): "the wrapped form of key \(id) is not the one the keyring's manifest names"
        case .doesNotOpen(let id): "the wrapped form of key \(id) does not open with the passphrase that opens the others"
        case .unauthenticated(let id): "the keyring's manifest has no MAC under key \(id)"
        }
    }
}
