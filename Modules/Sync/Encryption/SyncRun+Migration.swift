import Domain
import Encryption
import Foundation
import Records
import Services
import Storage

// MARK: - Closing a migration

/// `enable`, the upgrade of a format 1 keyring and `rotate` each start a migration: every
/// record goes up sealed again, under the current key, in format 2. While one is under
/// way the keyring says so — the plaintext period is open, or a key is retiring — and a
/// device takes records in the clear (for ids it never saw sealed) or under the retiring
/// key. A migration ends only when a device that holds every key has made sure nothing
/// is left: it lists the sealed collections' envelopes (`_fields=shelf_enc.v,…`, a few
/// bytes a record), queues what it holds that is not yet sealed under the current key,
/// and once a listing finds nothing left it writes the next keyring version with the
/// plaintext period closed and the retiring keys retired. From then on a record in the
/// clear, or a new version under a retired key, is refused however it is stamped.
extension SyncRun {
    /// How long after a check that found work left the next one waits: a listing costs
    /// one request per page of envelopes.
    static let migrationCheckInterval: TimeInterval = 600

    /// Checks, at the end of a run that got everything through, whether the migration the
    /// keyring says is under way is done, and closes it when it is.
    func closeMigrationIfDone() async throws {
        guard case .sealed(let sealer, _) = sealing, pushHold == nil, options.pulls, options.pushes,
              Set(CollectionName.allCases.filter(WireSealing.seals)).isSubset(of: Set(options.collections))
        else { return }
        let state = try store.read { reader in try reader.encryptionState() }
        guard let body = state.keyringRecord, let version = state.keyringVersion else { return }
        let states = state.keyStates ?? [:]
        let underWay = state.plaintextClosed != true || states.values.contains(KeyringManifest.KeyState.retiring.rawValue)
        guard underWay, states.keys.allSatisfy({ id in sealer.keyring.keys.contains { $0.id.rawValue == id } }) else { return }
        if let checked = state.migrationCheckedAt, now.timeIntervalSince(checked) < Self.migrationCheckInterval { return }
        let sealed = CollectionName.allCases.filter(WireSealing.seals)
        let waiting = try store.read { reader in try sealed.reduce(0) { $0 + (try reader.pendingCount(in: $1)) } }
        guard waiting == 0 else { return }
        if state.plaintextClosed != true, try renameRevealingIDs(state, keys: sealer.keyring) > 0 { return }

        var left = 0
        for collection in sealed {
            left += try await sealLeftovers(of: collection, current: sealer.keyring.current.id.rawValue)
        }
        let at = now
        try store.write { tx in
            var updated = try tx.encryptionState()
            updated.migrationCheckedAt = left == 0 ? nil : at
            try tx.setEncryptionState(updated)
        }
        guard left == 0 else {
            report.keyring = "migration under way: \(left) record\(left == 1 ? "" : "s") queued to be sealed under the current key"
            return
        }
        try await closeMigration(body: body, version: version, keys: sealer.keyring)
    }

    /// Lists `collection`'s envelopes and queues what this device holds that is not sealed
    /// under `current` in format 2.
    /// - Returns: how many records are left (queued, or not held here yet).
    private func sealLeftovers(of collection: CollectionName, current: String) async throws -> Int {
        let service = KintoCollectionService(client: engine.client, collection: collection)
        let query = ListQuery(limit: options.pageSize, sort: ["last_modified"], fields: Self.envelopeFields)
        let what = "list \(collection.rawValue)'s envelopes"
        let ahead = PageFetchAhead(service: service, maximumRequests: max(0, options.maximumPages - pagesPulled))
        // NB: no page only for an answer "not modified", which a list without a validator never gets.
        guard let first = try await withRetries(what, { try await service.firstPage(query, onNextPage: ahead.onNextPage).page }) else {
            ahead.stop()
            return 0
        }
        var stale: [RawRecord] = []
        // NB: the run's one paging loop: a list cut short (a `Backoff`, too many pages)
        // throws, so a migration is never closed on part of a collection.
        try await readPages(from: first, guardrail: PagingGuard(listing: service, since: nil), ahead: ahead) { highest in
            var rest = query
            rest.since = highest.map { Int(clamping: $0) }
            return try await withRetries(what) { try await service.firstPage(rest, onNextPage: ahead.onNextPage) }.page
        } take: { page in
            stale += page.records.filter { !$0.isDeleted }
        }
        stale.removeAll { record in
            guard let envelope = record.envelope else { return false }
            return envelope.version == SealedRecord.formatVersion && envelope.keyID == current
        }
        guard !stale.isEmpty else { return 0 }
        return try store.write { tx in
            var left = 0
            let rules = SyncRules(tx)
            for record in stale {
                left += 1
                if let row = try tx.record(collection, id: record.id, includingDeleted: true), !row.isDeleted {
                    guard try tx.outboxEntry(collection, id: record.id) == nil else { continue }
                    try tx.saveLocal(collection, id: record.id, json: row.json)
                } else if let deletion = try tx.sealedDeletion(collection, id: record.id) {
                    guard try tx.record(collection, id: record.id, includingDeleted: true) == nil else { continue }
                    try rules.sealDeletionAgain(collection, id: record.id, SealedDeletion(
                        sequence: deletion.sequence, revision: deletion.revision, lastModified: record.lastModified))
                } else if record.envelope != nil {
                    // NB: sealed under an older key, and neither held nor remembered here: a
                    // version this device refused. It does not hold the migration open.
                    left -= 1
                }
            }
            return left
        }
    }

    /// Renames what is still named after its source (a record whose change was in flight
    /// when `enable` renamed the others, one another device pulled in the clear): while the
    /// plaintext period is open, when its old id can still go as a Kinto tombstone.
    /// - Returns: how many were renamed (queued: the migration waits for them).
    private func renameRevealingIDs(_ state: EncryptionState, keys: Keyring) throws -> Int {
        guard try store.read({ reader in try RevealingIDs.count(in: reader) }) > 0 else { return 0 }
        let identity = try state.identityKeyID.flatMap { id in keys.key(for: try KeyID(id)) } ?? keys.current
        let keyed = try KeyedIdentifier(key: identity)
        let renamed = try store.write { tx in try SyncRules(tx).renameRevealingIDs { keyed.id(for: $0, in: $1.rawValue) } }
        if renamed > 0 { report.keyring = "renamed \(renamed) record\(renamed == 1 ? "" : "s") named after their source; they go up with the next sync" }
        return renamed
    }

    /// The members a migration check lists: the envelope's format, key and number.
    static let envelopeFields = ["shelf_enc.v", "shelf_enc.kid", "shelf_enc.seq"]

    /// Writes the next keyring version with the plaintext period closed and the retiring
    /// keys retired, over the version this device verified (read again, to write with
    /// `If-Match`): a keyring that changed meanwhile is the next run's to check.
    private func closeMigration(body: Data, version: Int64, keys: Keyring) async throws {
        let fetched = try await withRetries("read the keyring") {
            try await KintoCollectionService(client: engine.client, path: ServerKeyring.path).record(id: ServerKeyring.recordID)
        }
        guard let record = try ServerKeyring(fetched).record, record.manifest.version == version else { return }
        let closed = try record.next(keys: keys.keys) { (_, manifest) throws(EncryptionError) in
            manifest.plaintextClosed = true
            for (id, entry) in manifest.keys where entry.state == .retiring { manifest.keys[id]?.state = .retired }
        }
        let closedBody = try WireJSON.data(closed.fields)
        do {
            _ = try await withRetries("close the migration") { try await ServerKeyring.write(closedBody, over: fetched.lastModified, engine.client) }
        } catch APIError.preconditionFailed {
            return  // another device wrote the keyring meanwhile: the next run reads it
        }
        let remembered = AccountEncryption.RememberedKeyring(manifest: closed.manifest, body: closedBody)
        try store.write { tx in
            var state = try tx.encryptionState()
            AccountEncryption.remember(remembered, in: &state)
            state.migrationCheckedAt = nil
            try tx.setEncryptionState(state)
        }
        if case .sealed(let sealer, _) = sealing {
            sealing = .sealed(sealer, policy: IntegrityPolicy(try store.read { try $0.encryptionState() }))
        }
        report.keyring = "every record is sealed under key \(closed.manifest.current): closed the plaintext period (keyring version \(closed.manifest.version))"
    }
}
