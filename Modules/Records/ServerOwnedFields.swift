import Domain

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
