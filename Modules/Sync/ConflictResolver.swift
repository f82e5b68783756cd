import Domain
import Foundation
import Records
import Storage

// MARK: - ConflictResolver

/// A person's decisions on what a sync could not settle: conflicts (`shelf resolve`)
/// and changes the server refused (`shelf retry`, `shelf discard`). Each decision is
/// one transaction, takes effect locally at once, and reaches the server on the next sync.
public struct ConflictResolver: Sendable {
    public enum Side: String, Sendable, CaseIterable {
        case local, remote
    }

    public let store: ShelfStore

    public init(store: ShelfStore) {
        self.store = store
    }

    /// Settles a conflict, three ways: the clashing fields take the chosen side's
    /// values, and every field only one side changed keeps that change.
    /// - `local`: the local values of the clashing fields are written onto the server's
    ///   version (the next sync pushes them with `If-Match` of that version, so a
    ///   server change made since is merged again, not overwritten).
    /// - `remote`: the server's values of the clashing fields are kept; local edits of
    ///   other fields are still pushed. With nothing local left, the server's version
    ///   becomes the local one.
    /// A deletion on one side and an edit on the other is a clash of the whole record.
    /// - Throws: `ResolutionError.noConflict` when the record has none.
    public func resolve(_ collection: CollectionName, id: String, keep side: Side) throws {
        try store.write { tx in
            guard let conflict = try tx.conflict(collection, id: id) else {
                throw ResolutionError.noConflict(collection: collection, id: id)
            }
            try Self.settle(conflict, keep: side, in: tx)
        }
    }

    /// `resolve(_:id:keep:)` inside the caller's transaction.
    static func settle(_ conflict: Conflict, keep side: Side, in tx: StoreTransaction) throws {
        let collection = conflict.collection, id = conflict.recordID
        let remote = remoteRecord(conflict)
            ?? RawRecord(id: id, lastModified: conflict.remoteLastModified ?? 0, isDeleted: true, json: Data("{}".utf8))
        let waiting = try tx.outboxEntry(collection, id: id)
        let row = try tx.record(collection, id: id, includingDeleted: true)
        let local = row.flatMap { $0.isDeleted ? nil : $0.json }
        let versions = try MergeApplier.versions(waiting, base: conflict.base, remote: conflict.remote)
        let outcome = ThreeWayMerge.merge(
            base: versions.base, sent: versions.sent, local: try RecordJSON.fields(local),
            remote: try RecordJSON.fields(conflict.remote), policy: side == .local ? .clientWins : .serverWins)

        switch outcome {
        case .push(let content) where waiting != nil:
            let merged = try content.map { try RecordJSON.data($0, id: id) }
            try SyncRules(tx).rebasePendingChange(collection, id: id, onto: remote, merged: merged)
        case .conflict where waiting != nil:
            // NB: a policy other than manual never leaves a clash; keep the local side whole.
            try SyncRules(tx).rebasePendingChange(collection, id: id, onto: remote, merged: nil)
        case .alreadyEqual, .acceptRemote, .push, .conflict:
            if waiting != nil { try SyncRules(tx).discardLocalChange(collection, id: id) }
            _ = try SyncRules(tx).applyPulled(remote, to: collection)
        }
        _ = try tx.removeConflict(collection, id: id)
    }

    /// The conflict a reader means: its record's full id, else a unique prefix of it (at
    /// least `ShortID.minimumTypedLength` characters, as every id on the command line),
    /// among the records in conflict — of `collection`, or of any collection when nil.
    /// - Throws: `ResolutionError.noConflict` / `.noConflictWithID` when none matches;
    ///   `.tooShort` for a shorter prefix; `.ambiguous` when several do (listed).
    public func locate(_ reference: String, in collection: CollectionName?) throws -> (collection: CollectionName, id: String) {
        let conflicts = try conflicts().filter { collection == nil || $0.collection == collection }
        var matches = conflicts.filter { $0.recordID == reference }
        if matches.isEmpty {
            if reference.utf8.count < ShortID.minimumTypedLength, conflicts.contains(where: { $0.recordID.hasPrefix(reference) }) {
                throw ResolutionError.tooShort(reference)
            }
            matches = conflicts.filter { $0.recordID.hasPrefix(reference) }
        }
        guard let first = matches.first else {
            if let collection { throw ResolutionError.noConflict(collection: collection, id: reference) }
            throw ResolutionError.noConflictWithID(reference)
        }
        guard matches.count == 1 else {
            throw ResolutionError.ambiguous(reference: reference, candidates: matches.map { "\($0.collection.rawValue)/\($0.recordID)" })
        }
        return (first.collection, first.recordID)
    }

    /// Puts a refused change back in the outbox for the next sync.
    public func retry(deadLetter id: Int64) throws {
        try store.write { tx in
            guard try tx.deadLetter(id: id) != nil else { throw ResolutionError.noDeadLetter(id) }
            _ = try tx.requeueDeadLetter(id: id)
        }
    }

    /// Forgets a refused change; the record stays as the server has it.
    public func discard(deadLetter id: Int64) throws {
        try store.write { tx in
            guard try tx.removeDeadLetter(id: id) else { throw ResolutionError.noDeadLetter(id) }
        }
    }

    static func remoteRecord(_ conflict: Conflict) -> RawRecord? {
        guard let json = conflict.remote, let lastModified = conflict.remoteLastModified else { return nil }
        return RawRecord(id: conflict.recordID, lastModified: lastModified, json: json)
    }
}

// MARK: - ResolutionError

public enum ResolutionError: Error, Equatable, Sendable, CustomStringConvertible {
    case noConflict(collection: CollectionName, id: String)
    /// An id or prefix several records in conflict match (`COLLECTION/ID` each).
    case ambiguous(reference: String, candidates: [String])
    /// A prefix shorter than any id may be typed.
    case tooShort(String)
    /// An id without a collection that has no conflict in any collection.
    case noConflictWithID(String)
    case noDeadLetter(Int64)

    public var description: String {
        switch self {
        case .noConflict(let collection, let id): "no conflict for \(collection.rawValue)/\(id)"
        case .ambiguous(let reference, let candidates):
            "'\(reference)' names several conflicts: \(candidates.joined(separator: ", ")); give more of the id, or COLLECTION/ID"
        case .tooShort(let reference):
            "'\(reference)' is too short to name a conflict: give its full id or at least \(ShortID.minimumTypedLength) characters of it"
        case .noConflictWithID(let id): "no conflict for a record with id '\(id)' (see 'shelf conflicts')"
        case .noDeadLetter(let id): "no failed change with id \(id)"
        }
    }
}
