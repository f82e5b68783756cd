import Vocabulary

// MARK: - ServerOwnedFields

/// The members of a record the server owns, listed once: Kinto sets them on every
/// write, and a body that carries them is either ignored (`id`, named by the URL) or,
/// worse, taken as the truth (a stale `last_modified` becomes the record's timestamp).
public enum ServerOwnedFields {
    /// `id`, `last_modified` and `deleted` (tombstones).
    public static let names: Set<String> = ["id", "last_modified", "deleted"]

    /// Drops every member the server owns: what a push sends.
    public static func removeAll(from fields: inout [String: JSONValue]) {
        for name in names { fields.removeValue(forKey: name) }
    }

    /// Drops the server's stamp only, keeping `id`, which a local write checks against
    /// the record it names: what an edit that starts from a stored record keeps of it.
    public static func removeStamp(from fields: inout [String: JSONValue]) {
        fields.removeValue(forKey: "last_modified")
    }
}

// MARK: - VersionFields

/// The members Shelf's sync engine keeps in a record to tell its versions apart, named
/// once for every module that reads or writes them. They are bookkeeping, never the
/// reader's data: merges, screens, search and exports leave them out.
public enum VersionFields {
    /// The revision ids of the last writes, oldest first (`RecordLineage`).
    public static let lineage = "_shelf_revs"
    /// The version's sequence number on an encrypted account: one more than the version
    /// it was made from. Sealed in the envelope's authenticated data (`seq`), and put back
    /// into the record's fields when it is opened; a record in the clear never carries it.
    public static let sequence = "_shelf_seq"
    /// Marks a sealed record's content as the reader's deletion.
    public static let deletion = "_shelf_deleted"

    /// Every one of them.
    public static let names: Set<String> = [lineage, sequence, deletion]
}
