import Domain
import Foundation

// MARK: - What a device has seen of each record

/// The version of a record this store holds, as the rules against a hostile server
/// compare a pulled version with it (Modules/Sync/Encryption, `IntegrityGate`): its
/// sequence number and lineage revision, whether a change waits, and what is
/// remembered of its sealed deletion.
///
/// The sequence number is the `_shelf_seq` member of the server version held — the
/// base snapshot while a change waits, else the row — which only a sealed version has
/// (an opened one carries it; a version in the clear never does), so it also says
/// whether this device has seen the record sealed.
public struct HeldVersion: Sendable, Equatable {
    /// `_shelf_seq` of the server version held; nil for none or one that came in the clear.
    public var sequence: Int64?
    /// The last revision id of that version's lineage.
    public var revision: String?
    /// A row is here (live, or hidden with its deletion waiting).
    public var hasRow: Bool
    /// The row is hidden: the reader deleted it and the deletion waits.
    public var deletedHere: Bool
    /// A local change of the record waits in the outbox.
    public var waiting: Bool
    /// The record's sealed deletion, when this device saw one.
    public var removal: SealedDeletion?

    public init(sequence: Int64? = nil, revision: String? = nil, hasRow: Bool = false, deletedHere: Bool = false,
                waiting: Bool = false, removal: SealedDeletion? = nil) {
        self.sequence = sequence
        self.revision = revision
        self.hasRow = hasRow
        self.deletedHere = deletedHere
        self.waiting = waiting
        self.removal = removal
    }

    /// Whether this device has seen a sealed version of the record (live or its deletion).
    public var seenSealed: Bool { sequence != nil || removal != nil }
}

/// A reader's deletion of a record, sealed, as this device saw it.
public struct SealedDeletion: Sendable, Equatable {
    public var sequence: Int64
    public var revision: String?
    public var lastModified: Int64

    public init(sequence: Int64, revision: String?, lastModified: Int64) {
        self.sequence = sequence
        self.revision = revision
        self.lastModified = lastModified
    }
}

/// A record the server deleted without the reader, kept here (`shelf encryption put-back`).
public struct ServerDeletion: Sendable, Equatable {
    public var collection: CollectionName
    public var id: String
    /// The tombstone's stamp.
    public var lastModified: Int64
    public var noticedAt: Date
}

// MARK: - Reading

extension StoreReader {
    /// The held version of each of `ids`; ids with neither a row nor a remembered
    /// deletion are absent.
    ///
    /// Two statements for the whole set, not one per id: a first pull loads its pages
    /// with the records' id index dropped (`IdentityIndex`), where a look-up by id scans
    /// the collection, so a statement per id made a 100,000-record sealed first sync
    /// quadratic (minutes of SQLite page reads). With the index each id is an index
    /// look-up. Without it — a bulk load under way, where the collection holds only the
    /// rows the load inserted — only ids the load may have inserted are looked up (none,
    /// but for a record that came twice in one pull), so a page costs no scan.
    public func heldVersions(_ collection: CollectionName, ids: some Sequence<String>) throws(StorageError) -> [String: HeldVersion] {
        // NB: an id given twice is looked up once: `IN` over `json_each` is a set.
        let wanted = Array(ids)
        guard !wanted.isEmpty else { return [:] }
        var held: [String: HeldVersion] = [:]
        var rowIDs = wanted
        // NB: the load's rows are the collection's only ones while the index is out: a load
        // starts on a store that holds none of the collection, and any other writer builds
        // the index before it writes (`BulkLoad`).
        if let load = bulkLoadUnderWay, load.isLoading, try !IdentityIndex.isPresent(db) {
            rowIDs = wanted.filter(load.mayHaveInserted)
        }
        let rows = rowIDs.isEmpty ? [] : try db.query(
            Self.heldVersionsSQL, [.text(collection.rawValue), .text(Self.jsonArray(rowIDs))],
            operation: "read the held versions of \(rowIDs.count) \(collection.rawValue) records"
        ) { row in
            (row.text(0), HeldVersion(
                sequence: row.isNull(2) ? nil : row.int64(2), revision: row.isNull(3) ? nil : row.text(3), hasRow: true,
                deletedHere: row.bool(1), waiting: row.bool(4)))
        }
        for (id, version) in rows { held[id] = version }
        // NB: no list of ids for a table that holds none of the collection (a first pull).
        guard try remembersSealedDeletions(in: collection) else { return held }
        let removals = try db.query(
            "SELECT id, seq, revision, last_modified FROM sealed_deletions WHERE collection = ?1 AND id IN (SELECT value FROM json_each(?2))",
            [.text(collection.rawValue), .text(Self.jsonArray(wanted))], operation: "read the sealed deletions of \(wanted.count) \(collection.rawValue) records"
        ) { row in
            (row.text(0), SealedDeletion(sequence: row.int64(1), revision: row.isNull(2) ? nil : row.text(2), lastModified: row.int64(3)))
        }
        for (id, removal) in removals {
            var version = held[id] ?? HeldVersion()
            version.removal = removal
            held[id] = version
        }
        return held
    }

    /// NB: `json_extract` of a member that is not an integer gives something else than
    /// an integer, read as no sequence: only Shelf's opened records carry the member.
    static let heldVersionsSQL = """
        SELECT r.id, r.deleted,
               CASE WHEN json_type(coalesce(b.json, r.json), '$._shelf_seq') = 'integer'
                    THEN json_extract(coalesce(b.json, r.json), '$._shelf_seq') END,
               CASE WHEN json_type(coalesce(b.json, r.json), '$._shelf_revs[#-1]') = 'text'
                    THEN json_extract(coalesce(b.json, r.json), '$._shelf_revs[#-1]') END,
               o.seq IS NOT NULL
        FROM records r
        LEFT JOIN base_snapshots b ON b.collection = r.collection AND b.id = r.id
        LEFT JOIN outbox o ON o.collection = r.collection AND o.record_id = r.id
        WHERE r.collection = ?1 AND r.id IN (SELECT value FROM json_each(?2))
        """

    /// SQLite's plan for `heldVersions`, one line per step — to check that with the id
    /// index each id is an index look-up, never a scan of the collection.
    func heldVersionsPlan() throws(StorageError) -> [String] {
        try db.query(
            "EXPLAIN QUERY PLAN " + Self.heldVersionsSQL, [.text("books"), .text(#"["abcd","efgh"]"#)], operation: "explain"
        ) { $0.text(3) }
    }

    /// Whether this store holds anything a pulled version of `collection` could be
    /// compared with: a row or a remembered deletion. One look per page, so a first
    /// pull needs no look-up per record.
    public func holdsAnyVersion(in collection: CollectionName) throws(StorageError) -> Bool {
        try db.queryFirst(
            """
            SELECT EXISTS (SELECT 1 FROM records WHERE collection = ?1)
                OR EXISTS (SELECT 1 FROM sealed_deletions WHERE collection = ?1)
            """,
            [.text(collection.rawValue)], operation: "look for held \(collection.rawValue) versions"
        ) { $0.bool(0) } ?? false
    }

    /// Whether a sealed deletion of a `collection` record is remembered.
    public func remembersSealedDeletions(in collection: CollectionName) throws(StorageError) -> Bool {
        try db.queryFirst(
            "SELECT EXISTS (SELECT 1 FROM sealed_deletions WHERE collection = ?1)",
            [.text(collection.rawValue)], operation: "look for sealed \(collection.rawValue) deletions"
        ) { $0.bool(0) } ?? false
    }

    /// Whether anything is remembered of a `collection` record's deletion: a sealed
    /// deletion, or one the server made without the reader.
    public func remembersDeletions(in collection: CollectionName) throws(StorageError) -> Bool {
        try db.queryFirst(
            """
            SELECT EXISTS (SELECT 1 FROM sealed_deletions WHERE collection = ?1)
                OR EXISTS (SELECT 1 FROM server_deletions WHERE collection = ?1)
            """,
            [.text(collection.rawValue)], operation: "look for remembered \(collection.rawValue) deletions"
        ) { $0.bool(0) } ?? false
    }

    /// The sealed deletion remembered for `id`.
    public func sealedDeletion(_ collection: CollectionName, id: String) throws(StorageError) -> SealedDeletion? {
        try db.queryFirst(
            "SELECT seq, revision, last_modified FROM sealed_deletions WHERE collection = ? AND id = ?",
            [.text(collection.rawValue), .text(id)], operation: "read a sealed deletion"
        ) { row in SealedDeletion(sequence: row.int64(0), revision: row.isNull(1) ? nil : row.text(1), lastModified: row.int64(2)) }
    }

    /// Every sealed deletion remembered in `collection`, by id.
    public func sealedDeletions(in collection: CollectionName) throws(StorageError) -> [String: SealedDeletion] {
        var deletions: [String: SealedDeletion] = [:]
        _ = try db.query(
            "SELECT id, seq, revision, last_modified FROM sealed_deletions WHERE collection = ? ORDER BY id",
            [.text(collection.rawValue)], operation: "list sealed deletions"
        ) { row in
            deletions[row.text(0)] = SealedDeletion(sequence: row.int64(1), revision: row.isNull(2) ? nil : row.text(2), lastModified: row.int64(3))
        }
        return deletions
    }

    /// The records the server deleted without the reader, oldest noticed first.
    public func serverDeletions(in collection: CollectionName? = nil) throws(StorageError) -> [ServerDeletion] {
        var deletions: [ServerDeletion] = []
        let filter = collection.map { [SQLiteValue.text($0.rawValue)] } ?? []
        _ = try db.query(
            "SELECT collection, id, last_modified, noticed_at FROM server_deletions \(collection == nil ? "" : "WHERE collection = ?") ORDER BY noticed_at, collection, id",
            filter, operation: "list the server's deletions"
        ) { row in
            guard let name = CollectionName(rawValue: row.text(0)) else { return }
            deletions.append(ServerDeletion(collection: name, id: row.text(1), lastModified: row.int64(2), noticedAt: row.date(3)))
        }
        return deletions
    }
}

// MARK: - Writing

extension StoreTransaction {
    /// Remembers a sealed deletion of `id` (the newer one when one is remembered already).
    public func rememberSealedDeletion(_ collection: CollectionName, id: String, _ deletion: SealedDeletion) throws(StorageError) {
        try db.run(
            """
            INSERT INTO sealed_deletions (collection, id, seq, revision, last_modified) VALUES (?, ?, ?, ?, ?)
            ON CONFLICT (collection, id) DO UPDATE SET seq = excluded.seq, revision = excluded.revision, last_modified = excluded.last_modified
            WHERE excluded.seq >= sealed_deletions.seq
            """,
            [.text(collection.rawValue), .text(id), .integer(deletion.sequence), .text(deletion.revision), .integer(deletion.lastModified)],
            operation: "remember a sealed deletion")
    }

    /// Forgets a sealed deletion: a newer live version of the record is held now.
    public func forgetSealedDeletion(_ collection: CollectionName, id: String) throws(StorageError) {
        try db.run(
            "DELETE FROM sealed_deletions WHERE collection = ? AND id = ?", [.text(collection.rawValue), .text(id)],
            operation: "forget a sealed deletion")
    }

    /// Remembers that the server deleted `id` without the reader (its tombstone's stamp).
    public func noteServerDeletion(_ collection: CollectionName, id: String, lastModified: Int64) throws(StorageError) {
        try db.run(
            """
            INSERT INTO server_deletions (collection, id, last_modified, noticed_at) VALUES (?, ?, ?, ?)
            ON CONFLICT (collection, id) DO UPDATE SET last_modified = max(last_modified, excluded.last_modified)
            """,
            [.text(collection.rawValue), .text(id), .integer(lastModified), .date(clock.now())],
            operation: "note a deletion the server made alone")
    }

    /// Forgets a deletion the server made alone: uploaded again, or settled by a sealed version.
    public func forgetServerDeletion(_ collection: CollectionName, id: String) throws(StorageError) {
        try db.run(
            "DELETE FROM server_deletions WHERE collection = ? AND id = ?", [.text(collection.rawValue), .text(id)],
            operation: "forget a deletion the server made alone")
    }
}
