import Domain
import Encryption
import Foundation
import Records
import Storage

// MARK: - IntegrityGate

/// The rules that keep a hostile server from writing a reader's encrypted library: which
/// of the records the server sent a device takes, decided against what the device holds
/// (`HeldVersion`), inside the transaction that stores them.
///
/// A server cannot forge a seal, but it can put back an old one, write in the clear,
/// delete, and replay. So on an encrypted account:
/// - a sealed version is taken only when it is newer than the version held: its sequence
///   number (authenticated in the seal) is higher, or equal with the same lineage
///   revision (the same version, stamped again). An older one, another version of the
///   same number, any version of a record this device saw removed by a sealed deletion
///   of a higher number, and a new version under a retired key are refused;
/// - a record in the clear (or a format 1 envelope, which has no number) is taken only
///   while the plaintext period is open, and only for an id this device never saw sealed;
///   it is then sealed again (`sealAgain`);
/// - a Kinto tombstone (a deletion no key vouches for) of a record this device holds live
///   and has seen sealed is refused and remembered (`ServerDeletion`): the reader's own
///   deletions are sealed (`RecordSealer.sealDeletion`), except that of a record never
///   sealed (renamed by `enable`), which leaves as a tombstone;
/// - what is refused keeps the local copy, and — except a deletion, which waits for
///   `shelf encryption put-back` — this device's version is queued to go back over the server's.
struct IntegrityGate {
    let policy: IntegrityPolicy
    /// Where each record came from (`WireSealing.Opened.provenance`).
    let origins: Origins

    init(policy: IntegrityPolicy, origins: Origins) {
        self.policy = policy
        self.origins = origins
    }

    /// A gate told where records came from by id.
    init(policy: IntegrityPolicy, provenance: [String: WireSealing.Provenance]) {
        self.init(policy: policy, origins: Origins(byID: provenance))
    }

    // MARK: - Where records came from

    /// Where each opened record came from, side by side with the records in the order they
    /// were opened. The gate is handed those records, some perhaps left out (too large,
    /// held already) but in the same order, so each is found by walking both lists once:
    /// a first sync of a sealed library judges 100,000 records, and a dictionary by id
    /// cost each a hash to build it, another to read it, and its teardown. A record met
    /// out of that order is looked up by id (the last of an id, as a dictionary keeps).
    struct Origins {
        private let records: [RawRecord]
        private let provenance: [WireSealing.Provenance]
        private let byID: [String: WireSealing.Provenance]?

        /// - Parameters: `records` and where each came from, at the same index.
        init(_ records: [RawRecord], _ provenance: [WireSealing.Provenance]) {
            // NB: a provenance for each record, or none at all (nothing opened).
            (self.records, self.provenance, byID) = provenance.count == records.count ? (records, provenance, nil) : ([], [], [:])
        }

        init(byID: [String: WireSealing.Provenance]) {
            (records, provenance, self.byID) = ([], [], byID)
        }

        /// Finds origins for records handed over in order.
        struct Cursor {
            let origins: Origins
            private var next = 0
            private var byID: [String: WireSealing.Provenance]?

            init(_ origins: Origins) {
                self.origins = origins
                byID = origins.byID
            }

            /// Where `record` came from; nil when it was not opened (a tombstone or a
            /// record in the clear handed over by itself).
            mutating func origin(of record: RawRecord) -> WireSealing.Provenance? {
                if let byID { return byID[record.id] }
                let records = origins.records
                var index = next
                while index < records.count {
                    // NB: the same id string as the one handed over in the common case, so
                    // the comparison is that of two references.
                    if records[index].id == record.id {
                        next = index + 1
                        return origins.provenance[index]
                    }
                    index += 1
                }
                let lookup = Dictionary(zip(records.lazy.map(\.id), origins.provenance), uniquingKeysWith: { _, last in last })
                byID = lookup
                return lookup[record.id]
            }
        }
    }

    /// What the gate decided for a page: a plan, carried out by `carryOut`.
    struct Admission {
        /// The records to apply as usual.
        var admitted: [RawRecord] = []
        var refusals: [IntegrityRefusal] = []
        /// Ids taken in the clear during the plaintext period: to be sealed again.
        var sealAgain: [String] = []
        /// Sealed deletions taken: remembered once stored.
        var deletions: [(id: String, deletion: SealedDeletion)] = []
        /// Ids whose sealed live version was taken: what was remembered of their
        /// deletion by anyone is settled.
        var settled: [String] = []
        /// What the store does besides applying `admitted`, in page order (`carryOut`).
        var aftercare: [Aftercare] = []
    }

    /// What a record the gate did not simply take leaves to do in the store.
    enum Aftercare {
        /// A refused version: the local copy stays, and this device's version goes back
        /// over it (`keepLocal`); `held` is what the device held when it was refused.
        case keep(RawRecord, refused: IntegrityRefusal.Kind, held: HeldVersion)
        /// A Kinto tombstone (stamped `stamp`) over a record the reader deleted here too:
        /// the deletion waiting in the outbox goes up sealed over it.
        case sealDeletionOver(id: String, stamp: Int64)
    }

    /// Decides on `records` of `collection` and queues what goes back, in `tx`: reads what
    /// the store holds of them, plans (`plan`), and carries the plan out (`carryOut`).
    /// - Parameter idsAreUnique: no id occurs twice in `records` (a pulled page: the
    ///   scanner refuses one that lists a record twice), so no record is judged against
    ///   another of the same list, and what was taken need not be remembered for it.
    func admit(_ records: [RawRecord], in collection: CollectionName, idsAreUnique: Bool = false, _ tx: StoreTransaction) throws -> Admission {
        guard !records.isEmpty else { return Admission() }
        // NB: one look per page when the store holds nothing to compare with (a first pull).
        let held = try tx.holdsAnyVersion(in: collection) ? try tx.heldVersions(collection, ids: records.map(\.id)) : [:]
        let admission = plan(records, held: held, idsAreUnique: idsAreUnique)
        try carryOut(admission, in: collection, tx)
        return admission
    }

    /// The decision on a page, without the store: `held` is what the store holds of its
    /// records (by id; none for a record it does not know).
    func plan(_ records: [RawRecord], held: [String: HeldVersion], idsAreUnique: Bool = false) -> Admission {
        var admission = Admission()
        guard !records.isEmpty else { return admission }
        var held = held
        if !idsAreUnique { held.reserveCapacity(held.count + records.count) }
        // NB: the admitted list is `records` itself until one is not admitted: a page the
        // gate takes whole is not copied record by record.
        var allAdmitted = true
        var origins = Origins.Cursor(origins)
        func leaveOut(at index: Int) {
            guard allAdmitted else { return }
            allAdmitted = false
            admission.admitted = Array(records[..<index])
        }
        // NB: by index, not `enumerated()`, which copied every record (a retain and a
        // release of each of its parts) only to read it.
        for index in records.indices {
            // NB: no look-up in an empty dictionary: a first pull holds nothing, 100,000 times.
            let version = held.isEmpty ? HeldVersion() : held[records[index].id] ?? HeldVersion()
            let origin = origins.origin(of: records[index]) ?? (records[index].isDeleted ? .tombstone : .plaintext)
            switch decide(records[index], provenance: origin, held: version) {
            case .admit:
                if !allAdmitted { admission.admitted.append(records[index]) }
                note(records[index], provenance: origin, in: &admission)
                // NB: a later record of the page with the same id (a list that holds two
                // versions of one record) is judged against this one, not the store's.
                if !idsAreUnique, case .sealed(let sequence, let revision, _, let deletion) = origin {
                    let record = records[index]
                    held[record.id] = Self.holding(version, sequence: sequence, revision: revision, deletion: deletion, stamp: record.lastModified)
                }
            case .admitAndSealAgain:
                if !allAdmitted { admission.admitted.append(records[index]) }
                admission.sealAgain.append(records[index].id)
            case .refuse(let kind):
                leaveOut(at: index)
                let record = records[index]
                var refusal = IntegrityRefusal(id: record.id, kind: kind, lastModified: record.lastModified)
                if case .sealed(let sequence, _, _, _) = origin { refusal.offered = sequence }
                refusal.held = version.sequence ?? version.removal?.sequence
                admission.refusals.append(refusal)
                admission.aftercare.append(.keep(record, refused: kind, held: version))
            case .sendDeletionSealed:
                leaveOut(at: index)
                admission.aftercare.append(.sealDeletionOver(id: records[index].id, stamp: records[index].lastModified))
            }
        }
        if allAdmitted { admission.admitted = records }
        return admission
    }

    /// Carries out what `plan` decided beside the records it admits (which the caller
    /// applies): each refused version's local copy kept and queued to go back, and the
    /// reader's waiting deletions aimed at the tombstones over them.
    func carryOut(_ admission: Admission, in collection: CollectionName, _ tx: StoreTransaction) throws {
        for step in admission.aftercare {
            switch step {
            case .keep(let record, let kind, let held):
                try keepLocal(record, refused: kind, held: held, in: collection, tx)
            case .sealDeletionOver(let id, let stamp):
                // NB: the reader's own deletion still goes up, as a sealed record over the
                // server's tombstone, so every device learns the deletion is the reader's.
                if let waiting = try tx.outboxEntry(collection, id: id) {
                    try tx.setServerTombstone(waiting.sequence, stamp: stamp)
                }
            }
        }
    }

    /// What is held once a sealed version is taken.
    private static func holding(_ held: HeldVersion, sequence: Int64, revision: String?, deletion: Bool, stamp: Int64) -> HeldVersion {
        var next = held
        if deletion {
            next.removal = SealedDeletion(sequence: sequence, revision: revision, lastModified: stamp)
            if !held.waiting { (next.hasRow, next.sequence, next.revision) = (false, nil, nil) }
        } else if !held.waiting || held.sequence.map({ sequence > $0 }) ?? true {
            // NB: a waiting change is merged onto what is taken: its base is this version.
            (next.hasRow, next.sequence, next.revision) = (true, sequence, revision)
        }
        return next
    }

    // MARK: - The decision

    enum Decision: Equatable {
        case admit
        case admitAndSealAgain
        case refuse(IntegrityRefusal.Kind)
        /// A tombstone no key vouches for, of a record the reader deleted here too: it does
        /// not settle the reader's deletion, which goes up sealed over it.
        case sendDeletionSealed
    }

    /// The rule for one record, without the store: what it is against what is held.
    func decide(_ record: RawRecord, provenance: WireSealing.Provenance, held: HeldVersion) -> Decision {
        switch provenance {
        case .sealed(let sequence, let revision, let keyID, _):
            let sameAsHeld = held.sequence == sequence && held.revision == revision
            if policy.retiredKeys.contains(keyID), !sameAsHeld { return .refuse(.retiredKey) }
            if let removal = held.removal, sequence <= removal.sequence {
                // NB: the remembered deletion itself, listed again, changes nothing.
                if sequence == removal.sequence, revision == removal.revision { return .admit }
                return .refuse(.removedRecordBack)
            }
            if let heldSequence = held.sequence {
                if sequence < heldSequence { return .refuse(.olderVersion) }
                // NB: two versions of one number are two writes made from one version on a
                // server that showed the two devices different states. Every device takes
                // the one with the greater revision id and refuses the other, so they agree
                // and the refusals end; the other's writer merges its write again
                // (`OverwrittenWrites`).
                if sequence == heldSequence, revision != held.revision, (revision ?? "") < (held.revision ?? "") {
                    return .refuse(.otherVersionSameNumber)
                }
            }
            return .admit
        case .plaintext, .legacySealed:
            guard policy.plaintextOpen else { return .refuse(.inTheClear) }
            guard !held.seenSealed else { return .refuse(.inTheClearOverSealed) }
            return record.isDeleted ? .admit : .admitAndSealAgain
        case .tombstone:
            // NB: only a record this device has seen sealed is protected from a tombstone:
            // one it holds as it was before encryption (never sealed since — `enable`
            // renamed it, or it left the library then) follows it. A device that saw it
            // sealed keeps it, and `put-back` brings it back for the others.
            guard held.hasRow, held.sequence != nil else { return .admit }
            return held.deletedHere && held.waiting ? .sendDeletionSealed : .refuse(.deletedWithoutReader)
        }
    }

    /// Bookkeeping of a record taken: a sealed deletion to remember, a sealed version
    /// that settles what was remembered.
    private func note(_ record: RawRecord, provenance: WireSealing.Provenance, in admission: inout Admission) {
        guard case .sealed(let sequence, let revision, _, let deletion) = provenance else { return }
        if deletion {
            admission.deletions.append((record.id, SealedDeletion(sequence: sequence, revision: revision, lastModified: record.lastModified)))
        } else {
            admission.settled.append(record.id)
        }
    }

    // MARK: - What is kept

    /// The local copy stays; this device's version goes back over the refused one with the
    /// next push — its waiting change aimed at the refused version's stamp, or its held
    /// version queued against it, or its sealed deletion queued again. A Kinto tombstone
    /// is remembered instead, for `shelf encryption put-back`.
    private func keepLocal(
        _ record: RawRecord, refused kind: IntegrityRefusal.Kind, held: HeldVersion, in collection: CollectionName, _ tx: StoreTransaction
    ) throws {
        let rules = SyncRules(tx)
        if kind == .deletedWithoutReader {
            try tx.noteServerDeletion(collection, id: record.id, lastModified: record.lastModified)
            return
        }
        if let waiting = try tx.outboxEntry(collection, id: record.id) {
            if waiting.kind == .create {
                // NB: a create (`If-None-Match: *`) would meet the refused version at every
                // push and be refused there again: it goes over it as an update of it (or,
                // the reader having removed the record, a deletion of it), sent afresh — an
                // edit sent back up over a deletion the reader did not make, whose place the
                // server filled with an older version meanwhile.
                try tx.clearSent(waiting.sequence)
                try tx.setLastModified(collection, id: record.id, record.lastModified)
                try tx.writeOutbox(
                    collection, id: record.id, kind: held.deletedHere ? .delete : .update, base: record.lastModified, waiting: waiting)
            } else {
                try tx.setBase(waiting.sequence, base: record.lastModified)
            }
            return
        }
        if held.hasRow {
            try rules.putBack(collection, id: record.id, over: record.lastModified)
        } else if held.removal != nil, !record.isDeleted {
            try rules.queueDeletion(of: record, in: collection)
        }
    }
}

// MARK: - IntegrityRefusal

/// A version from the server a device did not take, and why.
public struct IntegrityRefusal: Sendable, Equatable {
    public enum Kind: String, Sendable, Codable {
        /// Older than the version held (its sequence number is lower): put back.
        case olderVersion = "older_version"
        /// Another version with the number of the one held: a replay, or two writes the
        /// server took at once.
        case otherVersionSameNumber = "other_version_same_number"
        /// A version of a record this device saw removed by a later sealed deletion.
        case removedRecordBack = "removed_record_back"
        /// A new version sealed under a key every record was sealed again away from.
        case retiredKey = "retired_key"
        /// In the clear after the plaintext period closed.
        case inTheClear = "in_the_clear"
        /// In the clear over a record this device has seen sealed.
        case inTheClearOverSealed = "in_the_clear_over_sealed"
        /// A tombstone no key vouches for, of a record whose newest sealed version is live.
        case deletedWithoutReader = "deleted_without_reader"
    }

    public let id: String
    public let kind: Kind
    /// The refused version's stamp.
    public let lastModified: Int64
    /// The refused version's number, and the number this device holds (of the record or
    /// of its sealed deletion), when known: said in the log line.
    public var offered: Int64?
    public var held: Int64?

    public init(id: String, kind: Kind, lastModified: Int64, offered: Int64? = nil, held: Int64? = nil) {
        self.id = id
        self.kind = kind
        self.lastModified = lastModified
        self.offered = offered
        self.held = held
    }

    /// "version 2; this device holds 3", when both are known.
    private var numbers: String {
        guard let offered, let held else { return "" }
        return " (version \(offered); this device holds \(held))"
    }

    /// Why, in words for a log line.
    public var reason: String {
        switch kind {
        case .olderVersion: "an older version than the one this device holds\(numbers): the server put it back; keeping this device's"
        case .otherVersionSameNumber: "another version with the number of the one this device holds\(numbers) (a replay); keeping this device's"
        case .removedRecordBack: "a version of a record the reader removed\(numbers): the server brought it back; removing it again"
        case .retiredKey: "sealed under a retired key; keeping this device's version"
        case .inTheClear: "a record in the clear on an encrypted account (its plaintext period is closed)"
        case .inTheClearOverSealed: "a record in the clear over one this device has seen sealed"
        case .deletedWithoutReader: "deleted on the server without the reader (no sealed deletion): kept here; 'shelf encryption put-back' uploads it again"
        }
    }

    /// Whether it counts as a version put back (rolled back) rather than one in the clear or a deletion.
    public var isRollback: Bool {
        switch kind {
        case .olderVersion, .otherVersionSameNumber, .removedRecordBack, .retiredKey: true
        case .inTheClear, .inTheClearOverSealed, .deletedWithoutReader: false
        }
    }
}

// MARK: - Putting a version back

extension SyncRules {
    /// Queues the version this store holds of `id` to go back over a server version it
    /// refused (stamped `stamp`): an update of the held version, whose base is what is
    /// held, so a merge with anything newer finds nothing changed here.
    func putBack(_ collection: CollectionName, id: String, over stamp: Int64) throws(StorageError) {
        guard try tx.outboxEntry(collection, id: id) == nil,
              let row = try tx.record(collection, id: id, includingDeleted: true), !row.isDeleted
        else { return }
        try tx.writeBase(BaseSnapshot(collection: collection, recordID: id, json: row.json, lastModified: stamp))
        try tx.setLastModified(collection, id: id, stamp)
        try tx.writeOutbox(collection, id: id, kind: .update, base: stamp, waiting: nil)
    }
}
