import Domain
import Foundation
import Storage

// MARK: - ConflictDetail

/// One conflict field by field, as a person judges it (`shelf conflicts show`): for
/// every field that differs, its value in the common base, here and on the server,
/// whether it clashes, and what the merge keeps when it does not.
///
/// It is worked out as `resolve` will work it out — against the record as it is here
/// now (an edit made after the sync that found the conflict counts) and, for a change
/// whose answer never came, against what was sent — so the fields it calls clashing are
/// exactly those a resolution must decide.
public struct ConflictDetail: Hashable, Sendable {
    public var summary: ConflictSummary
    /// The record is deleted here (a `delete-vs-edit` clash).
    public var deletedHere: Bool
    /// The server deleted the record (an `edit-vs-delete` clash).
    public var deletedOnServer: Bool
    /// The fields that differ between any two of the versions, by wire name.
    public var fields: [FieldVersions]

    /// The clashing fields (those a per-field resolution must decide).
    public var clashingFields: [String] { fields.filter(\.isClash).map(\.name) }

    /// Every field name any version has (what `--field` and `--set` may name at all).
    public var knownFields: [String]

    public init(summary: ConflictSummary, deletedHere: Bool, deletedOnServer: Bool, fields: [FieldVersions], knownFields: [String]) {
        self.summary = summary
        self.deletedHere = deletedHere
        self.deletedOnServer = deletedOnServer
        self.fields = fields
        self.knownFields = knownFields
    }
}

// MARK: - FieldVersions

/// One field's three values; nil where the version does not have the field (or is a
/// deletion).
public struct FieldVersions: Hashable, Sendable {
    public enum Outcome: String, Hashable, Sendable {
        /// Only this device changed it: the local value stays.
        case local
        /// Only the server's side changed it: the server's value stays.
        case server
        /// Changed differently on both sides: a person decides.
        case clash
    }

    public var name: String
    public var base: JSONValue?
    public var local: JSONValue?
    public var server: JSONValue?
    public var outcome: Outcome

    public var isClash: Bool { outcome == .clash }

    public init(name: String, base: JSONValue?, local: JSONValue?, server: JSONValue?, outcome: Outcome) {
        self.name = name
        self.base = base
        self.local = local
        self.server = server
        self.outcome = outcome
    }
}

// MARK: - Building

extension ConflictResolver {
    /// The conflict on one record, field by field.
    /// - Throws: `ResolutionError.noConflict` when the record has none.
    public func detail(_ collection: CollectionName, id: String) throws -> ConflictDetail {
        try store.read { reader in
            guard let conflict = try reader.conflict(collection, id: id) else {
                throw ResolutionError.noConflict(collection: collection, id: id)
            }
            return try Self.detail(of: conflict, in: reader)
        }
    }

    /// The versions a resolution merges: the base (what was sent, for a change in
    /// flight the server's record descends from), this device's record now, the server's.
    struct ResolutionVersions {
        var base: [String: JSONValue]?
        var sent: [String: JSONValue]?
        var local: [String: JSONValue]?
        var remote: [String: JSONValue]?
    }

    static func versions(of conflict: Conflict, in reader: StoreReader) throws -> ResolutionVersions {
        let waiting = try reader.outboxEntry(conflict.collection, id: conflict.recordID)
        let row = try reader.record(conflict.collection, id: conflict.recordID, includingDeleted: true)
        let local = row.flatMap { $0.isDeleted ? nil : $0.json }
        let versions = try MergeApplier.versions(waiting, base: conflict.base, remote: conflict.remote)
        return ResolutionVersions(
            base: versions.base, sent: versions.sent, local: try RecordJSON.fields(local),
            remote: try RecordJSON.fields(conflict.remote))
    }

    static func detail(of conflict: Conflict, in reader: StoreReader) throws -> ConflictDetail {
        let versions = try versions(of: conflict, in: reader)
        let base = versions.base.map(ThreeWayMerge.content) ?? [:]
        let local = versions.local.map(ThreeWayMerge.content)
        let remote = versions.remote.map(ThreeWayMerge.content)

        var clashes: Set<String> = []
        var kind = MergeConflict.Kind.fields
        if let local, let remote {
            clashes = Set(ThreeWayMerge.merge(
                base: base, sent: versions.sent, local: local, remote: remote, decide: { _, _, _ in nil }).clashes)
        } else {
            kind = local == nil ? .deleteVersusEdit : .editVersusDelete
        }

        let names = Set(base.keys).union(local.map { Array($0.keys) } ?? []).union(remote.map { Array($0.keys) } ?? []).sorted()
        var fields: [FieldVersions] = []
        for name in names {
            let b = base[name], l = local?[name], r = remote?[name]
            let localDiffers = local != nil && l != b
            let remoteDiffers = remote != nil && r != b
            guard localDiffers || remoteDiffers || (local != nil && remote != nil && l != r) else { continue }
            let outcome: FieldVersions.Outcome
            if clashes.contains(name) {
                outcome = .clash
            } else if local == nil || remote == nil {
                // NB: a deletion clashes as a whole; a field shows which side changed it.
                outcome = localDiffers ? .local : .server
            } else if l == r || r == b || (versions.sent != nil && r == versions.sent?[name]) {
                outcome = .local
            } else {
                outcome = .server
            }
            fields.append(FieldVersions(name: name, base: b, local: l, server: r, outcome: outcome))
        }
        let summary = ConflictSummary(
            collection: conflict.collection, recordID: conflict.recordID, kind: kind, fields: clashes.sorted(),
            label: RecordLabel.of(local) ?? RecordLabel.of(remote) ?? RecordLabel.of(base), detectedAt: conflict.detectedAt)
        return ConflictDetail(
            summary: summary, deletedHere: local == nil, deletedOnServer: remote == nil, fields: fields, knownFields: names)
    }
}
