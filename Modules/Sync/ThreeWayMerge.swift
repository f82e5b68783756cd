import Domain
import Records
import Storage

// MARK: - ThreeWayMerge

/// Merges a local edit with a server change, field by field, against the version both
/// started from (the base).
///
/// A record is a JSON object; `nil` stands for "deleted" (or, for the base, "never seen
/// on the server"). Server bookkeeping (`id`, `last_modified`) and the write lineage
/// (`RecordLineage`) never count as a change.
/// For each field: equal on both sides → that value; changed on one side only → that
/// side's value; changed differently on both → a clash, which `policy` settles or, under
/// `.manual`, turns the whole record into a conflict. Deleting a record that the other
/// side edited is a clash too. The merge never drops a change silently: every outcome
/// either carries both sides' changes or is a conflict that keeps them.
public enum ThreeWayMerge {
    /// Fields the server owns, and the lineage the sync engine keeps: they never take
    /// part in a merge. A merged record gets its lineage when it is next pushed, from
    /// the server version it was merged onto (the descendant's list).
    public static let bookkeepingFields: Set<String> = ServerOwnedFields.names.union(VersionFields.names)

    ///
    /// - Parameter sent: what this device sent last for the record when the server's
    ///   answer is not known (an update in flight). The server holds either the base or
    ///   this, plus whatever others changed: a field whose server value is either of the
    ///   two was not changed by anyone else, so the local value stands.
    public static func merge(
        base: [String: JSONValue]?, sent: [String: JSONValue]? = nil, local: [String: JSONValue]?,
        remote: [String: JSONValue]?, policy: ConflictPolicy
    ) -> MergeOutcome {
        let base = base.map(content)
        let sent = sent.map(content)
        let local = local.map(content)
        let remote = remote.map(content)

        if local == remote { return .alreadyEqual }

        switch (local, remote) {
        case (nil, nil):
            return .alreadyEqual
        case (nil, let remote?):
            // Deleted here. If the server did not change the record since, the delete stands.
            if remote == base || (sent != nil && remote == sent) { return .push(nil) }
            return settle(.deleteVersusEdit, fields: [], policy: policy, local: nil, remote: remote)
        case (let local?, nil):
            // Deleted on the server. If there was no local change, follow the server.
            if local == base { return .acceptRemote }
            return settle(.editVersusDelete, fields: [], policy: policy, local: local, remote: nil)
        case (let local?, let remote?):
            return mergeFields(base: base ?? [:], sent: sent, local: local, remote: remote, policy: policy)
        }
    }

    /// Whether two versions hold the same content, server bookkeeping aside.
    public static func sameContent(_ a: [String: JSONValue]?, _ b: [String: JSONValue]?) -> Bool {
        a.map(content) == b.map(content)
    }

    // MARK: Fields

    private static func mergeFields(
        base: [String: JSONValue], sent: [String: JSONValue]?, local: [String: JSONValue], remote: [String: JSONValue],
        policy: ConflictPolicy
    ) -> MergeOutcome {
        let (merged, clashes) = combine(base: base, sent: sent, local: local, remote: remote) { _, l, r in
            policy == .clientWins ? l : r
        }
        if !clashes.isEmpty, policy == .manual {
            return .conflict(MergeConflict(kind: .fields, fields: clashes))
        }
        if merged == remote { return .acceptRemote }
        return .push(merged)
    }

    /// Every field's merged value: equal or changed on one side only → that value; a clash
    /// → what `settle` says (nil removes the field). - Returns: the merged content and
    /// the clashing fields, sorted.
    static func combine(
        base: [String: JSONValue], sent: [String: JSONValue]?, local: [String: JSONValue], remote: [String: JSONValue],
        settle: (_ field: String, _ local: JSONValue?, _ remote: JSONValue?) -> JSONValue?
    ) -> (merged: [String: JSONValue], clashes: [String]) {
        var merged: [String: JSONValue] = [:]
        var clashes: [String] = []
        for key in Set(base.keys).union(local.keys).union(remote.keys).sorted() {
            let b = base[key], l = local[key], r = remote[key]
            let value: JSONValue?
            if l == r {
                value = l
            } else if r == b || (sent != nil && r == sent?[key]) {
                value = l
            } else if l == b {
                value = r
            } else {
                clashes.append(key)
                value = settle(key, l, r)
            }
            if let value { merged[key] = value }
        }
        return (merged, clashes)
    }

    // MARK: Decided by a person

    /// Merges as `merge` does, but a clash of two edited versions is settled field by
    /// field as `decide` says (nil removes the field). A deletion on either side is not
    /// a clash of fields, and is not decided here.
    /// - Returns: the outcome, `.conflict` only for a delete clash; and the clashing
    ///   fields `decide` was asked about.
    public static func merge(
        base: [String: JSONValue]?, sent: [String: JSONValue]? = nil, local: [String: JSONValue],
        remote: [String: JSONValue], decide: (_ field: String, _ local: JSONValue?, _ remote: JSONValue?) -> JSONValue?
    ) -> (outcome: MergeOutcome, clashes: [String]) {
        let remote = content(remote)
        let (merged, clashes) = combine(
            base: content(base ?? [:]), sent: sent.map(content), local: content(local), remote: remote, settle: decide)
        return (merged == remote ? .acceptRemote : .push(merged), clashes)
    }

    /// The record without the fields that never take part in a merge.
    public static func content(_ record: [String: JSONValue]) -> [String: JSONValue] {
        record.filter { !bookkeepingFields.contains($0.key) }
    }

    private static func settle(
        _ kind: MergeConflict.Kind, fields: [String], policy: ConflictPolicy,
        local: [String: JSONValue]?, remote: [String: JSONValue]?
    ) -> MergeOutcome {
        switch policy {
        case .manual: return .conflict(MergeConflict(kind: kind, fields: fields))
        case .serverWins: return .acceptRemote
        case .clientWins: return .push(local)
        }
    }

}

// MARK: - MergeOutcome

/// What the sync engine does after a merge.
public enum MergeOutcome: Equatable, Sendable {
    /// Both sides already agree: adopt the server's record, drop the pending change.
    case alreadyEqual
    /// The server's record is the result: adopt it, drop the pending change.
    case acceptRemote
    /// Push this content (nil: a delete) against the server's current version.
    case push([String: JSONValue]?)
    /// A clash the policy leaves to a person: store it, keep the local edit unpushed.
    case conflict(MergeConflict)
}

// MARK: - MergeConflict

/// A clash that needs a decision.
public struct MergeConflict: Equatable, Sendable, Codable {
    public enum Kind: String, Equatable, Sendable, Codable {
        /// Both sides changed the same field(s) differently.
        case fields
        /// Deleted here, edited on the server.
        case deleteVersusEdit = "delete-vs-edit"
        /// Edited here, deleted on the server.
        case editVersusDelete = "edit-vs-delete"
    }

    public let kind: Kind
    /// The clashing fields (empty for a delete clash).
    public let fields: [String]

    public init(kind: Kind, fields: [String]) {
        self.kind = kind
        self.fields = fields
    }
}
