import Domain
import Foundation
import Records
import Testing
@testable import Storage
@testable import Sync
import TestSupport

/// The sync rules carried out on a real store, one scenario each. The decisions in them
/// have tables on values too, with no store: acknowledgements (`AcknowledgementPlanTests`),
/// rebases and discards (`WaitingChangePlanTests`), pulled records (`PulledRecordsPlanTests`),
/// refusals (`PushAnswerTests`). What only a store can show stays here alone: Storage's own
/// rules (an edit coalesced behind a change in flight, conflicts and dead letters listed,
/// the sync state and status read back).
@Suite("Sync operations")
struct SyncOperationTests {
    private func storeWithSyncedBook(clock: TestClock = TestClock()) throws -> ShelfStore {
        let store = try ShelfStore.testStore(clock: clock)
        try store.applyPulled([Wire.remoteBook("b1", title: "Dune", lastModified: 100)], to: .books)
        return store
    }

    // MARK: - Pulls

    @Test func aPulledPageIsAppliedAndTombstonesRemoveRecords() throws {
        let store = try ShelfStore.testStore()
        try store.applyPulled([
            Wire.remoteBook("b1", title: "Dune", lastModified: 100),
            Wire.remoteBook("b2", title: "Emma", lastModified: 101),
        ], to: .books)
        try store.applyPulled([
            Wire.remoteBook("b1", title: "Dune (revised)", finished: true, lastModified: 102),
            Wire.tombstone("b2", lastModified: 103),
            Wire.tombstone("never-seen", lastModified: 104),
        ], to: .books)

        let records = try store.read { try $0.records(RecordQuery(.books)) }
        #expect(records.map(\.id) == ["b1"])
        #expect(records.first?.lastModified == 102)
        #expect(try store.read { try $0.count(RecordQuery(.books, complete: true)) } == 1)
        #expect(try store.outbox().isEmpty, "pulled records are not local changes")
    }

    @Test func aPulledRecordNeverOverwritesAWaitingLocalChange() throws {
        let store = try storeWithSyncedBook()
        try store.write { tx in try tx.saveLocal(.books, id: "b1", json: Wire.book("b1", title: "Mine", author: "Me")) }

        let held = try store.write { tx in
            try SyncRules(tx).applyPulled([Wire.remoteBook("b1", title: "Theirs", lastModified: 200), Wire.tombstone("b1", lastModified: 201)], to: .books)
        }

        #expect(held.map(\.record.lastModified) == [200, 201])
        #expect(held.allSatisfy { $0.waiting.kind == .update && $0.waiting.baseLastModified == 100 })
        #expect(try store.read { try $0.record(.books, id: "b1")?.json } == Wire.book("b1", title: "Mine", author: "Me"))
    }

    @Test func aRemoteRecordReadsItsFieldsFromItsBytes() throws {
        let remote = try RawRecord(collection: .books, json: Data(#"{"last_modified": 42, "id": "b9", "deleted": true}"#.utf8))
        #expect(remote.id == "b9")
        #expect(remote.lastModified == 42)
        #expect(remote.isDeleted)
        #expect(throws: StorageError.self) { try RawRecord(collection: .books, json: Data(#"{"id":"b9"}"#.utf8)) }
        #expect(throws: StorageError.self) { try RawRecord(collection: .books, json: Data(#"{"last_modified":1}"#.utf8)) }
    }

    // MARK: - Push acknowledgements

    @Test func anAcknowledgedCreateStoresTheServerVersion() throws {
        let store = try ShelfStore.testStore()
        let entry = try store.write { tx in try tx.saveLocal(.books, id: "b2", json: Wire.book("b2", title: "Emma", author: "Austen")) }

        try store.write { tx in try SyncRules(tx).acknowledgePush(entry, server: Wire.remoteBook("b2", title: "Emma", author: "Austen", lastModified: 300)) }

        #expect(try store.outbox().isEmpty)
        #expect(try store.read { try $0.record(.books, id: "b2")?.lastModified } == 300)
        #expect(try store.read { try $0.base(.books, id: "b2") } == nil)
    }

    @Test func anAcknowledgedUpdateDropsTheBase() throws {
        let store = try storeWithSyncedBook()
        let entry = try store.write { tx in try tx.saveLocal(.books, id: "b1", json: Wire.book("b1", title: "Dune!", author: "Anon")) }
        #expect(try store.read { try $0.base(.books, id: "b1") } != nil)

        try store.write { tx in try SyncRules(tx).acknowledgePush(entry, server: Wire.remoteBook("b1", title: "Dune!", lastModified: 150)) }

        #expect(try store.outbox().isEmpty)
        #expect(try store.read { try $0.base(.books, id: "b1") } == nil)
        #expect(try store.read { try $0.record(.books, id: "b1")?.lastModified } == 150)
    }

    @Test func anAcknowledgedDeleteRemovesTheRecord() throws {
        let store = try storeWithSyncedBook()
        let entry = try #require(try store.write { tx in try tx.deleteLocal(.books, id: "b1") })

        try store.write { tx in try SyncRules(tx).acknowledgePush(entry, server: Wire.tombstone("b1", lastModified: 150)) }

        #expect(try store.outbox().isEmpty)
        #expect(try store.read { try $0.record(.books, id: "b1", includingDeleted: true) } == nil)
        #expect(try store.read { try $0.base(.books, id: "b1") } == nil)
    }

    @Test func anEditWhileACreateIsInFlightStaysQueuedAsAnUpdate() throws {
        let store = try ShelfStore.testStore()
        let pushed = try store.write { tx in try tx.saveLocal(.books, id: "b2", json: Wire.book("b2", title: "Emma", author: "Austen")) }
        // The reader edits again while the request is on the wire.
        try store.write { tx in try tx.saveLocal(.books, id: "b2", json: Wire.book("b2", title: "Emma (annotated)", author: "Austen")) }

        let server = Wire.remoteBook("b2", title: "Emma", author: "Austen", lastModified: 300)
        try store.write { tx in try SyncRules(tx).acknowledgePush(pushed, server: server) }

        let entry = try #require(try store.outbox().first)
        #expect(entry.kind == .update)
        #expect(entry.baseLastModified == 300)
        #expect(entry.sequence == pushed.sequence)
        #expect(try store.read { try $0.base(.books, id: "b2")?.json } == server.json)
        let record = try store.read { try $0.record(.books, id: "b2") }
        #expect(record?.json == Wire.book("b2", title: "Emma (annotated)", author: "Austen"))
        #expect(record?.lastModified == 300)
    }

    @Test func aDeleteWhileAnUpdateIsInFlightStaysQueuedAgainstTheNewVersion() throws {
        let store = try storeWithSyncedBook()
        let pushed = try store.write { tx in try tx.saveLocal(.books, id: "b1", json: Wire.book("b1", title: "Dune!", author: "Anon")) }
        try store.write { tx in try tx.deleteLocal(.books, id: "b1") }

        try store.write { tx in try SyncRules(tx).acknowledgePush(pushed, server: Wire.remoteBook("b1", title: "Dune!", lastModified: 150)) }

        let entry = try #require(try store.outbox().first)
        #expect(entry.kind == .delete)
        #expect(entry.baseLastModified == 150)
    }

    @Test func aRecordBroughtBackWhileItsDeleteIsInFlightIsQueuedAsACreate() throws {
        let store = try storeWithSyncedBook()
        let pushed = try #require(try store.write { tx in try tx.deleteLocal(.books, id: "b1") })
        try store.write { tx in try tx.saveLocal(.books, id: "b1", json: Wire.book("b1", title: "Dune, again", author: "Anon")) }

        try store.write { tx in try SyncRules(tx).acknowledgePush(pushed, server: Wire.tombstone("b1", lastModified: 150)) }

        let entry = try #require(try store.outbox().first)
        #expect(entry.kind == .create)
        #expect(entry.baseLastModified == nil)
        #expect(try store.read { try $0.base(.books, id: "b1") } == nil)
        #expect(try store.read { try $0.record(.books, id: "b1")?.lastModified } == nil)
    }

    @Test func aRecordDeletedWhileItsCreateIsInFlightIsDeletedOnTheServerNext() throws {
        let store = try ShelfStore.testStore()
        let pushed = try store.write { tx in try tx.saveLocal(.books, id: "b2", json: Wire.book("b2", title: "Emma", author: "Austen")) }
        try store.write { tx in try tx.deleteLocal(.books, id: "b2") }  // create + delete: nothing queued
        #expect(try store.outbox().isEmpty)

        try store.write { tx in try SyncRules(tx).acknowledgePush(pushed, server: Wire.remoteBook("b2", title: "Emma", lastModified: 300)) }

        let entry = try #require(try store.outbox().first)
        #expect(entry.kind == .delete)
        #expect(entry.baseLastModified == 300)
        #expect(try store.read { try $0.record(.books, id: "b2") } == nil, "still hidden")
    }

    @Test func aRecordDeletedAndCreatedAgainWhileItsCreateIsInFlightIsQueuedAsAnUpdate() throws {
        let store = try ShelfStore.testStore()
        let pushed = try store.write { tx in try tx.saveLocal(.books, id: "b2", json: Wire.book("b2", title: "Emma", author: "Austen")) }
        try store.write { tx in try tx.deleteLocal(.books, id: "b2") }
        let again = Wire.book("b2", title: "Emma, again", author: "Austen")
        let recreated = try store.write { tx in try tx.saveLocal(.books, id: "b2", json: again) }
        #expect(recreated.revision == pushed.revision, "a new entry starts at the same revision")

        try store.write { tx in try SyncRules(tx).acknowledgePush(pushed, server: Wire.remoteBook("b2", title: "Emma", author: "Austen", lastModified: 300)) }

        let entry = try #require(try store.outbox().first)
        #expect(entry.kind == .update)
        #expect(entry.baseLastModified == 300)
        #expect(try store.read { try $0.record(.books, id: "b2")?.json } == again, "the newer content is kept")
    }

    // MARK: - Merges

    @Test func rebasingMovesTheChangeOntoTheServerVersion() throws {
        let store = try storeWithSyncedBook()
        try store.write { tx in try tx.saveLocal(.books, id: "b1", json: Wire.book("b1", title: "Mine", author: "Anon")) }
        let remote = Wire.remoteBook("b1", title: "Dune", author: "Frank Herbert", lastModified: 200)
        let merged = Wire.book("b1", title: "Mine", author: "Frank Herbert")

        let entry = try store.write { tx in try SyncRules(tx).rebasePendingChange(.books, id: "b1", onto: remote, merged: merged) }

        #expect(entry?.kind == .update)
        #expect(entry?.baseLastModified == 200)
        #expect(try store.read { try $0.base(.books, id: "b1") } == BaseSnapshot(collection: .books, recordID: "b1", json: remote.json, lastModified: 200))
        #expect(try store.read { try $0.record(.books, id: "b1")?.json } == merged)
        #expect(try store.read { try $0.count(RecordQuery(.books, search: "frank herbert")) } == 1, "derived columns follow the merge")
    }

    @Test func rebasingOntoARemoteDeletionRecreatesTheRecord() throws {
        let store = try storeWithSyncedBook()
        try store.write { tx in try tx.saveLocal(.books, id: "b1", json: Wire.book("b1", title: "Mine", author: "Anon")) }

        let entry = try store.write { tx in try SyncRules(tx).rebasePendingChange(.books, id: "b1", onto: Wire.tombstone("b1", lastModified: 200), merged: nil) }

        #expect(entry?.kind == .create)
        #expect(try store.read { try $0.base(.books, id: "b1") } == nil)
    }

    @Test func rebasingADeleteOntoARemoteDeletionLeavesNothing() throws {
        let store = try storeWithSyncedBook()
        try store.write { tx in try tx.deleteLocal(.books, id: "b1") }

        let entry = try store.write { tx in try SyncRules(tx).rebasePendingChange(.books, id: "b1", onto: Wire.tombstone("b1", lastModified: 200), merged: nil) }

        #expect(entry == nil)
        #expect(try store.outbox().isEmpty)
        #expect(try store.read { try $0.record(.books, id: "b1", includingDeleted: true) } == nil)
    }

    @Test func discardingRestoresTheServerVersion() throws {
        let store = try storeWithSyncedBook()
        let original = try store.read { try $0.record(.books, id: "b1") }
        try store.write { tx in try tx.saveLocal(.books, id: "b1", json: Wire.book("b1", title: "Mine", author: "Anon")) }
        try store.write { tx in try tx.saveLocal(.books, id: "b9", json: Wire.book("b9", title: "New", author: "Anon")) }

        try store.write { tx in
            try SyncRules(tx).discardLocalChange(.books, id: "b1")
            try SyncRules(tx).discardLocalChange(.books, id: "b9")
        }

        #expect(try store.read { try $0.record(.books, id: "b1") } == original)
        #expect(try store.read { try $0.record(.books, id: "b9", includingDeleted: true) } == nil)
        #expect(try store.outbox().isEmpty)
        #expect(try store.read { try $0.base(.books, id: "b1") } == nil)
        #expect(throws: StorageError.self) { try store.write { tx in try SyncRules(tx).discardLocalChange(.books, id: "b1") } }
    }

    // MARK: - Conflicts

    @Test func conflictsAreKeptListedCountedAndRemoved() throws {
        let clock = TestClock()
        let store = try storeWithSyncedBook(clock: clock)
        try store.write { tx in try tx.saveLocal(.books, id: "b1", json: Wire.book("b1", title: "Mine", author: "Anon")) }
        let conflict = Conflict(
            collection: .books, recordID: "b1", base: Wire.book("b1", title: "Dune", author: "Anon"),
            local: Wire.book("b1", title: "Mine", author: "Anon"), remote: nil, remoteLastModified: 200, detectedAt: clock.now
        )

        try store.write { tx in try tx.recordConflict(conflict) }

        #expect(try store.read { try $0.conflicts() } == [conflict])
        #expect(try store.read { try $0.conflicts(in: .notes) }.isEmpty)
        #expect(try store.read { try $0.conflict(.books, id: "b1") } == conflict)
        #expect(try store.read { try $0.conflictCount() } == 1)
        #expect(try store.read { try $0.pendingChanges() }.isEmpty, "a conflicted change waits for the reader")
        #expect(try store.read { try $0.pendingChanges(skippingConflicts: false) }.count == 1)
        #expect(try store.write { tx in try tx.removeConflict(.books, id: "b1") })
        #expect(try store.write { tx in try tx.removeConflict(.books, id: "b1") } == false)
        #expect(try store.read { try $0.conflictCount() } == 0)
    }

    // MARK: - Dead letters

    @Test func aRefusedUpdateBecomesADeadLetterAndTheRecordGoesBack() throws {
        let clock = TestClock()
        let store = try storeWithSyncedBook(clock: clock)
        let original = try store.read { try $0.record(.books, id: "b1") }
        let refusedJSON = Wire.book("b1", title: String(repeating: "x", count: 10), author: "Anon")
        let entry = try store.write { tx in try tx.saveLocal(.books, id: "b1", json: refusedJSON) }
        clock.advance()

        let letter = try store.write { tx in try SyncRules(tx).moveToDeadLetters(entry, status: 400, reason: "Invalid title") }

        #expect(letter.kind == .update)
        #expect(letter.baseLastModified == 100)
        #expect(letter.json == refusedJSON)
        #expect(letter.status == 400)
        #expect(letter.failedAt == clock.now)
        #expect(try store.read { try $0.deadLetters() } == [letter])
        #expect(try store.read { try $0.deadLetter(id: letter.id) } == letter)
        #expect(try store.read { try $0.deadLetterCount() } == 1)
        #expect(try store.outbox().isEmpty)
        #expect(try store.read { try $0.record(.books, id: "b1") } == original)
    }

    @Test func aDeadLetterCanBeRequeuedAsANewEdit() throws {
        let store = try ShelfStore.testStore()
        let json = Wire.book("b2", title: "Emma", author: "Austen")
        let entry = try store.write { tx in try tx.saveLocal(.books, id: "b2", json: json) }
        let letter = try store.write { tx in try SyncRules(tx).moveToDeadLetters(entry, status: 403, reason: "Forbidden") }
        #expect(try store.read { try $0.record(.books, id: "b2", includingDeleted: true) } == nil, "a refused create disappears")

        let requeued = try store.write { tx in try tx.requeueDeadLetter(id: letter.id) }

        #expect(requeued?.kind == .create)
        #expect(try store.read { try $0.record(.books, id: "b2")?.json } == json)
        #expect(try store.read { try $0.deadLetterCount() } == 0)
        #expect(throws: StorageError.notFound(what: "dead letter \(letter.id)")) {
            try store.write { tx in try tx.requeueDeadLetter(id: letter.id) }
        }
    }

    @Test func aRefusedDeleteCanBeDiscarded() throws {
        let store = try storeWithSyncedBook()
        let entry = try #require(try store.write { tx in try tx.deleteLocal(.books, id: "b1") })
        let letter = try store.write { tx in try SyncRules(tx).moveToDeadLetters(entry, status: 403, reason: "Forbidden") }
        #expect(letter.kind == .delete)
        #expect(try store.read { try $0.record(.books, id: "b1") } != nil, "the deletion is undone locally")

        #expect(try store.write { tx in try tx.removeDeadLetter(id: letter.id) })
        #expect(try store.read { try $0.deadLetters() }.isEmpty)
    }

    // MARK: - Sync state and status

    @Test func syncStateRoundTrips() throws {
        let store = try ShelfStore.testStore()
        let state = SyncState(
            collection: .notes, cursor: 1_700_000_000_123, etag: "\"1700000000123\"",
            backoffUntil: Date(milliseconds: 1_800_000_000_000), lastSuccess: Date(milliseconds: 1_700_000_000_500),
            lastError: "timeout", lastErrorAt: Date(milliseconds: 1_700_000_000_600), nextPage: "http://127.0.0.1/v1/x?_token=abc"
        )
        try store.write { tx in try tx.setSyncState(state) }
        #expect(try store.read { try $0.syncState(.notes) } == state)
        #expect(try store.read { try $0.syncState(.books) } == SyncState(collection: .books))

        let updated = try store.write { tx in try tx.updateSyncState(.notes) { $0.nextPage = nil; $0.cursor = 5 } }
        #expect(updated.cursor == 5)
        #expect(try store.read { try $0.syncState(.notes) } == updated)
    }

    @Test func theStatusSummarisesEveryCollection() throws {
        let store = try storeWithSyncedBook()
        #expect(try store.read { try $0.syncStatus() } == SyncStatus())

        try store.write { tx in
            try tx.saveLocal(.tasks, id: "t1", json: Wire.task("t1", title: "One"))
            let entry = try tx.saveLocal(.tasks, id: "t2", json: Wire.task("t2", title: "Two"))
            _ = try SyncRules(tx).moveToDeadLetters(entry, status: 400, reason: "bad")
            try tx.recordConflict(Conflict(collection: .books, recordID: "b1", base: nil, local: nil, remote: nil, remoteLastModified: nil, detectedAt: Date()))
            try tx.setSyncState(SyncState(collection: .books, lastSuccess: Date(milliseconds: 2000)))
            try tx.setSyncState(SyncState(collection: .tasks, backoffUntil: Date(milliseconds: 9000), lastSuccess: Date(milliseconds: 1000)))
        }
        var status = try store.read { try $0.syncStatus() }
        #expect(status == SyncStatus(lastSuccess: nil, pendingChanges: 1, conflicts: 1, deadLetters: 1, backoffUntil: Date(milliseconds: 9000)),
                "collections pulled, but no run synced completely: no last sync")

        try store.write { tx in try tx.recordCompleteSync(at: Date(milliseconds: 3000)) }
        try store.write { tx in try tx.recordCompleteSync(at: Date(milliseconds: 2500)) }
        status = try store.read { try $0.syncStatus() }
        #expect(status.lastSuccess == Date(milliseconds: 3000), "the last complete sync, never an earlier one")

        try store.write { tx in try tx.updateSyncState(.notes) { $0.lastError = "HTTP 503" } }
        status = try store.read { try $0.syncStatus() }
        #expect(status.lastSuccess == Date(milliseconds: 3000), "a failure does not move the last sync")
        #expect(status.lastError == "notes: HTTP 503")
    }

    @Test func oneCauseIsSaidOnceWithTheCollectionsItHit() throws {
        let store = try ShelfStore.testStore()
        try store.write { tx in
            for collection in [CollectionName.sessions, .books, .tasks] {
                try tx.updateSyncState(collection) { $0.lastError = "GET http://h/v1/…/books/records: HTTP 401" }
            }
            try tx.updateSyncState(.products) { $0.lastError = "unavailable: no catalog" }
        }
        let status = try store.read { try $0.syncStatus() }
        #expect(status.lastError == "books, tasks, sessions: GET http://h/v1/…/books/records: HTTP 401; products: unavailable: no catalog")
    }
}
