import Domain
import Encryption
import Foundation
import Records
import Services
import Storage

// MARK: - The run's encryption boundary

extension SyncRun {
    /// Reads how this run's records cross the wire: the store says whether its account
    /// is encrypted, the key file (`SyncOptions.keyFile`) whether this device holds its
    /// keys. Without them the reader's collections are left alone this run, saying why.
    /// - Throws: `SyncStop.configuration` for a key file that exists but cannot be used
    ///   (its mode, its owner, a link): it is never used anyway.
    func resolveSealing() throws {
        let state = try store.read { reader in try reader.encryptionState() }
        guard state.isEnabled else { return }
        let keyring: Keyring?
        do {
            keyring = try options.keyFile.flatMap { file throws(EncryptionError) in try LocalKeyStore(path: file.path).load() }
        } catch {
            throw SyncStop.configuration("the account's key file cannot be used: \(error)")
        }
        guard let keyring else {
            sealing = .locked
            for collection in options.collections where WireSealing.seals(collection) {
                try hold(collection, reason: WireSealing.lockedReason)
            }
            return
        }
        sealing = .sealed(RecordSealer(keyring: keyring, bucket: KintoCollectionPath.userBucket), enabledAt: state.enabledAt)
    }

    /// What the server sent of a collection, opened.
    struct ReadableRecords {
        var records: [RawRecord]
        /// Accepted in the clear, written before encryption began: to be sealed again.
        var writtenBeforeEncryption: [String]
    }

    /// Opens what the server sent of `collection`, reporting each record refused.
    /// - Throws: `CollectionHeld` when sealed records reached a device that holds no key:
    ///   the store learns that its account is encrypted, and the collection is left alone.
    func opened(_ records: [RawRecord], of collection: CollectionName) throws -> ReadableRecords {
        let opened = sealing.opened(records, in: collection)
        if opened.metSealedRecords {
            try learnEncryptedElsewhere(EncryptionState(isEnabled: true), besides: collection)
            throw CollectionHeld(reason: WireSealing.lockedReason)
        }
        for refusal in opened.refused {
            emit(.recordRefused(collection, id: refusal.id, reason: refusal.reason))
        }
        if !opened.refused.isEmpty { collectionReport(collection) { $0.refused += opened.refused.count } }
        return ReadableRecords(records: opened.records, writtenBeforeEncryption: opened.writtenBeforeEncryption)
    }

    /// Another device turned encryption on and this one holds no key: the store
    /// remembers it (what is known of the keyring included), and every collection of the
    /// reader's is left alone for the rest of the run — nothing in the clear may be pushed
    /// over records sealed there.
    /// - Parameter collection: one the caller leaves alone itself.
    func learnEncryptedElsewhere(_ learnt: EncryptionState, besides collection: CollectionName? = nil) throws {
        try store.write { tx in
            var state = try tx.encryptionState()
            state.isEnabled = true
            state.enabledAt = state.enabledAt ?? learnt.enabledAt
            state.currentKeyID = state.currentKeyID ?? learnt.currentKeyID
            state.identityKeyID = state.identityKeyID ?? learnt.identityKeyID
            try tx.setEncryptionState(state)
        }
        sealing = .locked
        for other in options.collections where other != collection && WireSealing.seals(other) && unavailable[other] == nil {
            try hold(other, reason: WireSealing.lockedReason)
        }
    }

    // MARK: The keyring, from a device in the clear

    /// Whether this run asks the server for the keyring: only while the store knows of no
    /// encryption, so that a device learns another one turned it on before it pushes
    /// anything in the clear, even when no sealed record has reached it yet.
    var asksForKeyring: Bool {
        if case .plaintext = sealing { return true }
        return false
    }

    /// The keyring GET for a batch (`pullAll`).
    static func keyringRequest() throws -> KintoRequest {
        try .read(in: ServerKeyring.path, id: ServerKeyring.recordID)
    }

    /// Reads a keyring answer (a record, or a 404 when the account is in the clear).
    ///
    /// NB: an answer that is no keyring Shelf wrote counts as none: it cannot name a key
    /// to join, and the sealed records themselves still stop this device (`opened`).
    func noteKeyring(_ result: BatchResult) throws {
        guard result.isSuccess, let keyring = try? ServerKeyring(try result.record()) else { return }
        try noteKeyring(keyring)
    }

    private func noteKeyring(_ keyring: ServerKeyring) throws {
        try learnEncryptedElsewhere(EncryptionState(
            isEnabled: true, currentKeyID: keyring.current.rawValue, enabledAt: keyring.enabledAt,
            identityKeyID: keyring.identity.rawValue))
    }
}

// MARK: - CollectionHeld

/// A collection left alone for the rest of the run, with why (`CollectionIsolation`):
/// the other collections go on.
struct CollectionHeld: Error {
    let reason: String
}
