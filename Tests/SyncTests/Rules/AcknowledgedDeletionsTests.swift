import Domain
import Foundation
import Records
import Testing
@testable import Storage
@testable import Sync
import TestSupport

/// A deletion the server acknowledged is remembered by the last lineage id of the
/// version deleted, so a stale copy of that version pulled later is deleted again.
@Suite("Acknowledged deletions")
struct AcknowledgedDeletionsTests {
    private static func book(_ id: String, lineage: [String], lastModified: Int64) -> RawRecord {
        RawRecord(id: id, lastModified: lastModified, json: Wire.object([
            "id": id, "title": "Dune", "author_name": "Frank Herbert", "finished": false,
            "last_modified": lastModified, RecordLineage.field: lineage,
        ]))
    }

    private static func remembered(_ store: ShelfStore) throws -> Int {
        try store.write { tx in
            try tx.db.queryFirst("SELECT count(*) FROM acknowledged_deletions", operation: "count") { $0.int(0) } ?? 0
        }
    }

    // MARK: - Recognising

    @Test func aPulledCopyOfTheDeletedVersionIsDeletedAgain() throws {
        let store = try ShelfStore.testStore()
        let stale = Self.book("x", lineage: ["r0", "r1"], lastModified: 20)
        try store.write { tx in
            try SyncRules(tx).rememberDeletion(.books, id: "x", lastVersion: Self.book("x", lineage: ["r0", "r1"], lastModified: 10).json)
            #expect(try SyncRules(tx).applyPulled([stale], to: .books).isEmpty)
        }
        let entry = try #require(try store.read { try $0.outboxEntry(.books, id: "x") })
        #expect(entry.kind == .delete)
        #expect(entry.baseLastModified == 20, "against the stale copy's timestamp")
        #expect(try store.read { try $0.record(.books, id: "x") } == nil, "never shown")
    }

    @Test func anEditOfTheDeletedVersionOrAnotherRecordIsApplied() throws {
        let store = try ShelfStore.testStore()
        try store.write { tx in
            try SyncRules(tx).rememberDeletion(.books, id: "x", lastVersion: Self.book("x", lineage: ["r0", "r1"], lastModified: 10).json)
            _ = try SyncRules(tx).applyPulled([
                Self.book("x", lineage: ["r0", "r1", "r2"], lastModified: 20),
                Self.book("y", lineage: ["r0", "r1"], lastModified: 21),
            ], to: .books)
        }
        #expect(try store.read { try $0.record(.books, id: "x") } != nil)
        #expect(try store.read { try $0.record(.books, id: "y") } != nil)
        #expect(try store.pendingCount() == 0)
    }

    @Test func aVersionWithoutLineageIsNotRemembered() throws {
        let store = try ShelfStore.testStore()
        try store.write { tx in
            try SyncRules(tx).rememberDeletion(.books, id: "x", lastVersion: Wire.object(["id": "x", "title": "Dune"]))
        }
        #expect(try Self.remembered(store) == 0)
    }

    // MARK: - Bounds

    @Test func entriesExpireAndAreCapped() throws {
        let clock = TestClock()
        let store = try ShelfStore.testStore(clock: clock)
        let version = Self.book("x", lineage: ["r0"], lastModified: 10).json
        try store.write { tx in try SyncRules(tx).rememberDeletion(.books, id: "old", lastVersion: version) }
        clock.advance(by: Int64(AcknowledgedDeletions.maximumAge * 1000) + 1)
        try store.write { tx in
            for index in 0...AcknowledgedDeletions.maximumCount {
                clock.advance(by: 1)
                try SyncRules(tx).rememberDeletion(.books, id: "b\(index)", lastVersion: version)
            }
        }
        #expect(try Self.remembered(store) == AcknowledgedDeletions.maximumCount)
        #expect(try store.read { try $0.acknowledgedDeletionRevision(.books, id: "old") } == nil, "expired")
        #expect(try store.read { try $0.acknowledgedDeletionRevision(.books, id: "b0") } == nil, "the oldest dropped")
        #expect(try store.read { try $0.acknowledgedDeletionRevision(.books, id: "b1") } == "r0")
    }

    @Test func aCollectionForgottenAgainForgetsItsDeletions() throws {
        let store = try ShelfStore.testStore()
        let version = Self.book("x", lineage: ["r0"], lastModified: 10).json
        try store.write { tx in
            try SyncRules(tx).rememberDeletion(.books, id: "x", lastVersion: version)
            try SyncRules(tx).rememberDeletion(.notes, id: "n", lastVersion: version)
            try SyncRules(tx).startRecovery(.books, collectionTimestamp: 99)
        }
        #expect(try store.read { try $0.acknowledgedDeletionRevision(.books, id: "x") } == nil)
        #expect(try store.read { try $0.acknowledgedDeletionRevision(.notes, id: "n") } == "r0")
    }
}
