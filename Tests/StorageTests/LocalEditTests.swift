import Domain
import Foundation
import Testing
import TestSupport
@testable import Storage

@Suite("Local edits: record and outbox together")
struct LocalEditTests {
    /// A store with one synced book `b1` (server version 100).
    private func storeWithSyncedBook(faults: FaultInjection = FaultInjection(), clock: TestClock = TestClock()) throws -> ShelfStore {
        let store = try ShelfStore.testStore(clock: clock, faults: faults)
        try store.seed([Wire.remoteBook("b1", title: "Dune", lastModified: 100)], to: .books)
        return store
    }

    private static let failingFaults = FaultInjection(afterRecordWrite: { _, _ throws(StorageError) in throw injectedFailure })

    // MARK: - Atomicity

    @Test func aFailureBetweenRecordAndOutboxLeavesNoNewRecord() throws {
        let store = try ShelfStore.testStore(faults: Self.failingFaults)

        #expect(throws: injectedFailure) {
            try store.write { tx in try tx.saveLocal(.books, id: "b2", json: Wire.book("b2", title: "Solaris", author: "Stanisław Lem")) }
        }

        #expect(try store.read { try $0.record(.books, id: "b2", includingDeleted: true) } == nil)
        #expect(try store.outbox().isEmpty)
    }

    @Test func aFailureBetweenRecordAndOutboxLeavesASyncedRecordAsItWas() throws {
        let store = try storeWithSyncedBook(faults: Self.failingFaults)
        let before = try store.read { try $0.record(.books, id: "b1") }

        #expect(throws: injectedFailure) {
            try store.write { tx in try tx.saveLocal(.books, id: "b1", json: Wire.book("b1", title: "Dune Messiah", author: "Anon")) }
        }
        #expect(throws: injectedFailure) {
            try store.write { tx in try tx.deleteLocal(.books, id: "b1") }
        }

        #expect(try store.read { try $0.record(.books, id: "b1") } == before)
        #expect(try store.read { try $0.base(.books, id: "b1") } == nil)
        #expect(try store.outbox().isEmpty)
    }

    @Test func aThrowInsideTheTransactionRollsBackEveryEditInIt() throws {
        struct Abort: Error {}
        let store = try storeWithSyncedBook()

        #expect(throws: Abort.self) {
            try store.write { tx in
                try tx.saveLocal(.books, id: "b1", json: Wire.book("b1", title: "Changed", author: "Anon"))
                try tx.saveLocal(.tasks, id: "t1", json: Wire.task("t1", title: "Read"))
                try tx.updateSyncState(.books) { $0.cursor = 999 }
                throw Abort()
            }
        }

        #expect(try store.read { try $0.record(.books, id: "b1")?.lastModified } == 100)
        #expect(try store.read { try $0.record(.tasks, id: "t1") } == nil)
        #expect(try store.read { try $0.syncState(.books).cursor } == nil)
        #expect(try store.outbox().isEmpty)
    }

    @Test func aTransactionCannotBeUsedAfterItsBlock() throws {
        let store = try ShelfStore.testStore()
        var escaped: StoreTransaction?
        try store.write { tx in escaped = tx }
        #expect(throws: StorageError.transactionFinished) {
            try escaped?.saveLocal(.tasks, id: "t1", json: Wire.task("t1", title: "Late"))
        }
    }

    // MARK: - Validation

    @Test func theCatalogIsReadOnly() throws {
        let store = try ShelfStore.testStore()
        #expect(throws: StorageError.readOnlyCollection(.products)) {
            try store.write { tx in try tx.saveLocal(.products, id: "p1", json: Data(#"{"id":"p1","name":"Pen"}"#.utf8)) }
        }
    }

    @Test func malformedIDsAndJSONAreRefused() throws {
        let store = try ShelfStore.testStore()
        #expect(throws: StorageError.self) {
            try store.write { tx in try tx.saveLocal(.books, id: "../x", json: Data(#"{"title":"T"}"#.utf8)) }
        }
        #expect(throws: StorageError.invalidRecord(collection: .books, id: "b1", reason: "its JSON names id 'b2'")) {
            try store.write { tx in try tx.saveLocal(.books, id: "b1", json: Wire.book("b2", title: "T", author: "A")) }
        }
        #expect(throws: StorageError.self) {
            try store.write { tx in try tx.saveLocal(.books, id: "b1", json: Data("[1,2]".utf8)) }
        }
        // Nested garbage is refused too: the whole object is validated when its indexed
        // fields are read (and `IntegrityCheck` finds any that got in around Shelf).
        do {
            try store.write { tx in try tx.saveLocal(.books, id: "b1", json: Data(#"{"id":"b1","tags":[1,,2]}"#.utf8)) }
            Issue.record("invalid nested JSON was stored")
        } catch let error as StorageError {
            guard case .invalidRecord(.books, "b1", let reason) = error else {
                Issue.record("expected invalidRecord, got \(error)")
                return
            }
            #expect(reason.hasPrefix("not a JSON object"))
        }
        #expect(try store.read { try $0.count(RecordQuery(.books)) } == 0)
    }

    @Test func deletingAMissingRecordSaysSo() throws {
        let store = try ShelfStore.testStore()
        #expect(throws: StorageError.notFound(what: "books record 'nope'")) {
            try store.write { tx in try tx.deleteLocal(.books, id: "nope") }
        }
    }

    // MARK: - Coalescing

    @Test func aNewRecordIsQueuedAsCreateWithoutBase() throws {
        let store = try ShelfStore.testStore()
        let entry = try store.write { tx in try tx.saveLocal(.books, id: "b2", json: Wire.book("b2", title: "Solaris", author: "Lem")) }
        #expect(entry.kind == .create)
        #expect(entry.baseLastModified == nil)
        #expect(try store.read { try $0.record(.books, id: "b2")?.lastModified } == nil)
        #expect(try store.outbox() == [entry])
    }

    @Test func createThenUpdateStaysACreateWithTheNewContent() throws {
        let clock = TestClock()
        let store = try ShelfStore.testStore(clock: clock)
        let first = try store.write { tx in try tx.saveLocal(.books, id: "b2", json: Wire.book("b2", title: "Solaris", author: "Lem")) }
        clock.advance()
        let second = try store.write { tx in try tx.saveLocal(.books, id: "b2", json: Wire.book("b2", title: "Solaris (2nd ed.)", author: "Lem")) }

        #expect(second.kind == .create)
        #expect(second.sequence == first.sequence, "the entry keeps its place in the outbox")
        #expect(second.createdAt == first.createdAt)
        #expect(second.updatedAt > first.updatedAt)
        #expect(second.revision == first.revision + 1)
        let changes = try store.read { try $0.pendingChanges() }
        #expect(changes.count == 1)
        #expect(changes.first?.json == Wire.book("b2", title: "Solaris (2nd ed.)", author: "Lem"))
    }

    @Test func updateThenUpdateKeepsTheFirstBase() throws {
        let store = try storeWithSyncedBook()
        let serverVersion = try store.read { try $0.record(.books, id: "b1") }

        try store.write { tx in try tx.saveLocal(.books, id: "b1", json: Wire.book("b1", title: "Dune I", author: "Anon", lastModified: 100)) }
        // Even when the second edit's JSON carries another timestamp, the base is the original.
        let entry = try store.write { tx in try tx.saveLocal(.books, id: "b1", json: Wire.book("b1", title: "Dune II", author: "Anon", lastModified: 555)) }

        #expect(entry.kind == .update)
        #expect(entry.baseLastModified == 100)
        let base = try store.read { try $0.base(.books, id: "b1") }
        #expect(base?.json == serverVersion?.json, "the base snapshot is the server's version, not the first edit")
        #expect(base?.lastModified == 100)
        #expect(try store.outbox().count == 1)
    }

    @Test func updateThenDeleteBecomesADeleteWithTheFirstBase() throws {
        let store = try storeWithSyncedBook()
        try store.write { tx in try tx.saveLocal(.books, id: "b1", json: Wire.book("b1", title: "Dune I", author: "Anon")) }
        let entry = try store.write { tx in try tx.deleteLocal(.books, id: "b1") }

        #expect(entry?.kind == .delete)
        #expect(entry?.baseLastModified == 100)
        #expect(try store.read { try $0.record(.books, id: "b1") } == nil, "hidden from reads")
        #expect(try store.read { try $0.record(.books, id: "b1", includingDeleted: true)?.isDeleted } == true)
        #expect(try store.read { try $0.count(RecordQuery(.books)) } == 0)
        #expect(try store.outbox().map(\.kind) == [.delete])
    }

    @Test func createThenDeleteLeavesNothingToTellTheServer() throws {
        let store = try ShelfStore.testStore()
        try store.write { tx in try tx.saveLocal(.books, id: "b2", json: Wire.book("b2", title: "Solaris", author: "Lem")) }
        let entry = try store.write { tx in try tx.deleteLocal(.books, id: "b2") }

        #expect(entry == nil)
        #expect(try store.outbox().isEmpty)
        #expect(try store.read { try $0.record(.books, id: "b2", includingDeleted: true) } == nil)
    }

    @Test func deleteOfASyncedRecordSnapshotsItsBase() throws {
        let store = try storeWithSyncedBook()
        let entry = try store.write { tx in try tx.deleteLocal(.books, id: "b1") }
        #expect(entry?.kind == .delete)
        #expect(entry?.baseLastModified == 100)
        #expect(try store.read { try $0.base(.books, id: "b1")?.lastModified } == 100)
    }

    @Test func deleteThenSaveBringsTheRecordBackAsAnUpdate() throws {
        let store = try storeWithSyncedBook()
        try store.write { tx in try tx.deleteLocal(.books, id: "b1") }
        let entry = try store.write { tx in try tx.saveLocal(.books, id: "b1", json: Wire.book("b1", title: "Dune again", author: "Anon")) }

        #expect(entry.kind == .update)
        #expect(entry.baseLastModified == 100)
        #expect(try store.read { try $0.record(.books, id: "b1")?.isDeleted } == false)
    }

    @Test func deleteThenDeleteChangesNothing() throws {
        let store = try storeWithSyncedBook()
        let first = try store.write { tx in try tx.deleteLocal(.books, id: "b1") }
        let second = try store.write { tx in try tx.deleteLocal(.books, id: "b1") }
        #expect(first == second)
    }

    @Test(arguments: OutboxEntry.Kind.allCases)
    func theCoalescingTableMatchesTheDocumentation(_ waiting: OutboxEntry.Kind) {
        let expected: [OutboxEntry.Kind: (save: OutboxEntry.Kind?, delete: OutboxEntry.Kind?)] = [
            .create: (.create, nil), .update: (.update, .delete), .delete: (.update, .delete),
        ]
        #expect(OutboxEntry.Kind.coalescing(waiting, with: .save) == expected[waiting]?.save)
        #expect(OutboxEntry.Kind.coalescing(waiting, with: .delete) == expected[waiting]?.delete)
    }

    @Test func theOutboxKeepsTheOrderOfFirstChanges() throws {
        let store = try storeWithSyncedBook()
        try store.write { tx in
            try tx.saveLocal(.tasks, id: "t1", json: Wire.task("t1", title: "One"))
            try tx.saveLocal(.books, id: "b1", json: Wire.book("b1", title: "Dune!", author: "Anon"))
            try tx.saveLocal(.notes, id: "n1", json: Wire.note("n1", title: "About Dune", bookID: "b1"))
        }
        try store.write { tx in try tx.saveLocal(.tasks, id: "t1", json: Wire.task("t1", title: "One, edited")) }

        #expect(try store.outbox().map(\.recordID) == ["t1", "b1", "n1"])
        #expect(try store.read { try $0.pendingChanges(in: .books).map(\.entry.recordID) } == ["b1"])
        #expect(try store.read { try $0.pendingChanges(limit: 2).count } == 2)
        #expect(try store.read { try $0.pendingCount(in: .tasks) } == 1)
    }

    @Test func theOutboxCannotPointAtAMissingRecord() throws {
        // The foreign key is the store's last line of defence against losing a change.
        let store = try ShelfStore.testStore()
        try store.write { tx in try tx.saveLocal(.tasks, id: "t1", json: Wire.task("t1", title: "One")) }
        do {
            try store.write { tx in try tx.removeRecord(.tasks, id: "t1") }
            Issue.record("a record with a waiting change was removed")
        } catch let error as StorageError {
            #expect(error.sqliteCode == 787 /* SQLITE_CONSTRAINT_FOREIGNKEY */)
        }
        #expect(try store.outbox().count == 1)
    }
}
