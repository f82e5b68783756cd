import Domain
import Encryption
import Foundation
import Records
import Services
import Storage

// MARK: - AccountEncryption

/// Turning an account's end-to-end encryption on, joining it from another device,
/// changing its passphrase, rotating its key and locking this device: the use cases
/// behind `shelf encryption`, each under the account's run lock so no sync runs halfway
/// through one.
///
/// Every step is ordered so that a kill at any point leaves what the next attempt
/// finishes: the key file is written before the keyring leaves, the store learns the
/// account is encrypted in the same transaction that queues its records, and queued
/// records go out like any change (marked sent, repeated as they were, merged on a 412).
public struct AccountEncryption: Sendable {
    let account: String
    let store: ShelfStore
    let client: APIClient
    let keyFile: URL
    let lockFile: URL

    public init(account: String, store: ShelfStore, client: APIClient, keyFile: URL, lockFile: URL) {
        self.account = account
        self.store = store
        self.client = client
        self.keyFile = keyFile
        self.lockFile = lockFile
    }

    private var keys: LocalKeyStore { LocalKeyStore(path: keyFile.path) }

    // MARK: - Status

    /// What `shelf encryption status` shows.
    public struct Status: Sendable, Equatable {
        public var isEnabled: Bool
        /// The key new records are sealed with, as this device knows it.
        public var keyID: String?
        /// This device holds the keys (cron runs need no prompt).
        public var holdsKey: Bool
        /// Records of the reader's collections whose sealed version has not reached the
        /// server yet: waiting changes of those collections.
        public var notYetEncrypted: Int
    }

    /// The state as this device knows it, without a request.
    public func status() throws -> Status {
        let (state, waiting) = try store.read { reader in
            (try reader.encryptionState(), try CollectionName.allCases.filter(WireSealing.seals).reduce(0) { $0 + (try reader.pendingCount(in: $1)) })
        }
        let keyring = try keys.load()
        return Status(
            isEnabled: state.isEnabled, keyID: keyring?.current.id.rawValue ?? state.currentKeyID, holdsKey: keyring != nil,
            notYetEncrypted: state.isEnabled ? waiting : 0)
    }

    /// Whether the server holds a keyring for this account: another device turned
    /// encryption on (`shelf account add` then says to join).
    public func isEncryptedOnServer() async throws -> Bool {
        try await ServerKeyring.fetch(client) != nil
    }

    // MARK: - Enable

    /// Turns encryption on: a new data key, wrapped by the passphrase, kept here and on
    /// the server, and every record of the reader's collections queued to be uploaded
    /// sealed by the next sync.
    /// - Returns: how many records were queued.
    /// - Throws: `AccountEncryptionError.alreadyEncrypted` when another device turned it
    ///   on (join instead); `.syncRunning`.
    public func enable(passphrase: Passphrase, parameters: KDFParameters = .recommended) async throws -> Int {
        try await underLock {
            var keyring: ServerKeyring
            if let existing = try await ServerKeyring.fetch(client) {
                // A previous `enable` of this device that stopped halfway is finished; any
                // other keyring is another device's.
                guard let held = try keys.load(), held.current.id == existing.current else { throw AccountEncryptionError.alreadyEncrypted }
                if try store.read({ try $0.encryptionState().isEnabled }), existing.enabledAt != nil { return 0 }  // done before
                keyring = existing
            } else {
                let key = try DataKey.generate()
                let wrapped = try WrappedKey.wrap(key, passphrase: passphrase, parameters: parameters)
                // NB: the key is kept before the keyring leaves, so a kill in between never
                // leaves a server keyring whose key no device holds.
                try keys.save(Keyring(current: key))
                do {
                    keyring = try await ServerKeyring(current: key.id, keys: [key.id: wrapped]).save(client)
                } catch APIError.preconditionFailed {
                    _ = try? keys.remove()
                    throw AccountEncryptionError.alreadyEncrypted
                }
            }
            if keyring.enabledAt == nil {
                keyring.enabledAt = keyring.lastModified
                keyring = try await keyring.save(client)
            }
            return try markEncrypted(keyring, requeue: .all)
        }
    }

    // MARK: - Join

    /// Joins an encrypted account on this device: the wrapped keys pulled and opened with
    /// the passphrase, kept here. A wrong passphrase writes nothing.
    /// - Throws: `EncryptionError.wrongPassphrase`; `AccountEncryptionError.notEncrypted`.
    public func join(passphrase: Passphrase) async throws {
        try await underLock {
            guard let keyring = try await ServerKeyring.fetch(client) else { throw AccountEncryptionError.notEncrypted }
            try keys.save(try Self.open(keyring, passphrase: passphrase))
            // NB: records refused before the key was here were passed by the cursor: the
            // next run compares the whole collection with the server and fetches them. What
            // this device pushed in the clear after encryption began (before it heard of
            // it) goes up again sealed.
            _ = try markEncrypted(keyring, requeue: .writtenSince(keyring.enabledAt ?? .max), reconcile: true)
        }
    }

    /// Every key of `keyring`, the current one first, opened with one derivation per salt.
    static func open(_ keyring: ServerKeyring, passphrase: Passphrase) throws -> Keyring {
        guard let current = keyring.currentKey else { throw EncryptionError.malformed(reason: "the keyring has no current key") }
        let kek = try PassphraseKDF.derive(from: passphrase, salt: current.salt, parameters: current.parameters)
        let opened = try current.unwrap(with: kek)
        var older: [DataKey] = []
        for (id, wrapped) in keyring.keys where id != keyring.current {
            older.append(wrapped.opens(with: kek) ? try wrapped.unwrap(with: kek) : try wrapped.unwrap(passphrase: passphrase))
        }
        return Keyring(current: opened, older: older)
    }

    // MARK: - Change the passphrase

    /// Wraps the same keys under a new passphrase; no record is sealed again.
    public func changePassphrase(from old: Passphrase, to new: Passphrase, parameters: KDFParameters = .recommended) async throws {
        try await underLock {
            guard var keyring = try await ServerKeyring.fetch(client) else { throw AccountEncryptionError.notEncrypted }
            let opened = try Self.open(keyring, passphrase: old)
            let salt = try KDFSalt.random()
            let kek = try PassphraseKDF.derive(from: new, salt: salt, parameters: parameters)
            keyring.keys = [:]
            for key in opened.keys { keyring.keys[key.id] = try WrappedKey.wrap(key, with: kek) }
            _ = try await keyring.save(client)
        }
    }

    // MARK: - Rotate

    /// A new data key becomes current, wrapped like the others; every record is queued
    /// to be sealed again with it. Records still under an older key keep opening.
    /// - Returns: how many records were queued.
    public func rotate(passphrase: Passphrase) async throws -> Int {
        try await underLock {
            guard var keyring = try await ServerKeyring.fetch(client), let current = keyring.currentKey else {
                throw AccountEncryptionError.notEncrypted
            }
            let opened = try Self.open(keyring, passphrase: passphrase)
            let kek = try PassphraseKDF.derive(from: passphrase, salt: current.salt, parameters: current.parameters)
            let next = try DataKey.generate()
            keyring.keys[next.id] = try WrappedKey.wrap(next, with: kek)
            keyring.current = next.id
            // NB: saved here first, with the old keys: a kill before the keyring leaves
            // keeps every record openable, and the next rotate starts again.
            try keys.save(opened.rotated(to: next))
            keyring = try await keyring.save(client)
            return try markEncrypted(keyring, requeue: .all)
        }
    }

    // MARK: - Lock

    /// Removes this device's keys; the account stays encrypted, and syncs leave its
    /// records alone until `join`. - Returns: whether there were keys to remove.
    @discardableResult
    public func lock() throws -> Bool {
        try keys.remove()
    }

    // MARK: - Steps

    /// The store learns the keyring, and (for `enable` and `rotate`) every record of the
    /// reader's collections the server has is queued, in one transaction.
    /// Which synced records a step queues to go up sealed.
    private enum Requeue {
        case none, all
        /// Those whose server version was stamped after `stamp`.
        case writtenSince(Int64)

        func includes(_ row: StoredRecord) -> Bool {
            guard let stamp = row.lastModified else { return false }
            switch self {
            case .none: return false
            case .all: return true
            case .writtenSince(let since): return stamp > since
            }
        }
    }

    private func markEncrypted(_ keyring: ServerKeyring, requeue: Requeue, reconcile: Bool = false) throws -> Int {
        try store.write { tx in
            try tx.setEncryptionState(EncryptionState(
                isEnabled: true, currentKeyID: keyring.current.rawValue, enabledAt: keyring.enabledAt,
                identityKeyID: keyring.identity.rawValue))
            var queued = 0
            for collection in CollectionName.allCases where WireSealing.seals(collection) {
                if reconcile { _ = try tx.updateSyncState(collection) { $0.forgetReconciliation() } }
                for row in try tx.rows(of: collection) where !row.isDeleted && requeue.includes(row) {
                    guard try tx.outboxEntry(collection, id: row.id) == nil else { continue }
                    try tx.saveLocal(collection, id: row.id, json: row.json)
                    queued += 1
                }
            }
            return queued
        }
    }

    private func underLock<T>(_ work: () async throws -> T) async throws -> T {
        guard let lock = try RunLock.acquire(at: lockFile) else {
            throw AccountEncryptionError.syncRunning(account: account, pid: RunLock.holder(of: lockFile))
        }
        defer { lock.release() }
        return try await work()
    }
}

// MARK: - AccountEncryptionError

public enum AccountEncryptionError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Another device turned encryption on: this one joins it.
    case alreadyEncrypted
    /// The account is not encrypted (no keyring on the server).
    case notEncrypted
    /// The account is encrypted and this device holds no key.
    case locked
    case syncRunning(account: String, pid: Int32?)

    public var description: String {
        switch self {
        case .alreadyEncrypted:
            "the account is encrypted already (by another device): run 'shelf encryption join' to sync here"
        case .notEncrypted:
            "the account is not encrypted: turn it on with 'shelf encryption enable'"
        case .locked:
            "the account is encrypted and this device holds no key: run 'shelf encryption join' first"
        case .syncRunning(let account, let pid):
            "a sync of account '\(account)' is running\(pid.map { " (pid \($0))" } ?? ""); try again when it has finished"
        }
    }
}

// MARK: - From an account's wiring

extension AccountSync {
    /// The account's encryption use cases, over the same store, client and lock.
    public var encryption: AccountEncryption {
        AccountEncryption(
            account: account.name.rawValue, store: store, client: engine.client,
            keyFile: keyFile, lockFile: lockFile)
    }
}

// MARK: - Keyed ids

extension AccountEncryption {
    /// The function that names imported records on this account (`ImportPlan.keyingIDs`):
    /// keyed under the account's first key while it is encrypted, so ids reveal nothing
    /// and a second import finds the first one's records; nil when it is not encrypted.
    ///
    /// NB: the keyring's identity key (its first), not the current one: ids must stay the same across rotations,
    /// or importing the same file after a rotation would add every book again.
    /// - Throws: `AccountEncryptionError.locked` when the account is encrypted and this
    ///   device holds no key: an import then would name its records in the clear.
    public func importIDs() throws -> (@Sendable (String, CollectionName) -> String)? {
        try Self.importIDs(store: store, keyFile: keyFile)
    }

    /// `importIDs()` from the store and the key file alone: no server involved.
    public static func importIDs(store: ShelfStore, keyFile: URL) throws -> (@Sendable (String, CollectionName) -> String)? {
        let state = try store.read { try $0.encryptionState() }
        guard state.isEnabled else { return nil }
        guard let keyring = try LocalKeyStore(path: keyFile.path).load() else { throw AccountEncryptionError.locked }
        let identity = try state.identityKeyID.map { name throws(EncryptionError) in try KeyID(name) } ?? keyring.current.id
        guard let key = keyring.key(for: identity) else { throw AccountEncryptionError.locked }
        let identifier = try KeyedIdentifier(key: key)
        return { id, collection in identifier.id(for: id, in: collection.rawValue) }
    }
}
