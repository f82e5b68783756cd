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

    /// Opens what the server sent of `collection`, reporting each record refused.
    /// - Throws: `CollectionHeld` when sealed records reached a device that holds no key:
    ///   the store learns that its account is encrypted, and the collection is left alone.
    func opened(_ records: [RawRecord], of collection: CollectionName) throws -> [RawRecord] {
        let opened = sealing.opened(records, in: collection)
        if opened.metSealedRecords {
            try store.write { tx in
                var state = try tx.encryptionState()
                state.isEnabled = true
                try tx.setEncryptionState(state)
            }
            sealing = .locked
            // NB: the others are left alone too: they may be sealed as well, and nothing
            // in the clear may be pushed over them.
            for other in options.collections where other != collection && WireSealing.seals(other) && unavailable[other] == nil {
                try hold(other, reason: WireSealing.lockedReason)
            }
            throw CollectionHeld(reason: WireSealing.lockedReason)
        }
        for refusal in opened.refused {
            emit(.recordRefused(collection, id: refusal.id, reason: refusal.reason))
        }
        if !opened.refused.isEmpty { collectionReport(collection) { $0.refused += opened.refused.count } }
        return opened.records
    }
}

// MARK: - CollectionHeld

/// A collection left alone for the rest of the run, with why (`CollectionIsolation`):
/// the other collections go on.
struct CollectionHeld: Error {
    let reason: String
}
