import Domain
import Encryption
import Foundation
import Records
import Services
import Storage

// MARK: - The keyring, every run

/// Every run of an encrypted account reads the account's keyring (in its first batch,
/// where it costs no round trip) and holds it to what this device has seen:
/// - a manifest that does not verify under this device's keys, one older than the newest
///   this device verified (or another of the same version), a keyring of format 1 after
///   one of format 2, or no keyring at all is refused, and the newest verified keyring,
///   which the store keeps, is put back;
/// - a newer verified manifest is learnt: the plaintext period closed, keys retired, and a
///   current key this device does not hold (another device rotated) holds this device's
///   pushes until it joins again — it never seals under a key it knows to be replaced;
/// - a format 1 keyring on a device that holds all of its keys is upgraded to format 2.
///
/// A device in the clear asks too, so that it learns another one turned encryption on
/// before it pushes anything in the clear.
extension SyncRun {
    /// Whether this run asks the server for the keyring.
    var asksForKeyring: Bool {
        switch sealing {
        case .plaintext, .sealed: true
        case .locked: false
        }
    }

    /// The keyring GET for a batch (`pullAll`).
    static func keyringRequest() throws -> KintoRequest {
        try .read(in: ServerKeyring.path, id: ServerKeyring.recordID)
    }

    /// Reads a keyring answer of the run's first batch: a record, or a 404 when there is none.
    func noteKeyring(_ result: BatchResult) async throws {
        if result.status == 404 {
            try await checkKeyring(nil)
        } else if result.isSuccess, let record = try? result.record() {
            try await checkKeyring(record)
        }
        // NB: any other answer (a 5xx, a 403) says nothing of the keyring: the next run asks again.
    }

    /// Asks for the keyring on its own: a run that does not start with a batch.
    func readKeyring() async throws {
        guard asksForKeyring else { return }
        let service = KintoCollectionService(client: engine.client, path: ServerKeyring.path)
        do {
            let record = try await withRetries("read the keyring") { try await service.record(id: ServerKeyring.recordID) }
            try await checkKeyring(record)
        } catch APIError.notFound {
            try await checkKeyring(nil)
        } catch let error as APIError where !error.isTransient {
            return
        }
    }

    /// Holds the server's keyring (nil: it has none) to what this device has seen.
    func checkKeyring(_ fetched: RawRecord?) async throws {
        switch sealing {
        case .locked:
            return
        case .plaintext:
            // NB: an answer that is no keyring Shelf wrote counts as none: it cannot name a key
            // to join, and the sealed records themselves still stop this device (`opened`).
            guard let fetched, let keyring = try? ServerKeyring(fetched) else { return }
            try learnEncryptedElsewhere(EncryptionState(
                isEnabled: true, currentKeyID: keyring.currentKeyID.rawValue, identityKeyID: keyring.identityKeyID.rawValue))
        case .sealed(let sealer, _):
            try await checkSealedKeyring(fetched, keys: sealer.keyring, sealer: sealer)
        }
    }

    private func checkSealedKeyring(_ fetched: RawRecord?, keys: Keyring, sealer: RecordSealer) async throws {
        let state = try store.read { reader in try reader.encryptionState() }
        guard let fetched else {
            try await refuseKeyring("the server has no keyring for this encrypted account (deleted)", state: state, over: nil)
            return
        }
        let keyring: ServerKeyring
        do {
            keyring = try ServerKeyring(fetched)
        } catch {
            try await refuseKeyring("the server's keyring is not one Shelf wrote (\(error))", state: state, over: fetched.lastModified)
            return
        }
        switch keyring.content {
        case .legacy(let legacy):
            guard state.keyringVersion == nil else {
                try await refuseKeyring("the server's keyring was put back to format 1", state: state, over: fetched.lastModified)
                return
            }
            try await upgrade(legacy, over: fetched.lastModified, keys: keys)
        case .authenticated(let record):
            guard keys.keys.contains(where: { record.manifest.keys[$0.id] != nil }) else {
                // NB: a keyring none of whose keys this device holds is not one it can judge:
                // it is not put back over (it may be the reader's, made after entries this
                // device needs were lost); this device seals nothing until it joins again.
                pushHold = """
                    the account's keyring lists none of the keys this device holds: run 'shelf encryption join'; local changes \
                    wait ('shelf encryption put-back' puts back the keyring this device verified, if the server replaced it)
                    """
                report.keyring = "refused the server's keyring: it lists none of this device's keys"
                keyringRefused = true
                emit(.keyringRefused(reason: report.keyring ?? ""))
                return
            }
            do {
                try record.verify(with: keys.keys)
                try AccountEncryption.refuseOlder(record.manifest, than: state)
            } catch {
                try await refuseKeyring("\(error)", state: state, over: fetched.lastModified)
                return
            }
            try learn(record, body: fetched.json, state: state, sealer: sealer)
        }
    }

    /// A newer verified keyring: remembered, and what it decides applies from now on.
    private func learn(_ record: KeyringRecord, body: Data, state: EncryptionState, sealer: RecordSealer) throws {
        let manifest = record.manifest
        if manifest.version != state.keyringVersion {
            // NB: the record's own members (not its id and stamp): what is put back later.
            var fields = try WireJSON.fields(body)
            ServerOwnedFields.removeAll(from: &fields)
            let remembered = AccountEncryption.RememberedKeyring(manifest: manifest, body: try WireJSON.data(fields))
            try store.write { tx in
                var updated = try tx.encryptionState()
                AccountEncryption.remember(remembered, in: &updated)
                try tx.setEncryptionState(updated)
            }
            report.keyring = "learnt keyring version \(manifest.version)"
        }
        let updated = try store.read { reader in try reader.encryptionState() }
        sealing = .sealed(sealer, policy: IntegrityPolicy(updated))
        if manifest.current != sealer.keyring.current.id {
            pushHold = """
                another device rotated the account's key (key \(manifest.current) is current, this device seals with \
                \(sealer.keyring.current.id)): run 'shelf encryption join'; local changes wait
                """
        }
    }

    /// Refuses the server's keyring, says why, and puts back the newest one this device
    /// verified (when it has one) over what the server shows.
    private func refuseKeyring(_ why: String, state: EncryptionState, over stamp: Int64?) async throws {
        var said = "refused the server's keyring: \(why)"
        if let body = state.keyringRecord {
            do {
                _ = try await withRetries("put the keyring back") { try await ServerKeyring.write(body, over: stamp, engine.client) }
                said += "; put back version \(state.keyringVersion.map(String.init) ?? "?") this device verified"
            } catch let error as APIError where !error.isTransient {
                said += "; could not put back the version this device verified: \(error)"
            }
        }
        report.keyring = said
        keyringRefused = true
        emit(.keyringRefused(reason: said))
    }

    /// Upgrades a format 1 keyring to format 2 when this device holds every key it lists:
    /// the same wrapped keys, a manifest (version 1, the plaintext period open so that
    /// format 1 envelopes are read while they are sealed again) authenticated under them,
    /// and every record queued to go up sealed in format 2.
    private func upgrade(_ legacy: LegacyKeyring, over stamp: Int64, keys: Keyring) async throws {
        guard keys.current.id == legacy.current, legacy.keys.keys.allSatisfy({ keys.key(for: $0) != nil }) else {
            report.keyring = "the account's keyring is of format 1 and lists keys this device does not hold: run 'shelf encryption join'"
            return
        }
        var states: [KeyID: KeyringManifest.KeyState] = [:]
        for id in legacy.keys.keys { states[id] = id == legacy.current ? .current : .retiring }
        let record = try KeyringRecord.make(
            version: 1, current: legacy.current, identity: legacy.identity, plaintextClosed: false,
            wrapped: legacy.keys, states: states, keys: keys.keys)
        let body = try WireJSON.data(record.fields)
        do {
            _ = try await withRetries("upgrade the keyring") { try await ServerKeyring.write(body, over: stamp, engine.client) }
        } catch APIError.preconditionFailed {
            return  // another device upgraded it first: the next run reads theirs
        }
        let remembered = AccountEncryption.RememberedKeyring(manifest: record.manifest, body: body)
        let queued = try store.write { tx in
            var state = try tx.encryptionState()
            AccountEncryption.remember(remembered, in: &state)
            try tx.setEncryptionState(state)
            return try CollectionName.allCases.filter(WireSealing.seals).reduce(0) { $0 + (try SyncRules(tx).sealAllAgain(in: $1)) }
        }
        if case .sealed(let sealer, _) = sealing {
            sealing = .sealed(sealer, policy: IntegrityPolicy(try store.read { try $0.encryptionState() }))
        }
        report.keyring = "upgraded the keyring to format 2; \(queued) record\(queued == 1 ? "" : "s") go up sealed again"
    }
}
