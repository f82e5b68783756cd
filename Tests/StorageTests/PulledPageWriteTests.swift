import Testing
@testable import Storage

/// How a pulled page is written, decided without a store: table-driven over the page's
/// shape and what the store is. `BulkPullTests` and `IdentityIndexTests` carry the same
/// decisions out on SQLite.
@Suite("How a pulled page is written (no store)")
struct PulledPageWriteTests {
    /// What the store is, as the decision may read it.
    struct Store {
        var stored = 0
        var idIndex = true
        var loading = false
        var holdsCollection = false
    }

    struct Case: CustomTestStringConvertible, Sendable {
        let name: String
        let page: PulledPageWrite.Page
        let store: Store
        let expected: PulledPageWrite
        var testDescription: String { name }
    }

    static func page(_ count: Int, more: Bool = true, tombstones: Bool = false, bulk: Bool = true) -> PulledPageWrite.Page {
        PulledPageWrite.Page(count: count, hasTombstones: tombstones, morePagesFollow: more, mayLoadInBulk: bulk)
    }

    static func write(drops: Bool = false, _ rows: PulledPageWrite.Rows, builds: Bool = false) -> PulledPageWrite {
        PulledPageWrite(dropsListingIndexes: drops, rows: rows, buildsIndexes: builds)
    }

    static let cases: [Case] = [
        Case(name: "the first of many large pages into an empty store starts a load",
             page: page(10_000), store: Store(),
             expected: write(drops: true, .bulkInsert(startsLoad: true))),
        Case(name: "a later page of the load goes on without the id index",
             page: page(10_000), store: Store(stored: 10_000, idIndex: false, loading: true),
             expected: write(.bulkInsert(startsLoad: false))),
        Case(name: "the load's last page goes in bulk, then builds the indexes",
             page: page(10_000, more: false), store: Store(stored: 90_000, idIndex: false, loading: true),
             expected: write(.bulkInsert(startsLoad: false), builds: true)),
        Case(name: "another writer built the id index: the load ends, the page is upserted",
             page: page(10_000), store: Store(stored: 20_000, idIndex: true, loading: true, holdsCollection: true),
             expected: write(.upsert(inKeyOrder: false))),
        Case(name: "a page with a tombstone never goes in bulk",
             page: page(10_000, tombstones: true), store: Store(),
             expected: write(drops: true, .upsert(inKeyOrder: false))),
        Case(name: "a page the caller stores in part never goes in bulk",
             page: page(10_000, bulk: false), store: Store(),
             expected: write(drops: true, .upsert(inKeyOrder: false))),
        Case(name: "a collection the store holds rows of already starts no load",
             page: page(10_000), store: Store(stored: 5, holdsCollection: true),
             expected: write(drops: true, .upsert(inKeyOrder: false))),
        Case(name: "a store larger than the page keeps its indexes",
             page: page(10_000), store: Store(stored: 50_000, holdsCollection: false),
             expected: write(.upsert(inKeyOrder: false))),
        Case(name: "a small page is upserted whatever comes after it",
             page: page(PulledPageWrite.bulkPageMinimum - 1), store: Store(),
             expected: write(.upsert(inKeyOrder: false))),
        Case(name: "a single page is upserted and builds the indexes",
             page: page(10_000, more: false), store: Store(),
             expected: write(.upsert(inKeyOrder: false), builds: true)),
        Case(name: "a large store takes a large page in key order",
             page: page(10_000), store: Store(stored: PulledPageWrite.keyOrderMinimum, holdsCollection: true),
             expected: write(.upsert(inKeyOrder: true))),
        Case(name: "a small page into a large store is not sorted (its size is not read)",
             page: page(10), store: Store(stored: 1_000_000, holdsCollection: true),
             expected: write(.upsert(inKeyOrder: false))),
    ]

    @Test(arguments: cases)
    func theWriteFollowsFromThePageAndTheStore(_ test: Case) throws {
        let store = test.store
        let write = try PulledPageWrite(
            test.page, loading: store.loading, storedEstimate: { store.stored }, idIndexPresent: { store.idIndex },
            collectionHoldsRecords: { store.holdsCollection })
        #expect(write == test.expected)
    }

    /// What is read is what the page's shape asks for: a small page reads nothing of the
    /// store, and only a page that could start a load asks whether the collection has rows.
    @Test func aSmallPageReadsNothingOfTheStore() throws {
        var reads: [String] = []
        _ = try PulledPageWrite(
            Self.page(10, more: true, bulk: false), loading: false,
            storedEstimate: { reads.append("size"); return 0 }, idIndexPresent: { reads.append("index"); return true },
            collectionHoldsRecords: { reads.append("collection"); return false })
        #expect(reads.isEmpty)

        _ = try PulledPageWrite(
            Self.page(10_000), loading: true,
            storedEstimate: { reads.append("size"); return 10_000 }, idIndexPresent: { reads.append("index"); return false },
            collectionHoldsRecords: { reads.append("collection"); return true })
        #expect(reads == ["size", "index"])
    }
}
