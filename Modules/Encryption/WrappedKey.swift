import CSodium
import Foundation
import Vocabulary

// MARK: - WrappedKey

/// A data key sealed by a passphrase's key-encryption key, in the form a Kinto record
/// keeps it: the server holds it, and only someone with the passphrase opens it.
///
/// ```json
/// {"format": 1, "kid": "3f9c0d2a7b1e4c55",
///  "kdf": {"name": "argon2id13", "ops": 3, "mem": 268435456},
///  "salt": "<16 bytes, base64>", "nonce": "<24 bytes, base64>", "ciphertext": "<48 bytes, base64>"}
/// ```
///
/// The seal is XChaCha20-Poly1305 whose authenticated data binds the format version, the
/// key id and the KDF parameters: a wrapper whose id or cost was edited does not open.
public struct WrappedKey: Hashable, Sendable {
    public static let formatVersion = 1

    /// The id of the key inside, checked against the key once it is opened.
    public let keyID: KeyID
    public let salt: KDFSalt
    public let parameters: KDFParameters
    let nonce: [UInt8]
    let ciphertext: [UInt8]

    // MARK: - Wrapping

    /// Wraps `key` under a new salt and `parameters` (one Argon2id derivation).
    public static func wrap(
        _ key: DataKey,
        passphrase: Passphrase,
        parameters: KDFParameters = .recommended
    ) throws(EncryptionError) -> WrappedKey {
        try wrap(key, with: PassphraseKDF.derive(from: passphrase, salt: .random(), parameters: parameters))
    }

    /// Wraps `key` under a key-encryption key already derived: a rotated-in key wrapped
    /// with the same salt as the keys before it opens with the same derivation.
    public static func wrap(_ key: DataKey, with kek: KeyEncryptionKey) throws(EncryptionError) -> WrappedKey {
        let associatedData = associatedData(keyID: key.id, parameters: kek.parameters)
        let sealed = try XChaCha20Poly1305.seal(key.bytes, associatedData: associatedData, key: kek.bytes)
        return WrappedKey(keyID: key.id, salt: kek.salt, parameters: kek.parameters,
                          nonce: sealed.nonce, ciphertext: sealed.ciphertext)
    }

    /// The same key under another passphrase (`shelf encryption change-passphrase`): the
    /// key, its id and every record sealed with it stay as they are.
    public func rewrapped(
        from old: Passphrase,
        to new: Passphrase,
        parameters: KDFParameters = .recommended
    ) throws(EncryptionError) -> WrappedKey {
        try WrappedKey.wrap(unwrap(passphrase: old), passphrase: new, parameters: parameters)
    }

    // MARK: - Unwrapping

    /// - Throws: `.wrongPassphrase` when the seal does not open; `.keyIDMismatch` when it
    ///   opens to a key whose id is not `keyID`.
    public func unwrap(passphrase: Passphrase) throws(EncryptionError) -> DataKey {
        try unwrap(with: PassphraseKDF.derive(from: passphrase, salt: salt, parameters: parameters))
    }

    /// Opens with a key-encryption key already derived with this wrapper's salt and cost.
    public func unwrap(with kek: KeyEncryptionKey) throws(EncryptionError) -> DataKey {
        guard opens(with: kek) else {
            throw .invalidKDFParameters(reason: "the key-encryption key was derived with another salt or cost than this wrapped key")
        }
        let associatedData = Self.associatedData(keyID: keyID, parameters: parameters)
        let bytes = try SecretBytes.make(count: DataKey.length) { (output, count) throws(EncryptionError) in
            guard XChaCha20Poly1305.open(ciphertext, nonce: nonce, associatedData: associatedData,
                                         key: kek.bytes, into: output, count: count)
            else { throw .wrongPassphrase }
        }
        let key = try DataKey(bytes: bytes)
        guard key.id == keyID else { throw .keyIDMismatch(expected: keyID, found: key.id) }
        return key
    }

    /// Whether `kek` was derived with this wrapper's salt and parameters.
    public func opens(with kek: KeyEncryptionKey) -> Bool {
        kek.salt == salt && kek.parameters == parameters
    }

    /// BLAKE2b-256 of `lp("shelf wrapped key", format, kid, algorithm, ops, mem, salt,
    /// nonce, ciphertext)` (the last three as their base64 text), hex: how the keyring's
    /// manifest names this exact wrapped form, so a wrapper swapped for another shows.
    public var digest: String {
        let message = AssociatedData.of([
            "shelf wrapped key", String(Self.formatVersion), keyID.rawValue, KDFParameters.algorithm,
            String(parameters.opsLimit), String(parameters.memoryBytes), Data(salt.bytes).base64EncodedString(),
            Data(nonce).base64EncodedString(), Data(ciphertext).base64EncodedString(),
        ])
        var digest = [UInt8](repeating: 0, count: 32)
        _ = crypto_generichash(&digest, digest.count, message, UInt64(message.count), nil, 0)
        // NB: ignored: crypto_generichash fails only for lengths outside its bounds; 32 is inside.
        return Hex.string(digest)
    }

    private static func associatedData(keyID: KeyID, parameters: KDFParameters) -> [UInt8] {
        AssociatedData.of([
            "shelf wrapped key", String(formatVersion), keyID.rawValue,
            KDFParameters.algorithm, String(parameters.opsLimit), String(parameters.memoryBytes),
        ])
    }
}

// MARK: - JSON form

extension WrappedKey {
    /// The members of the Kinto record that keeps it (beside the record's `id`).
    public var fields: [String: JSONValue] {
        [
            "format": .number(Double(Self.formatVersion)),
            "kid": .string(keyID.rawValue),
            "kdf": .object(parameters.fields),
            "salt": .string(Data(salt.bytes).base64EncodedString()),
            "nonce": .string(Data(nonce).base64EncodedString()),
            "ciphertext": .string(Data(ciphertext).base64EncodedString()),
        ]
    }

    /// Reads a wrapped key from a record's members; members Kinto adds (`id`,
    /// `last_modified`) are ignored.
    /// - Throws: `.unsupportedFormat` for another version, `.malformed`,
    ///   `.invalidKDFParameters` for a cost outside Shelf's bounds.
    public init(fields: [String: JSONValue]) throws(EncryptionError) {
        let reader = FieldReader(fields, of: "a wrapped key")
        let format = try reader.integer("format", in: 1...Int(Int32.max))
        guard format == Self.formatVersion else { throw .unsupportedFormat(version: format) }
        keyID = try reader.keyID("kid")
        parameters = try KDFParameters(fields: reader.object("kdf"))
        salt = try KDFSalt(bytes: reader.base64("salt", length: KDFSalt.length))
        nonce = try reader.base64("nonce", length: XChaCha20Poly1305.nonceLength)
        ciphertext = try reader.base64("ciphertext", length: DataKey.length + XChaCha20Poly1305.tagLength)
    }
}

// MARK: - Codable

/// The same JSON form through `Codable`, for a caller that encodes whole records.
extension WrappedKey: Codable {
    public init(from decoder: any Decoder) throws {
        let fields = try decoder.singleValueContainer().decode([String: JSONValue].self)
        do {
            try self.init(fields: fields)
        } catch {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: error.description))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(fields)
    }
}
