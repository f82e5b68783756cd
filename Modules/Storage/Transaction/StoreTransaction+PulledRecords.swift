import Domain
import Foundation
import Records

// MARK: - Storing pulled records

extension StoreTransaction {
    /// Stores pulled records as the server has them, in page order: a live record
    /// becomes the row, a tombstone removes it. Which records to store is the sync
    /// engine's decision (`SyncRules.applyPulled`); this is how a page is written fast.
    ///
    /// - Parameters:
    ///   - morePagesFollow: the pull goes on with more pages. When the page is large and
    ///     the store holds fewer records than it brings (a first pull of a big
    ///     collection), the listing indexes are dropped for the rest of the pull and
    ///     built again, from all the records at once, with its last page (the page
    ///     stored with `morePagesFollow` false); see `ListingIndexes`. Results of every
    ///     query are the same with or without them.
    ///   - mayLoadInBulk: the page was stored whole, with nothing held back or deleted
    ///     again: in a transaction that carries a `BulkLoad`, the records' id index may
    ///     then be left out the same way (`IdentityIndex`). False ends a load under way.
    public func storePulled(
        _ page: [RawRecord], in collection: CollectionName, morePagesFollow: Bool = false, mayLoadInBulk: Bool = true
    ) throws(StorageError) {
        let shape = PulledPageWrite.Page(
            count: page.count, hasTombstones: page.contains(where: \.isDeleted), morePagesFollow: morePagesFollow,
            mayLoadInBulk: mayLoadInBulk && bulkLoad != nil)
        let write = try PulledPageWrite(
            shape, loading: bulkLoad?.isLoading ?? false, storedEstimate: { () throws(StorageError) in try recordCountEstimate() },
            idIndexPresent: { () throws(StorageError) in try IdentityIndex.isPresent(db) },
            collectionHoldsRecords: { () throws(StorageError) in try holdsAnyRecord(of: collection) })
        if write.dropsListingIndexes { try ListingIndexes.drop(db) }
        // NB: `.bulkInsert` is only decided with a load (`mayLoadInBulk` above); without
        // one the page is upserted, which is always correct.
        if case .bulkInsert(let startsLoad) = write.rows, let bulkLoad {
            if startsLoad {
                try IdentityIndex.drop(db)
                bulkLoad.start()
            }
            try insertInBulk(page, into: collection, bulkLoad)
        } else {
            try endBulkLoad()
            if case .upsert(inKeyOrder: true) = write.rows {
                for remote in Self.inKeyOrder(page) { try storePulled(remote, in: collection) }
            } else {
                for remote in page { try storePulled(remote, in: collection) }
            }
        }
        if write.buildsIndexes {
            try endBulkLoad()
            try ListingIndexes.create(db)
        }
    }

    // MARK: Bulk loads

    /// Inserts the page without upserting; from an id the load inserted already, the
    /// index is built and the rest of the page upserted (the later version wins, as it
    /// does in page order).
    private func insertInBulk(_ page: [RawRecord], into collection: CollectionName, _ load: BulkLoad) throws(StorageError) {
        for (offset, remote) in page.enumerated() {
            guard load.insert(remote.id) else {
                try endBulkLoad()
                for later in page[offset...] { try storePulled(later, in: collection) }
                return
            }
            let indexing = try indexing(
                collection, id: remote.id, json: remote.json, requireID: false, scanned: remote.indexedFields)
            try insertRecord(
                collection, id: remote.id, json: remote.json, lastModified: remote.lastModified, indexing: indexing,
                operation: "load pulled \(collection.rawValue) record")
        }
    }

    /// Builds the id index if a bulk load left it out, which ends that load.
    func endBulkLoad() throws(StorageError) {
        if let bulkLoad, bulkLoad.isLoading { bulkLoad.stop() }
        try IdentityIndex.createIfMissing(db)
    }

    /// Whether the store has any row of `collection`, deleted or not.
    private func holdsAnyRecord(of collection: CollectionName) throws(StorageError) -> Bool {
        try db.queryFirst(
            "SELECT EXISTS (SELECT 1 FROM records WHERE collection = ?)", [.text(collection.rawValue)],
            operation: "look for stored \(collection.rawValue)"
        ) { $0.bool(0) } ?? false
    }

    /// A page's records in the order of the store's `(collection, id)` index.
    ///
    /// Kinto's ids are random, so in server order consecutive records land on leaves
    /// far apart. Once that index outgrows the page cache, a page in server order
    /// evicts leaves it comes back to later in the same transaction, and SQLite spills
    /// them to the WAL and reads them back; in key order each leaf is visited in one
    /// run (a million-record first sync: about a tenth less CPU). A store that small
    /// gains nothing from it, and the sort costs a little, so it is left to large ones.
    /// Records of one page have distinct ids, so nothing but their rowids depends on
    /// the order (an id given twice keeps its two versions' order).
    ///
    /// Sorted by each id's first eight UTF-8 bytes, then by the whole id: SQLite's
    /// BINARY order. Only positions are sorted, not the records.
    static func inKeyOrder(_ page: [RawRecord]) -> LazyMapSequence<[Int], RawRecord> {
        var keys = page.indices.map { index in (prefix: Self.sortPrefix(page[index].id), index: index) }
        keys.sort { left, right in
            if left.prefix != right.prefix { return left.prefix < right.prefix }
            let (leftID, rightID) = (page[left.index].id, page[right.index].id)
            // NB: a repeated id keeps its page order, so the later version wins.
            if leftID == rightID { return left.index < right.index }
            return leftID.utf8.lexicographicallyPrecedes(rightID.utf8)
        }
        return keys.map(\.index).lazy.map { page[$0] }
    }

    /// An id's first eight bytes as a big-endian number, zero-padded: comparing two of
    /// them compares the ids' first eight bytes.
    private static func sortPrefix(_ id: String) -> UInt64 {
        var prefix: UInt64 = 0
        var count = 0
        for byte in id.utf8 {
            guard count < 8 else { break }
            prefix = prefix << 8 | UInt64(byte)
            count += 1
        }
        return prefix << (8 * (8 - count))
    }

    /// Stores one pulled record as the server has it, or removes the row its tombstone
    /// names (with its base snapshot).
    public func storePulled(_ remote: RawRecord, in collection: CollectionName) throws(StorageError) {
        if remote.isDeleted {
            try removeRecord(collection, id: remote.id)
        } else {
            let indexing = try indexing(
                collection, id: remote.id, json: remote.json, requireID: false, scanned: remote.indexedFields)
            try writeRecord(
                collection, id: remote.id, json: remote.json, lastModified: remote.lastModified, deleted: false,
                indexing: indexing, operation: "apply pulled \(collection.rawValue) record"
            )
        }
    }

    /// The records table's highest rowid: at least its row count, read in O(1).
    private func recordCountEstimate() throws(StorageError) -> Int {
        try db.queryFirst("SELECT coalesce(max(rowid), 0) FROM records", operation: "estimate the record count") { $0.int(0) } ?? 0
    }
}
