import CSodium

// MARK: - KeyedIdentifier

/// Record ids that reveal nothing: a natural id (`gr-<Goodreads Book Id>` from an import)
/// becomes 32 hex digits of BLAKE2b-128 keyed with a subkey of the data key, over the
/// collection and the natural id.
///
/// Deterministic, so importing the same export twice names the same records and adds
/// nothing; different under another key, so ids say nothing across readers; only
/// digits and `a`–`f`, which Kinto (`^[a-zA-Z0-9][a-zA-Z0-9_-]*$`) and `RecordID` accept.
/// The subkey is `crypto_kdf_derive_from_key` (id 1, context `shelf_id`), never the data
/// key itself, so a keyed id and a seal never share a key.
public struct KeyedIdentifier: Sendable {
    private let subkey: SecretBytes

    /// Bytes of the keyed hash: 128 bits, so two natural ids never meet by chance.
    static let digestLength = 16
    private static let context = Array("shelf_id".utf8.map { CChar(bitPattern: $0) })
    private static let subkeyID: UInt64 = 1

    public init(key: DataKey) throws(EncryptionError) {
        subkey = try SecretBytes.make(count: Int(crypto_kdf_KEYBYTES)) { (output, count) throws(EncryptionError) in
            let status = key.bytes.withPointer { key in
                crypto_kdf_derive_from_key(output, count, Self.subkeyID, Self.context, key)
            }
            guard status == 0 else { throw .libraryUnavailable }
        }
    }

    /// The record id for `naturalID` in `collection`.
    public func id(for naturalID: String, in collection: String) -> String {
        let message = AssociatedData.of(["shelf keyed id", collection, naturalID])
        var digest = [UInt8](repeating: 0, count: Self.digestLength)
        subkey.withPointer { key in
            _ = crypto_generichash(&digest, digest.count, message, UInt64(message.count), key, subkey.count)
            // NB: ignored: crypto_generichash fails only for lengths outside its bounds, and
            // a 16-byte digest with a 32-byte key is inside them.
        }
        return Hex.string(digest)
    }
}

extension KeyedIdentifier: RedactedDescription {
    public var redactedSummary: String { "KeyedIdentifier(hidden)" }
}
