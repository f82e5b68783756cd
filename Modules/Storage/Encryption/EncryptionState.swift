import Domain
import Foundation

// MARK: - EncryptionState

/// What this store knows of its account's end-to-end encryption; the keys themselves
/// never come here (they live in the key file, `ShelfPaths.keyFile`).
///
/// Kept in the store, beside the records it describes, so that a device that holds no
/// key (never joined, or locked) still knows not to send a plaintext record into a
/// sealed collection, and a device that met sealed records remembers it.
public struct EncryptionState: Codable, Sendable, Equatable {
    /// The reader's records are sealed on the server.
    public var isEnabled: Bool
    /// The key id new records are sealed with, when known.
    public var currentKeyID: String?
    /// The server's timestamp of the keyring when encryption was turned on: a plaintext
    /// record stamped after it was written by something other than Shelf, and refused.
    public var enabledAt: Int64?
    /// The key imported records' ids are keyed with, kept through rotations.
    public var identityKeyID: String?

    public init(isEnabled: Bool, currentKeyID: String? = nil, enabledAt: Int64? = nil, identityKeyID: String? = nil) {
        self.isEnabled = isEnabled
        self.currentKeyID = currentKeyID
        self.enabledAt = enabledAt
        self.identityKeyID = identityKeyID
    }

    /// A store that has never heard of encryption.
    public static let off = EncryptionState(isEnabled: false)
}

// MARK: - Reading and writing

extension PreferenceKey {
    static var encryption: PreferenceKey<EncryptionState> { .init(name: "encryption", defaultValue: .off) }
}

extension StoreReader {
    /// What the store knows of its account's encryption (`.off` when nothing).
    public func encryptionState() throws(StorageError) -> EncryptionState {
        let key = PreferenceKey<EncryptionState>.encryption
        return try key.decode(try preference(key.name))
    }
}

extension StoreTransaction {
    public func setEncryptionState(_ state: EncryptionState) throws(StorageError) {
        let key = PreferenceKey<EncryptionState>.encryption
        try setPreference(key.name, try key.encode(state))
    }
}
