import CSodium

// MARK: - DataKey

/// The random key a reader's records are sealed with: 32 bytes from `randombytes_buf`,
/// never derived from the passphrase, so changing the passphrase re-wraps this key and
/// leaves every record as it is.
///
/// The bytes live in `SecretBytes` (wiped when the last copy of the key goes) and are
/// never printed: `description`, `debugDescription` and `dump` show the key id only.
public struct DataKey: Sendable {
    /// The key's public name, derived from it (`KeyID`).
    public let id: KeyID
    let bytes: SecretBytes

    /// XChaCha20-Poly1305's key length, 32 bytes.
    static let length = Int(crypto_aead_xchacha20poly1305_ietf_KEYBYTES)

    /// The context the key id is a MAC of; changing it would rename every key.
    private static let idContext = Array("shelf data key id v1".utf8)

    /// A fresh random key.
    public static func generate() throws(EncryptionError) -> DataKey {
        try DataKey(bytes: SecretBytes.random(count: length))
    }

    /// A key from bytes already in secure memory (unwrapped, or read from the key file).
    init(bytes: SecretBytes) throws(EncryptionError) {
        guard bytes.count == Self.length else { throw .malformed(reason: "a data key is not \(Self.length) bytes") }
        self.bytes = bytes
        self.id = Self.id(of: bytes)
    }

    /// BLAKE2b-128 keyed with the key over `idContext`, first 8 bytes.
    private static func id(of key: SecretBytes) -> KeyID {
        var digest = [UInt8](repeating: 0, count: Int(crypto_generichash_BYTES_MIN))
        key.withPointer { pointer in
            _ = crypto_generichash(&digest, digest.count, idContext, UInt64(idContext.count), pointer, key.count)
            // NB: the result is ignored: crypto_generichash fails only for lengths outside
            // its bounds, and 16-byte output with a 32-byte key is inside them.
        }
        return KeyID(bytes: digest.prefix(8))
    }

    /// Whether both hold the same bytes (constant time).
    public func hasSameBytes(as other: DataKey) -> Bool {
        bytes.hasSameBytes(as: other.bytes)
    }
}

extension DataKey: RedactedDescription {
    public var redactedSummary: String { "DataKey(id: \(id))" }
}
