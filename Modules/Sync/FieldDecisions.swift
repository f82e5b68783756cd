import Domain
import Foundation
import RecordDTOs
import Records
import Storage

// MARK: - ConflictDecisions

/// A person's decision on a conflict, field by field (`shelf resolve ID --field
/// title=local --set author_name=… --keep remote`).
public struct ConflictDecisions: Hashable, Sendable {
    /// What a clashing field takes.
    public enum Choice: Hashable, Sendable {
        /// One side's value.
        case keep(ConflictResolver.Side)
        /// A value written by hand, read by the field's kind (`FieldValueText`).
        case written(String)
    }

    /// The side every clashing field not named in `fields` takes; nil: each must be named.
    public var others: ConflictResolver.Side?
    /// Choices by wire field name.
    public var fields: [String: Choice]

    public init(others: ConflictResolver.Side? = nil, fields: [String: Choice] = [:]) {
        self.others = others
        self.fields = fields
    }
}

// MARK: - Field names

extension ConflictDecisions {
    /// The Domain's names of fields (`--json`'s `author`, `isFinished`, `bookID`) for
    /// their wire names (`author_name`, `finished`, `book_id`), which `conflicts show`
    /// lists; either names a field.
    static let domainNames: [CollectionName: [String: String]] = Dictionary(
        uniqueKeysWithValues: CollectionName.allCases.map { ($0, WireNames.wireNamesByDomainName(in: $0)) })

    /// The decisions with every field named by its wire name.
    /// - Throws: `FieldDecisionError.givenTwice` for a field named under both names.
    func naming(_ collection: CollectionName) throws(FieldDecisionError) -> ConflictDecisions {
        let aliases = Self.domainNames[collection] ?? [:]
        var renamed = self
        renamed.fields = [:]
        for name in fields.keys.sorted() {
            let wire = aliases[name] ?? name
            guard renamed.fields[wire] == nil else { throw .givenTwice(wire) }
            renamed.fields[wire] = fields[name]
        }
        return renamed
    }
}

// MARK: - Resolving field by field

extension ConflictResolver {
    /// What a resolution did, for the confirmation: each clashing field and what it took.
    public struct Resolution: Hashable, Sendable {
        /// What one clashing field took.
        public enum Taken: String, Hashable, Sendable {
            case local, remote, written
        }

        public var collection: CollectionName
        public var recordID: String
        /// By wire field name; empty for a deletion clash (see `wholeRecord`).
        public var fields: [String: Taken]
        /// The side a deletion clash was settled with, as a whole.
        public var wholeRecord: Side?
        /// Something is queued for the next sync (false: the server's version is kept as it is).
        public var queued: Bool

        public init(collection: CollectionName, recordID: String, fields: [String: Taken], wholeRecord: Side? = nil, queued: Bool) {
            self.collection = collection
            self.recordID = recordID
            self.fields = fields
            self.wholeRecord = wholeRecord
            self.queued = queued
        }
    }

    /// Settles a conflict as `decisions` says: each clashing field takes the chosen side's
    /// value or the value written for it; every field only one side changed keeps that
    /// change. The result is queued against the server's version of the record, so the
    /// next sync pushes it with `If-Match` (a server change made since merges again).
    ///
    /// Refused, with nothing changed (`FieldDecisionError`): a field no version has, a
    /// field that does not clash, a clashing field left without a choice, a written value
    /// of the wrong kind, a result the collection's rules refuse (an empty title), and a
    /// per-field choice on a deletion clash (settled whole with `keep`).
    @discardableResult
    public func resolve(_ collection: CollectionName, id: String, _ decisions: ConflictDecisions) throws -> Resolution {
        try store.write { tx in
            guard let conflict = try tx.conflict(collection, id: id) else {
                throw ResolutionError.noConflict(collection: collection, id: id)
            }
            let detail = try Self.detail(of: conflict, in: tx)
            if detail.deletedHere || detail.deletedOnServer {
                guard decisions.fields.isEmpty, let side = decisions.others else {
                    throw FieldDecisionError.wholeRecordClash(kind: detail.summary.kind)
                }
                try Self.settle(conflict, keep: side, in: tx)
                return Resolution(collection: collection, recordID: id, fields: [:], wholeRecord: side, queued: side == .local)
            }
            let values = try Self.values(try decisions.naming(collection), for: detail)
            return try Self.apply(values, to: conflict, in: tx)
        }
    }

    /// Each clashing field's value (nil: the field goes), after checking the decisions fit.
    private static func values(
        _ decisions: ConflictDecisions, for detail: ConflictDetail
    ) throws(FieldDecisionError) -> [String: (value: JSONValue?, taken: Resolution.Taken)] {
        let clashing = detail.clashingFields
        for name in decisions.fields.keys.sorted() where !clashing.contains(name) {
            guard detail.knownFields.contains(name) else { throw .unknownField(name, known: detail.knownFields) }
            throw .notInConflict(name, clashing: clashing)
        }
        let undecided = clashing.filter { decisions.fields[$0] == nil }
        if !undecided.isEmpty, decisions.others == nil { throw .undecided(undecided) }

        var values: [String: (value: JSONValue?, taken: Resolution.Taken)] = [:]
        for field in detail.fields where field.isClash {
            switch decisions.fields[field.name] ?? decisions.others.map(ConflictDecisions.Choice.keep) {
            case .keep(.local)?: values[field.name] = (field.local, .local)
            case .keep(.remote)?: values[field.name] = (field.server, .remote)
            case .written(let text)?:
                let kind = FieldValueText.kind(of: [field.base, field.local, field.server])
                values[field.name] = (try FieldValueText.value(text, field: field.name, kind: kind), .written)
            case nil: throw .undecided([field.name])
            }
        }
        return values
    }

    private static func apply(
        _ values: [String: (value: JSONValue?, taken: Resolution.Taken)], to conflict: Conflict, in tx: StoreTransaction
    ) throws -> Resolution {
        let collection = conflict.collection, id = conflict.recordID
        let versions = try versions(of: conflict, in: tx)
        guard let local = versions.local, let remoteFields = versions.remote, let remote = remoteRecord(conflict) else {
            throw ResolutionError.noConflict(collection: collection, id: id)
        }
        let (outcome, _) = ThreeWayMerge.merge(
            base: versions.base, sent: versions.sent, local: local, remote: remoteFields,
            decide: { field, _, _ in values[field]?.value })
        let waiting = try tx.outboxEntry(collection, id: id)
        var queued = false
        switch outcome {
        case .push(let content?):
            let merged = try RecordJSON.data(content, id: id)
            do {
                try RecordRules.check(collection, id: id, json: merged)
            } catch {
                throw FieldDecisionError.refusedByRules(error.description)
            }
            if waiting != nil {
                try SyncRules(tx).rebasePendingChange(collection, id: id, onto: remote, merged: merged)
            } else {
                _ = try SyncRules(tx).applyPulled(remote, to: collection)
                try tx.saveLocal(collection, id: id, json: merged)
            }
            queued = true
        case .alreadyEqual, .acceptRemote, .push(nil), .conflict:
            if waiting != nil { try SyncRules(tx).discardLocalChange(collection, id: id) }
            _ = try SyncRules(tx).applyPulled(remote, to: collection)
        }
        _ = try tx.removeConflict(collection, id: id)
        return Resolution(collection: collection, recordID: id, fields: values.mapValues(\.taken), queued: queued)
    }
}

// MARK: - FieldDecisionError

/// Decisions that do not fit the conflict they are for; nothing was changed.
public enum FieldDecisionError: Error, Hashable, Sendable, CustomStringConvertible {
    case unknownField(String, known: [String])
    case notInConflict(String, clashing: [String])
    case undecided([String])
    case badValue(field: String, text: String, expected: String)
    case refusedByRules(String)
    case wholeRecordClash(kind: MergeConflict.Kind)
    /// A field named twice (under its wire name and its Domain name).
    case givenTwice(String)

    public var description: String {
        switch self {
        case .unknownField(let field, let known):
            "the record has no field '\(field)' (its fields: \(known.joined(separator: ", ")))"
        case .notInConflict(let field, let clashing):
            "field '\(field)' is not in conflict (only \(Self.list(clashing)) \(clashing.count == 1 ? "is" : "are")); "
                + "fields only one side changed keep that change"
        case .undecided(let fields):
            "no choice for \(Self.list(fields)): name \(fields.count == 1 ? "it" : "each") with --field or --set, "
                + "or give --keep local|remote for the rest"
        case .badValue(let field, let text, let expected):
            "value '\(text)' for field '\(field)' is not \(expected)"
        case .refusedByRules(let reason):
            "the resolved record would break a rule: \(reason)"
        case .givenTwice(let field):
            "field '\(field)' is given twice: choose one value for it"
        case .wholeRecordClash(let kind):
            "\(kind == .deleteVersusEdit ? "deleted here and edited on the server" : "edited here and deleted on the server"): "
                + "a deletion is settled as a whole, with --keep local|remote"
        }
    }

    private static func list(_ fields: [String]) -> String {
        fields.map { "'\($0)'" }.joined(separator: ", ")
    }
}
