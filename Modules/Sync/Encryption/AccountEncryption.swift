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
        /// The newest keyring version this device verified; nil for none (format 1).
        public var keyringVersion: Int64?
        /// The plaintext period is closed: a record in the clear is refused.
        public var plaintextClosed: Bool
        /// Records the server deleted without the reader, kept here ('shelf encryption put-back').
        public var deletedByServer: Int
        /// Records still named by an id that reveals their source (`gr-…`, `cal-…`):
        /// `enable` renames them, and a sync during the migration renames one left then
        /// (its change was in flight).
        public var revealingIDs: Int
    }

    /// The state as this device knows it, without a request.
    public func status() throws -> Status {
        let (state, waiting, deleted, revealing) = try store.read { reader in
            (try reader.encryptionState(), try CollectionName.allCases.filter(WireSealing.seals).reduce(0) { $0 + (try reader.pendingCount(in: $1)) },
             try reader.serverDeletions().count, try RevealingIDs.count(in: reader))
        }
        let keyring = try keys.load()
        return Status(
            isEnabled: state.isEnabled, keyID: keyring?.current.id.rawValue ?? state.currentKeyID, holdsKey: keyring != nil,
            notYetEncrypted: state.isEnabled ? waiting : 0, keyringVersion: state.keyringVersion,
            plaintextClosed: state.plaintextClosed == true, deletedByServer: deleted, revealingIDs: state.isEnabled ? revealing : 0)
    }

    /// Whether the server holds a keyring for this account: another device turned
    /// encryption on (`shelf account add` then says to join).
    public func isEncryptedOnServer() async throws -> Bool {
        try await ServerKeyring.fetch(client) != nil
    }

    // MARK: - Enable

    /// What a use case that changed the account's encryption did.
    public struct Change: Sendable, Equatable {
        /// Records queued to go up sealed by the next sync.
        public var queued: Int
        /// What was wrong with the keyring's entries that did not stop the change (a
        /// wrapped key the manifest does not list, a retired key's entry damaged): said
        /// as warnings, never as a wrong passphrase.
        public var problems: [KeyringProblem]

        public init(queued: Int = 0, problems: [KeyringProblem] = []) {
            self.queued = queued
            self.problems = problems
        }
    }

    /// Turns encryption on: a new data key, wrapped by the passphrase, kept here and on
    /// the server in a keyring of format 2 whose manifest (version 1, the plaintext period
    /// open) is authenticated under the key, and every record of the reader's collections
    /// queued to be uploaded sealed by the next sync. A run of this device closes the
    /// plaintext period once everything is sealed (`SyncRun.closeMigration`).
    /// - Throws: `AccountEncryptionError.alreadyEncrypted` when another device turned it
    ///   on (join instead); `.syncRunning`.
    public func enable(passphrase: Passphrase, parameters: KDFParameters = .recommended) async throws -> Change {
        try await underLock {
            var keyring: ServerKeyring
            var identity: DataKey
            if let existing = try await ServerKeyring.fetch(client) {
                // A previous `enable` of this device that stopped halfway is finished; any
                // other keyring is another device's.
                guard let held = try keys.load(), held.current.id == existing.currentKeyID, let record = existing.record else {
                    throw AccountEncryptionError.alreadyEncrypted
                }
                try record.verify(with: held.keys)
                if try store.read({ try $0.encryptionState().keyringVersion != nil }) { return Change() }  // done before
                keyring = existing
                identity = held.key(for: record.manifest.identity) ?? held.current
            } else {
                let key = try DataKey.generate()
                identity = key
                let wrapped = try WrappedKey.wrap(key, passphrase: passphrase, parameters: parameters)
                // NB: the key is kept before the keyring leaves, so a kill in between never
                // leaves a server keyring whose key no device holds.
                try keys.save(Keyring(current: key))
                let record = try KeyringRecord.make(
                    version: 1, current: key.id, identity: key.id, plaintextClosed: false,
                    wrapped: [key.id: wrapped], states: [key.id: .current], keys: [key])
                do {
                    keyring = try await ServerKeyring(record).save(client)
                } catch APIError.preconditionFailed {
                    _ = try? keys.remove()
                    throw AccountEncryptionError.alreadyEncrypted
                }
            }
            let keyed = try KeyedIdentifier(key: identity)
            return Change(queued: try markEncrypted(keyring, requeue: .all) { id, collection in keyed.id(for: id, in: collection.rawValue) })
        }
    }

    // MARK: - Join

    /// Joins an encrypted account on this device: the wrapped keys pulled and opened with
    /// the passphrase, the manifest verified under them and checked against the newest
    /// this device has seen, and the keys kept here. A wrong passphrase writes nothing.
    /// - Throws: `EncryptionError.wrongPassphrase`, `.keyringNotAuthentic`,
    ///   `.keyringDamaged`, `.keyringRolledBack`; `AccountEncryptionError.notEncrypted`.
    public func join(passphrase: Passphrase) async throws -> Change {
        try await underLock {
            guard let keyring = try await ServerKeyring.fetch(client) else { throw AccountEncryptionError.notEncrypted }
            let (opened, problems) = try open(keyring, passphrase: passphrase)
            try keys.save(opened)
            // NB: records refused before the key was here were passed by the cursor: the
            // next run compares the whole collection with the server and fetches them.
            // What this device pushed in the clear meanwhile is refused when it comes back
            // and goes up again sealed (`IntegrityGate`), or is sealed again by the device
            // closing the plaintext period.
            _ = try markEncrypted(keyring, requeue: .none, reconcile: true)
            return Change(problems: problems)
        }
    }

    /// Every key of `keyring` the passphrase opens, the current one first, after the
    /// manifest verified and was found no older than the newest this device has seen.
    private func open(_ keyring: ServerKeyring, passphrase: Passphrase) throws -> (Keyring, [KeyringProblem]) {
        switch keyring.content {
        case .authenticated(let record):
            let opened = try record.open(passphrase: passphrase)
            try Self.refuseOlder(record.manifest, than: try store.read { try $0.encryptionState() })
            return opened
        case .legacy(let legacy):
            if let seen = try store.read({ try $0.encryptionState().keyringVersion }) {
                throw EncryptionError.keyringRolledBack(seen: seen, found: 0)
            }
            return (try legacy.open(passphrase: passphrase), [])
        }
    }

    /// Refuses a manifest older than the newest this device verified, or another one of
    /// the same version.
    static func refuseOlder(_ manifest: KeyringManifest, than state: EncryptionState) throws {
        guard let seen = state.keyringVersion else { return }
        if manifest.version < seen { throw EncryptionError.keyringRolledBack(seen: seen, found: manifest.version) }
        if manifest.version == seen, let digest = state.keyringDigest, digest != manifest.digest {
            throw EncryptionError.keyringNotAuthentic(reason: "it is another keyring of version \(seen), the newest this device has seen")
        }
    }

    // MARK: - Change the passphrase

    /// Wraps the same keys under a new passphrase; no record is sealed again. The manifest
    /// names the new wrapped forms, as the next version.
    @discardableResult
    public func changePassphrase(from old: Passphrase, to new: Passphrase, parameters: KDFParameters = .recommended) async throws -> Change {
        try await underLock {
            guard let keyring = try await ServerKeyring.fetch(client) else { throw AccountEncryptionError.notEncrypted }
            let record = try Self.authenticated(keyring)
            let (opened, problems) = try open(keyring, passphrase: old)
            let salt = try KDFSalt.random()
            let kek = try PassphraseKDF.derive(from: new, salt: salt, parameters: parameters)
            let next = try record.next(keys: opened.keys) { (wrapped, manifest) throws(EncryptionError) in
                // NB: only the keys that opened; a damaged entry is dropped from the manifest.
                wrapped = [:]
                for key in opened.keys { wrapped[key.id] = try WrappedKey.wrap(key, with: kek) }
                manifest.keys = manifest.keys.filter { wrapped[$0.key] != nil }
            }
            let saved = try await ServerKeyring(next, lastModified: keyring.lastModified).save(client)
            _ = try markEncrypted(saved, requeue: .none)
            return Change(problems: problems)
        }
    }

    // MARK: - Rotate

    /// A new data key becomes current, wrapped like the others; the one it replaces is
    /// retiring, and every record (and every sealed deletion this device knows) is queued
    /// to be sealed again with the new one. Once a run finds everything sealed under it,
    /// the retiring key is retired: it still opens history, and a new version under it is
    /// refused. The identity key stays (docs/encryption.md, "Rotation and the identity key").
    public func rotate(passphrase: Passphrase) async throws -> Change {
        try await underLock {
            guard let keyring = try await ServerKeyring.fetch(client) else { throw AccountEncryptionError.notEncrypted }
            let record = try Self.authenticated(keyring)
            guard let current = record.wrapped[record.manifest.current] else {
                throw EncryptionError.keyringDamaged(KeyringProblem.missing(record.manifest.current).description)
            }
            let (opened, problems) = try open(keyring, passphrase: passphrase)
            let kek = try PassphraseKDF.derive(from: passphrase, salt: current.salt, parameters: current.parameters)
            let newKey = try DataKey.generate()
            let next = try record.next(keys: opened.keys + [newKey]) { (wrapped, manifest) throws(EncryptionError) in
                wrapped[newKey.id] = try WrappedKey.wrap(newKey, with: kek)
                manifest.keys = manifest.keys.filter { opened.key(for: $0.key) != nil }
                manifest.keys[manifest.current]?.state = .retiring
                manifest.keys[newKey.id] = KeyringManifest.Entry(state: .current, wrapDigest: "")
                manifest.current = newKey.id
                wrapped = wrapped.filter { manifest.keys[$0.key] != nil }
            }
            // NB: saved here first, with the old keys: a kill before the keyring leaves
            // keeps every record openable, and the next rotate starts again.
            try keys.save(opened.rotated(to: newKey))
            let saved = try await ServerKeyring(next, lastModified: keyring.lastModified).save(client)
            return Change(queued: try markEncrypted(saved, requeue: .all), problems: problems)
        }
    }

    /// The format 2 keyring; format 1 must be upgraded first (a sync does it).
    private static func authenticated(_ keyring: ServerKeyring) throws -> KeyringRecord {
        guard let record = keyring.record else { throw AccountEncryptionError.legacyKeyring }
        return record
    }

    // MARK: - Put back what the server deleted alone

    /// The records the server deleted without the reader on this encrypted account (a
    /// tombstone no key vouches for, over a record whose newest sealed version is live),
    /// kept here (`IntegrityGate`).
    public func serverDeletions() throws -> [ServerDeletion] {
        try store.read { reader in try reader.serverDeletions() }
    }

    /// Queues every record the server deleted without the reader to go back up, as the
    /// version held here (its lineage and number kept, so devices that kept it see the
    /// same version), and forgets each. The next sync uploads them.
    /// - Returns: how many were queued.
    public func putBack() throws -> Int {
        try store.write { tx in
            let rules = SyncRules(tx)
            var queued = 0
            for deletion in try tx.serverDeletions() {
                try tx.forgetServerDeletion(deletion.collection, id: deletion.id)
                guard let row = try tx.record(deletion.collection, id: deletion.id, includingDeleted: true), !row.isDeleted else { continue }
                guard try rules.requeue(row), let entry = try tx.outboxEntry(deletion.collection, id: deletion.id) else { continue }
                // NB: the tombstone stays known here, so a pull that reaches back over it
                // does not refuse it again (`StoreReader.serverStamps`).
                try tx.setServerTombstone(entry.sequence, stamp: deletion.lastModified)
                queued += 1
            }
            return queued
        }
    }

    /// Puts back the keyring this device verified when the server's lists none of this
    /// device's keys or does not verify under them (a keyring the server replaced): the
    /// reader's decision, since a sync cannot tell a replaced keyring from one made without
    /// this device's keys (`SyncRun.checkKeyring`). - Returns: whether it was put back.
    public func putBackKeyring() async throws -> Bool {
        try await underLock {
            let state = try store.read { try $0.encryptionState() }
            guard let body = state.keyringRecord, let held = try keys.load() else { return false }
            let service = KintoCollectionService(client: client, path: ServerKeyring.path)
            let stamp: Int64?
            do {
                let fetched = try await service.record(id: ServerKeyring.recordID)
                if let record = try? ServerKeyring(fetched).record, (try? record.verify(with: held.keys)) != nil,
                   (try? Self.refuseOlder(record.manifest, than: state)) != nil {
                    return false
                }
                stamp = fetched.lastModified
            } catch APIError.notFound {
                stamp = nil
            }
            _ = try await ServerKeyring.write(body, over: stamp, client)
            return true
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

    /// The store learns the keyring — what decides in it, and the record itself, to put
    /// back if the server later shows an older one — and (for `enable` and `rotate`)
    /// every record of the reader's collections the server has, and every sealed
    /// deletion this device remembers, is queued to go up sealed again, in one transaction.
    /// Which synced records a step queues to go up sealed.
    enum Requeue {
        case none, all
    }

    /// - Parameter rename: the keyed ids records whose ids reveal their source are renamed to
    ///   (`enable`: `SyncRules.renameRevealingIDs`).
    private func markEncrypted(
        _ keyring: ServerKeyring, requeue: Requeue, reconcile: Bool = false, rename: ((String, CollectionName) -> String)? = nil
    ) throws -> Int {
        let remembered = try Self.remembered(keyring)
        return try store.write { tx in
            var state = try tx.encryptionState()
            state.isEnabled = true
            state.currentKeyID = keyring.currentKeyID.rawValue
            state.identityKeyID = keyring.identityKeyID.rawValue
            if let remembered { Self.remember(remembered, in: &state) }
            try tx.setEncryptionState(state)
            var queued = try rename.map { rename throws(StorageError) in try SyncRules(tx).renameRevealingIDs(rename) } ?? 0
            for collection in CollectionName.allCases where WireSealing.seals(collection) {
                if reconcile { _ = try tx.updateSyncState(collection) { $0.forgetReconciliation() } }
                guard requeue == .all else { continue }
                queued += try SyncRules(tx).sealAllAgain(in: collection)
            }
            return queued
        }
    }

    /// What a device remembers of a verified keyring (nil for format 1).
    struct RememberedKeyring {
        let manifest: KeyringManifest
        let body: Data
    }

    static func remembered(_ keyring: ServerKeyring) throws -> RememberedKeyring? {
        guard let record = keyring.record else { return nil }
        return RememberedKeyring(manifest: record.manifest, body: try keyring.data())
    }

    /// Writes what is remembered of a verified keyring into `state`.
    static func remember(_ remembered: RememberedKeyring, in state: inout EncryptionState) {
        let manifest = remembered.manifest
        state.keyringVersion = manifest.version
        state.keyringDigest = manifest.digest
        state.plaintextClosed = manifest.plaintextClosed
        state.keyStates = Dictionary(uniqueKeysWithValues: manifest.keys.map { ($0.key.rawValue, $0.value.state.rawValue) })
        state.keyringRecord = remembered.body
        state.currentKeyID = manifest.current.rawValue
        state.identityKeyID = manifest.identity.rawValue
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
    /// The account's keyring is of format 1, which a sync of a device holding the keys
    /// upgrades first.
    case legacyKeyring

    public var description: String {
        switch self {
        case .alreadyEncrypted:
            "the account is encrypted already (by another device): run 'shelf encryption join' to sync here"
        case .notEncrypted:
            "the account is not encrypted: turn it on with 'shelf encryption enable'"
        case .locked:
            "the account is encrypted and this device holds no key: run 'shelf encryption join' first"
        case .legacyKeyring:
            "the account's keyring is of format 1: run 'shelf sync' on a device that holds the key to upgrade it, then try again"
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
