// MARK: - PulledPageWrite

/// How a pulled page goes into the store, decided as a value: whether the listing indexes
/// are dropped for the rest of a pull, whether the rows go in as part of a bulk load
/// (without the records' id index, `BulkLoad`) or are upserted, and whether the indexes
/// are built once the page is in. Nothing here runs SQL: the decision reads what it needs
/// of the store through the closures it is given, only when the page's shape asks for it,
/// so it is tested table by table without a store (`PulledPageWriteTests`).
/// `StoreTransaction.storePulled(_:in:morePagesFollow:mayLoadInBulk:)` asks for it and
/// carries it out; which records a page stores is the sync engine's decision, not this.
struct PulledPageWrite: Equatable {
    /// How the page's rows are written.
    enum Rows: Equatable {
        /// Inserted without the id index, each id at most once (`BulkLoad.insert`);
        /// `startsLoad`: the index is dropped and the load started first.
        case bulkInsert(startsLoad: Bool)
        /// Upserted one by one with the id index there (built first when a load left it
        /// out, which ends the load); `inKeyOrder` for a large store (`inKeyOrder`).
        case upsert(inKeyOrder: Bool)
    }

    /// The page as the decision sees it.
    struct Page: Equatable {
        var count: Int
        var hasTombstones: Bool
        /// More pages of the same pull follow this one.
        var morePagesFollow: Bool
        /// The page may go in as part of a bulk load: the caller stores it whole, with
        /// nothing held back or deleted again, in a transaction that carries a `BulkLoad`.
        var mayLoadInBulk: Bool
    }

    /// Pages at least this large may be loaded without the listing indexes.
    static let bulkPageMinimum = 1000

    /// From this many records in the store, a large page is written in key order
    /// (`StoreTransaction.inKeyOrder`): about where the `(collection, id)` index (~57
    /// bytes a record) stops fitting the 16 MiB page cache beside the table's own pages.
    static let keyOrderMinimum = 200_000

    var dropsListingIndexes: Bool
    var rows: Rows
    /// The pull's last page: the id index (if a load left it out) and the listing index
    /// are built once the rows are in.
    var buildsIndexes: Bool

    init(dropsListingIndexes: Bool, rows: Rows, buildsIndexes: Bool) {
        self.dropsListingIndexes = dropsListingIndexes
        self.rows = rows
        self.buildsIndexes = buildsIndexes
    }

    /// The write for `page`.
    /// - Parameters:
    ///   - loading: a bulk load of this pull is under way.
    ///   - storedEstimate: the records table's size (its highest rowid), read for a large page only.
    ///   - idIndexPresent: whether the records' id index is there (another writer may have
    ///     built it during a load, which ends the load).
    ///   - collectionHoldsRecords: whether the store holds any row of the page's collection,
    ///     read only when a load could start.
    init(
        _ page: Page, loading: Bool, storedEstimate: () throws(StorageError) -> Int,
        idIndexPresent: () throws(StorageError) -> Bool, collectionHoldsRecords: () throws(StorageError) -> Bool
    ) throws(StorageError) {
        let stored = page.count >= Self.bulkPageMinimum ? try storedEstimate() : 0
        let large = page.morePagesFollow && page.count >= Self.bulkPageMinimum
        // NB: a store that holds fewer records than the page brings is at the start of
        // a first pull: building the indexes once from every record beats inserting at
        // random places in them page after page.
        let firstOfMany = large && stored < page.count
        dropsListingIndexes = firstOfMany
        buildsIndexes = !page.morePagesFollow
        rows = .upsert(inKeyOrder: stored >= Self.keyOrderMinimum)
        guard page.mayLoadInBulk, !page.hasTombstones else { return }
        let indexPresent = try idIndexPresent()
        if loading, !indexPresent {
            rows = .bulkInsert(startsLoad: false)
        } else if firstOfMany, indexPresent, try !collectionHoldsRecords() {
            rows = .bulkInsert(startsLoad: true)
        }
    }
}
