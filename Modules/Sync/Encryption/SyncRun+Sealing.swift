import Domain
import Encryption
import Foundation
import Records
import Services
import Storage

// MARK: - The run's encryption boundary

extension SyncRun {
    /// Reads how this run's records cross the wire: the store says whether its account
    /// is encrypted (and what the newest keyring it verified decides), the key file
    /// (`SyncOptions.keyFile`) whether this device holds its keys. Without them the
    /// reader's collections are left alone this run, saying why.
    /// - Throws: `SyncStop.configuration` for a key file that exists but cannot be used
    ///   (its mode, its owner, its folder, a link): it is never used anyway.
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
        sealing = .sealed(RecordSealer(keyring: keyring, bucket: KintoCollectionPath.userBucket), policy: IntegrityPolicy(state))
    }

    /// What the server sent of a collection, opened, and the rules that decide which of
    /// it this device takes (nil: the account is in the clear, or the collection is the
    /// catalog).
    struct ReadableRecords {
        var records: [RawRecord]
        var gate: IntegrityGate?
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
        unknownKeys.formUnion(opened.unknownKeys)
        return ReadableRecords(records: opened.records, gate: integrityGate(for: opened, in: collection))
    }

    /// The rules for what `opened` gave, on a sealed run (never for the catalog, which is
    /// not the reader's and stays in the clear).
    func integrityGate(for opened: WireSealing.Opened, in collection: CollectionName) -> IntegrityGate? {
        guard case .sealed(_, let policy) = sealing, WireSealing.seals(collection) else { return nil }
        return IntegrityGate(policy: policy, origins: IntegrityGate.Origins(opened.records, opened.provenance))
    }

    /// The bookkeeping of what the gate took, in the caller's transaction (after the
    /// records are stored): records in the clear sealed again, sealed deletions
    /// remembered, and what was remembered of a record a sealed version now settles forgotten.
    func settle(_ admission: IntegrityGate.Admission, in collection: CollectionName, _ tx: StoreTransaction) throws {
        try SyncRules(tx).sealAgain(admission.sealAgain, in: collection)
        for (id, deletion) in admission.deletions {
            try tx.rememberSealedDeletion(collection, id: id, deletion)
            try tx.forgetServerDeletion(collection, id: id)
        }
        // NB: one look first: a first pull settles every record it takes, and nothing is
        // remembered to forget (two statements a record were a tenth of its cost).
        guard !admission.settled.isEmpty, try tx.remembersDeletions(in: collection) else { return }
        for id in admission.settled {
            try tx.forgetSealedDeletion(collection, id: id)
            try tx.forgetServerDeletion(collection, id: id)
        }
    }

    /// Reports versions the rules against a hostile server refused: an event (a log line
    /// with the id and why) each, and counts.
    func noteRefusals(_ refusals: [IntegrityRefusal], in collection: CollectionName) {
        guard !refusals.isEmpty else { return }
        for refusal in refusals {
            emit(.recordRefused(collection, id: refusal.id, reason: refusal.reason))
        }
        collectionReport(collection) { report in
            report.rolledBack += refusals.filter(\.isRollback).count
            report.inTheClear += refusals.filter { $0.kind == .inTheClear || $0.kind == .inTheClearOverSealed }.count
            report.deletedByServer += refusals.filter { $0.kind == .deletedWithoutReader }.count
        }
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
            state.currentKeyID = state.currentKeyID ?? learnt.currentKeyID
            state.identityKeyID = state.identityKeyID ?? learnt.identityKeyID
            try tx.setEncryptionState(state)
        }
        sealing = .locked
        for other in options.collections where other != collection && WireSealing.seals(other) && unavailable[other] == nil {
            try hold(other, reason: WireSealing.lockedReason)
        }
    }
}

// MARK: - CollectionHeld

/// A collection left alone for the rest of the run, with why (`CollectionIsolation`):
/// the other collections go on.
struct CollectionHeld: Error {
    let reason: String
}
