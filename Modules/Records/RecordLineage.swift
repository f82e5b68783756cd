import Foundation
import Vocabulary

// MARK: - RecordLineage

/// The revision ids a record carries in its reserved field `_shelf_revs`: the last
/// writes Shelf made to it, oldest first, each write's own id appended to the list of
/// the version it was based on.
///
/// Kinto keeps no history and a write replaces the whole body, so without it a device
/// whose reply was lost cannot tell "the server applied my write and another device
/// changed the field afterwards, knowing it" from "another device changed the field
/// without ever seeing my write" — the first is no conflict, the second is. A pulled
/// record (or a 412's existing record) whose lineage names the id of a write in flight
/// descends from that write: it was applied, and the merge starts from what was sent.
///
/// The field belongs to the sync engine alone: Domain values, screens, search text and
/// merges never see it (`ThreeWayMerge` treats it as bookkeeping), and records without
/// it (other clients, an older Shelf) merge as before.
public enum RecordLineage {
    /// The reserved field's name on the wire.
    public static let field = VersionFields.lineage

    /// How many ids a record carries.
    ///
    /// A device only needs to find its own write in flight in the list, and the list
    /// loses that write once `limit` later writes by other devices landed before this
    /// device synced again — then the merge falls back to what it does for records
    /// without lineage (a clash on a field both changed is a conflict, never a lost
    /// edit). Sixteen writes to one record between two syncs of one device is far
    /// beyond how people edit a book or a note, and costs about 640 bytes per record.
    public static let limit = 16

    /// Ids longer than this are not Shelf's (a UUID is 36 characters) and are ignored.
    public static let maximumIDLength = 64

    // MARK: Reading

    /// The ids in a record's fields, oldest first: at most the last `limit` well-formed
    /// ones; empty when the record has no lineage or it is not a list of strings.
    public static func ids(in fields: [String: JSONValue]?) -> [String] {
        guard case .array(let values)? = fields?[field] else { return [] }
        let ids = values.compactMap { value -> String? in
            guard case .string(let id) = value, !id.isEmpty, id.utf8.count <= maximumIDLength else { return nil }
            return id
        }
        return Array(ids.suffix(limit))
    }

    /// The ids in a record's JSON; empty when it has none or is not a JSON object.
    public static func ids(in json: Data?) -> [String] {
        guard let json, let fields = try? WireJSON.fields(json) else { return [] }
        return ids(in: fields)
    }

    /// Whether a record's lineage names the write `id`.
    public static func descends(_ fields: [String: JSONValue]?, from id: String) -> Bool {
        ids(in: fields).contains(id)
    }

    // MARK: Writing

    /// The lineage of a new write: its id appended to the list of the version it was
    /// based on, keeping the last `limit`.
    public static func appending(_ id: String, to parents: [String]) -> [String] {
        Array((parents.filter { $0 != id } + [id]).suffix(limit))
    }

    /// A new revision id: random, so two devices never make the same one.
    public static func newID() -> String {
        UUID().uuidString.lowercased()
    }
}
