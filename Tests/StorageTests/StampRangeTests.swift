import Domain
import Foundation
import Records
import Testing
import TestSupport
@testable import Storage

/// What the store holds of a range of the server's stamps: the side of a reconciliation
/// by ranges that the store answers.
@Suite("Stamp ranges: counts, versions and boundaries")
struct StampRangeTests {
    /// Books b-1…b-20 stamped 100…2,000; b-3 waits for a pushed deletion, b-new was made here,
    /// b-5 is in conflict with a later server version (stamp 5,000), b-6 with the server's deletion.
    private func store() throws -> ShelfStore {
        let store = try ShelfStore.testStore()
        try store.seed((1...20).map { Wire.remoteBook("b-\($0)", title: "Book \($0)", lastModified: Int64($0) * 100) }, to: .books)
        try store.seed([RawRecord(id: "n-1", lastModified: 150, json: Wire.note("n-1", title: "Note"))], to: .notes)
        try store.write { tx in
            _ = try tx.deleteLocal(.books, id: "b-3")
            _ = try tx.saveLocal(.books, id: "b-new", json: Wire.book("b-new", title: "New", author: "Me"))
            try tx.recordConflict(Conflict(collection: .books, recordID: "b-5", base: nil, local: Data("{}".utf8),
                                           remote: Data("{}".utf8), remoteLastModified: 5_000, detectedAt: Date()))
            try tx.recordConflict(Conflict(collection: .books, recordID: "b-6", base: nil, local: Data("{}".utf8),
                                           remote: nil, remoteLastModified: 4_000, detectedAt: Date()))
            try tx.prepareStampRanges()
        }
        return store
    }

    @Test func aRangeCountsTheServersLiveRecordsAsTheStoreKnowsThem() throws {
        let store = try store()
        let counts = try store.read { reader in
            try [StampRange(after: 0, through: 2_000), StampRange(after: 0, through: 400), StampRange(after: 400, through: 700),
                 StampRange(after: 4_000, through: 6_000), StampRange(after: 2_000, through: 3_000)]
                .map { try reader.serverLiveCount(.books, in: $0) }
        }
        // b-3 still counts (the server has it until the deletion is pushed), b-new does not;
        // b-5 counts at 5,000, b-6 not at all (the server deleted it).
        #expect(counts == [18, 4, 1, 1, 0])
    }

    @Test func theVersionsOfARangeAreTheOnesItCounts() throws {
        let store = try store()
        let (versions, later) = try store.read { reader in
            (try reader.serverVersions(.books, in: StampRange(after: 200, through: 700)),
             try reader.serverVersions(.books, in: StampRange(after: 4_000, through: 6_000)))
        }
        #expect(versions == ["b-3": 300, "b-4": 400, "b-7": 700])
        #expect(later == ["b-5": 5_000])
    }

    @Test func boundariesCutARangeIntoPartsOfAsManyRecords() throws {
        let store = try store()
        let (four, tooMany, sweepEnd, none) = try store.read { reader in
            (try reader.stampBoundaries(.books, in: StampRange(after: 0, through: 2_000), parts: 4),
             try reader.stampBoundaries(.books, in: StampRange(after: 0, through: 300), parts: 4),
             try reader.stamp(.books, after: 1_000, skipping: 4),
             try reader.stamp(.books, after: 1_900, skipping: 4))
        }
        #expect(four == [500, 1_000, 1_500, 2_000])
        #expect(tooMany.isEmpty, "three records cannot make four parts")
        #expect(sweepEnd == 1_500)
        #expect(none == nil)
    }

    /// The range queries walk the stamp index, never every row of the table.
    @Test func theRangeQueriesReadTheStampIndex() throws {
        let store = try store()
        let plans = try store.read { try $0.stampRangePlans() }
        let onRecords = plans.filter { $0.contains("records") && !$0.contains("conflicts") }
        #expect(!onRecords.isEmpty)
        for step in onRecords {
            #expect(step.contains("records_by_stamp") || step.contains("records_by_id"), "\(step)")
            #expect(!step.hasPrefix("SCAN records"), "\(step)")
        }
    }

    @Test func theStampIndexIsBuiltOnceAndOnlyWhenAsked() throws {
        let store = try ShelfStore.testStore()
        let built = try store.write { tx in [try tx.prepareStampRanges(), try tx.prepareStampRanges()] }
        #expect(built == [true, false])
        let fresh = try ShelfStore.testStore()
        let present = try fresh.read { reader in try StampIndex.isPresent(reader.db) }
        #expect(!present, "a new store, and a first sync, go without it")
    }
}
