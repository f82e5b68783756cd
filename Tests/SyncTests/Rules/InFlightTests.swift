import Domain
import Foundation
import Testing
@testable import Storage
@testable import Sync
import TestSupport

/// An outbox entry that has been sent is in flight: the server may have applied it
/// whatever happened to the reply. It is repeated as sent, never coalesced away, and
/// later edits wait behind it. Marking sent and acknowledging are decided on values too
/// (`SendingPlanTests`, `AcknowledgementPlanTests`); coalescing an edit behind a change in
/// flight is Storage's own rule, shown here on a store.
@Suite("In flight is not unsent")
struct InFlightTests {
    private func sentCreate(_ store: ShelfStore, id: String = "b1") throws -> OutboxEntry {
        try store.write { tx in
            let entry = try tx.saveLocal(.books, id: id, json: Wire.book(id, title: "Dune", author: "Frank Herbert"))
            return try #require(try SyncRules(tx).markSent(entry, body: Wire.book(id, title: "Dune", author: "Frank Herbert")))
        }
    }

    // MARK: - Coalescing

    @Test func aDeletionAfterASentCreateIsQueuedBehindIt() throws {
        let store = try ShelfStore.testStore()
        let sent = try sentCreate(store)

        let after = try store.write { tx in try tx.deleteLocal(.books, id: "b1") }

        // THEN the entry stays a create in flight, with the deletion waiting behind it
        let entry = try #require(after)
        #expect(entry.sequence == sent.sequence)
        #expect(entry.kind == .create)
        #expect(entry.isInFlight && entry.hasChangesAfterSending)
        #expect(entry.sentBody == sent.sentBody)
        #expect(try store.read { try $0.record(.books, id: "b1") } == nil)
        #expect(try store.read { try $0.record(.books, id: "b1", includingDeleted: true)?.isDeleted } == true)
    }

    @Test func anUnsentCreateThenDeleteStillLeavesNothing() throws {
        let store = try ShelfStore.testStore()
        _ = try store.write { tx in try tx.saveLocal(.books, id: "b1", json: Wire.book("b1", title: "Dune", author: "A")) }
        #expect(try store.write { tx in try tx.deleteLocal(.books, id: "b1") } == nil)
        #expect(try store.outbox().isEmpty)
    }

    @Test func anEditAfterASentUpdateKeepsTheRequestAsSent() throws {
        let store = try ShelfStore.testStore()
        try store.applyPulled([Wire.remoteBook("b1", title: "Dune", lastModified: 100)], to: .books)
        let sent = try store.write { tx in
            let entry = try tx.saveLocal(.books, id: "b1", json: Wire.book("b1", title: "Dune Messiah", author: "Anon"))
            return try #require(try SyncRules(tx).markSent(entry, body: Wire.book("b1", title: "Dune Messiah", author: "Anon")))
        }

        let edited = try store.write { tx in try tx.saveLocal(.books, id: "b1", json: Wire.book("b1", title: "Children of Dune", author: "Anon")) }

        #expect(edited.kind == .update && edited.baseLastModified == 100)
        #expect(edited.sentRevision == sent.revision && edited.revision == sent.revision + 1)
        // Marking it sent again changes nothing: the same request goes out again.
        let again = try store.write { tx in try SyncRules(tx).markSent(edited, body: Wire.book("b1", title: "other", author: "x")) }
        #expect(again?.sentBody == sent.sentBody && again?.sentRevision == sent.revision)
    }

    @Test func anEntryEditedAfterItWasReadIsNotMarkedSent() throws {
        let store = try ShelfStore.testStore()
        let read = try store.write { tx in try tx.saveLocal(.books, id: "b1", json: Wire.book("b1", title: "Dune", author: "A")) }
        _ = try store.write { tx in try tx.saveLocal(.books, id: "b1", json: Wire.book("b1", title: "Dune 2", author: "A")) }

        // WHEN a push built from the first read marks it sent
        let marked = try store.write { tx in try SyncRules(tx).markSent(read, body: Wire.book("b1", title: "Dune", author: "A")) }

        // THEN it is not: its body would say less than the store holds
        #expect(marked == nil)
        #expect(try store.read { try $0.outboxEntry(.books, id: "b1") }?.isInFlight == false)
    }

    // MARK: - Acknowledgement

    @Test func acknowledgingASentCreateQueuesTheLaterDeletionAgainstTheServersVersion() throws {
        let store = try ShelfStore.testStore()
        let sent = try sentCreate(store)
        _ = try store.write { tx in try tx.deleteLocal(.books, id: "b1") }

        try store.write { tx in try SyncRules(tx).acknowledgePush(sent, server: Wire.remoteBook("b1", title: "Dune", lastModified: 500)) }

        let entry = try #require(try store.read { try $0.outboxEntry(.books, id: "b1") })
        #expect(entry.kind == .delete && entry.baseLastModified == 500 && !entry.isInFlight)
        #expect(try store.read { try $0.base(.books, id: "b1")?.lastModified } == 500)
    }

    @Test func acknowledgingWithoutLaterEditsLeavesTheServersVersion() throws {
        let store = try ShelfStore.testStore()
        let sent = try sentCreate(store)
        try store.write { tx in try SyncRules(tx).acknowledgePush(sent, server: Wire.remoteBook("b1", title: "Dune", lastModified: 500)) }
        #expect(try store.outbox().isEmpty)
        #expect(try store.read { try $0.record(.books, id: "b1")?.lastModified } == 500)
    }

    // MARK: - Schema

    @Test func inFlightStateSurvivesReopeningTheFile() throws {
        let folder = try TemporaryDirectory()
        let location = StoreLocation.file(folder.file("shelf.sqlite"))
        do {
            let store = try ShelfStore(location: location)
            _ = try sentCreate(store)
        }
        let reopened = try ShelfStore(location: location)
        let entry = try #require(try reopened.read { try $0.outboxEntry(.books, id: "b1") })
        #expect(entry.isInFlight && entry.sentBody != nil)
    }

    // MARK: - Recovery

    @Test func aRecoveryRequeuesWhatTheServerLacksAndItsDeletionsAsTombstones() throws {
        let store = try ShelfStore.testStore()
        try store.applyPulled([
            Wire.remoteBook("kept", title: "A", lastModified: 100),
            Wire.remoteBook("lost", title: "B", lastModified: 110),
            Wire.remoteBook("edited", title: "C", lastModified: 120),
            Wire.remoteBook("gone", title: "D", lastModified: 130),
        ], to: .books)
        try store.write { tx in
            try tx.updateSyncState(.books) { $0.cursor = 130 }
            _ = try tx.saveLocal(.books, id: "edited", json: Wire.book("edited", title: "C2", author: "Anon"))
            _ = try tx.deleteLocal(.books, id: "gone")
            try SyncRules(tx).startRecovery(.books, collectionTimestamp: 999)
        }
        let state = try store.read { try $0.syncState(.books) }
        #expect(state.recovering && state.cursor == nil && state.cursorBeforeRecovery == 130)

        let requeued = try store.write { tx in try SyncRules(tx).requeueRecordsMissing(from: .books, present: ["kept"]) }

        #expect(requeued == 2)
        let entries = Dictionary(uniqueKeysWithValues: try store.outbox().map { ($0.recordID, $0) })
        #expect(entries["lost"]?.kind == .create && entries["edited"]?.kind == .create)
        #expect(entries["kept"] == nil)
        // Deleted here, forgotten there: put back as it was, then deleted, so that the
        // server keeps a tombstone for the devices that still have it
        let gone = try #require(entries["gone"])
        #expect(gone.kind == .create && gone.isInFlight && gone.hasChangesAfterSending)
        #expect(gone.sentBody.map { String(decoding: $0, as: UTF8.self).contains("\"title\":\"D\"") } == true)
        #expect(try store.read { try $0.record(.books, id: "edited")?.json }.map { String(decoding: $0, as: UTF8.self).contains("C2") } == true)
        #expect(try store.read { try $0.syncState(.books) }.recovering == false)
    }
}
