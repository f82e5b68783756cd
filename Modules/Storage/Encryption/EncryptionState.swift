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
    /// What a store written before keyrings of format 2 kept: the server's timestamp of the
    /// keyring when encryption was turned on. Server data, so it decides nothing any more
    /// (the authenticated manifest's plaintext period does); read from old stores only.
    public var enabledAt: Int64?
    /// The key imported records' ids are keyed with, kept through rotations.
    public var identityKeyID: String?

    // MARK: The newest authenticated keyring seen

    /// The version of the newest keyring manifest this device verified: an older one is
    /// a keyring the server put back, and is refused. Nil: none verified yet (an account
    /// whose keyring is still of format 1).
    public var keyringVersion: Int64?
    /// That manifest's digest: another manifest of the same version is refused too.
    public var keyringDigest: String?
    /// The manifest closed the plaintext period: a record in the clear is refused.
    public var plaintextClosed: Bool?
    /// Each listed key's state (`current`, `retiring`, `retired`), by key id.
    public var keyStates: [String: String]?
    /// The verified keyring record as the server kept it (its members, JSON): put back
    /// when the server shows an older one, deletes it or alters it.
    public var keyringRecord: Data?
    /// When a check of a migration under way last found records left to seal again: the
    /// next check waits a while (Modules/Sync/Encryption/SyncRun+Migration.swift).
    public var migrationCheckedAt: Date?

    public init(
        isEnabled: Bool, currentKeyID: String? = nil, enabledAt: Int64? = nil, identityKeyID: String? = nil,
        keyringVersion: Int64? = nil, keyringDigest: String? = nil, plaintextClosed: Bool? = nil,
        keyStates: [String: String]? = nil, keyringRecord: Data? = nil
    ) {
        self.isEnabled = isEnabled
        self.currentKeyID = currentKeyID
        self.enabledAt = enabledAt
        self.identityKeyID = identityKeyID
        self.keyringVersion = keyringVersion
        self.keyringDigest = keyringDigest
        self.plaintextClosed = plaintextClosed
        self.keyStates = keyStates
        self.keyringRecord = keyringRecord
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
