import Domain

// MARK: - Which server versions the store holds

/// The queries behind a pull that reaches back over records it may already hold, and
/// behind a comparison with the server's whole list: which version of each record
/// (its server `last_modified`) this store has.
///
/// A row's `last_modified` is the server version it is based on: a local edit keeps it,
/// a local deletion keeps it on the hidden row until the deletion is pushed, and a
/// record created here and never acknowledged has none. A waiting change may have been
/// rebased onto a later version (its outbox entry's base, or the tombstone a create
/// puts the record back over), and a conflict names the server version it was found
/// against: those versions are known here too.
extension StoreReader {
    /// The newest server version this store knows of each of `ids` (rows waiting for a
    /// pushed deletion included, and on an encrypted account the sealed deletions it saw
    /// and the deletions the server made alone that it refused); ids it knows no server
    /// version of are absent from the answer.
    public func serverStamps(_ collection: CollectionName, ids: some Sequence<String>) throws(StorageError) -> [String: Int64] {
        var stamps: [String: Int64] = [:]
        // NB: one look per call at the encrypted account's memory: when it holds nothing of
        // this collection (every account in the clear), each id is one query of the row.
        let sql = try holdsIntegrityMemory(collection) ? Self.serverStampWithMemorySQL : Self.serverStampSQL
        for id in ids {
            let stamp = try db.queryFirst(
                sql, [.text(collection.rawValue), .text(id)],
                operation: "read the server version of a \(collection.rawValue) record"
            ) { $0.int64(0) }
            if let stamp, stamp >= 0 { stamps[id] = stamp }
        }
        return stamps
    }

    /// -1 when no version is known: Kinto's timestamps are never negative.
    private static let serverStampSQL = """
        SELECT max(coalesce(r.last_modified, -1), coalesce(o.base_last_modified, -1), coalesce(o.server_tombstone, -1),
                   coalesce(c.remote_last_modified, -1))
        FROM records r
        LEFT JOIN outbox o ON o.collection = r.collection AND o.record_id = r.id
        LEFT JOIN conflicts c ON c.collection = r.collection AND c.record_id = r.id
        WHERE r.collection = ?1 AND r.id = ?2
        """

    /// The same, and the sealed deletions and the server's lone deletions remembered.
    private static let serverStampWithMemorySQL = """
        SELECT max(
            coalesce((SELECT max(coalesce(r.last_modified, -1), coalesce(o.base_last_modified, -1), coalesce(o.server_tombstone, -1),
                                 coalesce(c.remote_last_modified, -1))
                      FROM records r
                      LEFT JOIN outbox o ON o.collection = r.collection AND o.record_id = r.id
                      LEFT JOIN conflicts c ON c.collection = r.collection AND c.record_id = r.id
                      WHERE r.collection = ?1 AND r.id = ?2), -1),
            coalesce((SELECT last_modified FROM sealed_deletions WHERE collection = ?1 AND id = ?2), -1),
            coalesce((SELECT last_modified FROM server_deletions WHERE collection = ?1 AND id = ?2), -1))
        """

    /// Whether an encrypted account's memory holds anything of `collection`.
    private func holdsIntegrityMemory(_ collection: CollectionName) throws(StorageError) -> Bool {
        try db.queryFirst(
            """
            SELECT EXISTS (SELECT 1 FROM sealed_deletions WHERE collection = ?1)
                OR EXISTS (SELECT 1 FROM server_deletions WHERE collection = ?1)
            """,
            [.text(collection.rawValue)], operation: "look for remembered deletions"
        ) { $0.bool(0) } ?? false
    }

    /// How many records of `collection` this store holds a server version of: the
    /// records the server has, as far as this store knows (rows waiting for a pushed
    /// deletion included, records never acknowledged not).
    public func serverKnownCount(_ collection: CollectionName) throws(StorageError) -> Int {
        try db.queryFirst(
            "SELECT count(*) FROM records WHERE collection = ? AND last_modified IS NOT NULL", [.text(collection.rawValue)],
            operation: "count the server's \(collection.rawValue) records this store holds"
        ) { $0.int(0) } ?? 0
    }
}
