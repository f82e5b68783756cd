import CSodium

// MARK: - KDFSalt

/// Argon2id's salt: 16 random bytes, stored in the clear beside the wrapped key.
///
/// A fresh salt per reader means a precomputed table of passphrases serves no one else.
public struct KDFSalt: Hashable, Sendable {
    public let bytes: [UInt8]

    public static let length = Int(crypto_pwhash_SALTBYTES)

    /// - Throws: `.malformed` unless `bytes` is 16 bytes long.
    public init(bytes: [UInt8]) throws(EncryptionError) {
        guard bytes.count == Self.length else { throw .malformed(reason: "a salt is not \(Self.length) bytes") }
        self.bytes = bytes
    }

    public static func random() throws(EncryptionError) -> KDFSalt {
        try SodiumLibrary.ready()
        var bytes = [UInt8](repeating: 0, count: length)
        randombytes_buf(&bytes, length)
        return try KDFSalt(bytes: bytes)
    }
}
