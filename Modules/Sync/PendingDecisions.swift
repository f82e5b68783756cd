import Domain
import Foundation
import Storage

// MARK: - Pending decisions

/// What waits for a person after sync runs, described for a list (`shelf conflicts`,
/// `shelf failed`): which record, what clashes or why the server refused it.
extension ConflictResolver {
    /// Every conflict, by collection and record id, with the fields that clash.
    public func conflicts() throws -> [ConflictSummary] {
        try store.read { reader in try reader.conflicts() }.map(ConflictSummary.init)
    }

    /// Every change the server refused for good, oldest refusal first.
    public func failedChanges() throws -> [FailedChange] {
        try store.read { reader in try reader.deadLetters() }.map(FailedChange.init)
    }
}

// MARK: - ConflictSummary

/// A conflict as a list shows it: the record, the kind of clash and the clashing
/// fields (wire names, e.g. `title`, `author_name`), with a label to recognise it by.
public struct ConflictSummary: Hashable, Sendable {
    public var collection: CollectionName
    public var recordID: String
    public var kind: MergeConflict.Kind
    /// The fields both sides changed differently; empty for a delete clash.
    public var fields: [String]
    /// The record's title (or name), local version first; nil when neither side has one.
    public var label: String?
    public var detectedAt: Date

    public init(
        collection: CollectionName, recordID: String, kind: MergeConflict.Kind, fields: [String],
        label: String?, detectedAt: Date
    ) {
        self.collection = collection
        self.recordID = recordID
        self.kind = kind
        self.fields = fields
        self.label = label
        self.detectedAt = detectedAt
    }

    /// Describes a stored conflict by merging its three versions again: the merge that
    /// found it names the clash. Versions that no longer read as JSON objects are shown
    /// as a clash of the whole record rather than hidden.
    init(_ conflict: Conflict) {
        let base = try? RecordJSON.fields(conflict.base)
        let local = try? RecordJSON.fields(conflict.local)
        let remote = try? RecordJSON.fields(conflict.remote)
        let clash: MergeConflict
        switch ThreeWayMerge.merge(base: base, local: local, remote: remote, policy: .manual) {
        case .conflict(let found):
            clash = found
        case .alreadyEqual, .acceptRemote, .push:
            switch (conflict.local, conflict.remote) {
            case (nil, _?): clash = MergeConflict(kind: .deleteVersusEdit, fields: [])
            case (_?, nil): clash = MergeConflict(kind: .editVersusDelete, fields: [])
            default: clash = MergeConflict(kind: .fields, fields: [])
            }
        }
        self.init(
            collection: conflict.collection, recordID: conflict.recordID, kind: clash.kind, fields: clash.fields,
            label: RecordLabel.of(local) ?? RecordLabel.of(remote), detectedAt: conflict.detectedAt)
    }
}

// MARK: - FailedChange

/// A change the server refused for good, as a list shows it; `id` is what
/// `ConflictResolver.retry(deadLetter:)` and `discard(deadLetter:)` take.
public struct FailedChange: Hashable, Sendable, Identifiable {
    public var id: Int64
    public var collection: CollectionName
    public var recordID: String
    /// `create`, `update` or `delete`.
    public var change: String
    public var status: Int
    public var reason: String
    public var failedAt: Date

    public init(
        id: Int64, collection: CollectionName, recordID: String, change: String, status: Int, reason: String,
        failedAt: Date
    ) {
        self.id = id
        self.collection = collection
        self.recordID = recordID
        self.change = change
        self.status = status
        self.reason = reason
        self.failedAt = failedAt
    }

    init(_ letter: DeadLetter) {
        self.init(
            id: letter.id, collection: letter.collection, recordID: letter.recordID, change: letter.kind.rawValue,
            status: letter.status, reason: letter.reason, failedAt: letter.failedAt)
    }
}
