import Domain
import Foundation
import Records
@testable import Storage
import Sync
import Testing
import TestSupport

/// The waiting changes in one store: what is listed, what discarding one puts
/// back, and what it refuses (what `shelf undo ID` does for a change outside the history).
@Suite("Unsynced changes: listing and undo")
struct UnsyncedChangesTests {
    private func book(_ id: String, _ title: String) -> Data {
        Data(#"{"id":"\#(id)","title":"\#(title)","author_name":"Someone","finished":false}"#.utf8)
    }

    /// A store with book `synced` as the server had it at 1000, and a clock that moves a
    /// second per write so the changes' order is certain.
    private func store() throws -> ShelfStore {
        let clock = ManualClock()
        var configuration = ShelfStore.Configuration()
        configuration.clock = SyncClock(now: { clock.advance(by: .seconds(1)); return clock.now }, sleep: { _ in })
        let store = try ShelfStore.inMemory(configuration: configuration)
        try store.write { tx in
            _ = try SyncRules(tx).applyPulled(RawRecord(id: "synced", lastModified: 1000, json: book("synced", "Synced title")), to: .books)
        }
        return store
    }

    private func title(_ store: ShelfStore, _ id: String) throws -> String? {
        guard let record = try store.record(.books, id: id) else { return nil }
        return try JSONDecoder().decode([String: JSONValue].self, from: record.json)["title"]?.stringValue
    }

    @Test func changesAreListedLeastRecentFirstWithWhatTheyAreAndTheirTitles() throws {
        let store = try store()
        try store.write { tx in try tx.saveLocal(.books, id: "new", json: book("new", "New book")) }
        try store.write { tx in try tx.saveLocal(.books, id: "synced", json: book("synced", "Edited")) }
        try store.write { tx in try tx.saveLocal(.tasks, id: "t-1", json: Data(#"{"id":"t-1","title":"Read","done":false}"#.utf8)) }
        try store.write { tx in try tx.deleteLocal(.tasks, id: "t-1") }  // create + delete: nothing left
        try store.write { tx in
            try tx.saveLocal(.preferences, id: "reader", json: Data(#"{"id":"reader","favorite:new":true}"#.utf8))
        }

        let changes = try UnsyncedChanges(store: store).list()
        #expect(changes.map(\.recordID) == ["new", "synced", "reader"])
        #expect(changes.map(\.change) == [.create, .update, .create])
        #expect(changes.map(\.label) == ["New book", "Edited", "favorites and settings"])
        #expect(changes.map(\.state) == [.waiting, .waiting, .waiting])
        #expect(changes[0].since < changes[1].since)
    }

    @Test func undoingAnEditRestoresTheSyncedVersionAndLeavesNothingToSend() throws {
        let store = try store()
        try store.write { tx in try tx.saveLocal(.books, id: "synced", json: book("synced", "First edit")) }
        try store.write { tx in try tx.saveLocal(.books, id: "synced", json: book("synced", "Second edit")) }

        let undone = try UnsyncedChanges(store: store).discardLatest()

        #expect(undone.change == .update)
        #expect(undone.outcome == .restoredSyncedVersion)
        #expect(undone.label == "Synced title")
        #expect(try title(store, "synced") == "Synced title")
        #expect(try store.record(.books, id: "synced")?.lastModified == 1000)
        #expect(try store.read { try $0.pendingCount() } == 0)
        #expect(try store.read { try $0.base(.books, id: "synced") } == nil)
    }

    @Test func undoingACreationRemovesTheRecord() throws {
        let store = try store()
        try store.write { tx in try tx.saveLocal(.books, id: "new", json: book("new", "New book")) }
        let undone = try UnsyncedChanges(store: store).discard(nil, id: "new")
        #expect(undone.outcome == .removed)
        #expect(undone.label == "New book")
        #expect(try store.record(.books, id: "new") == nil)
        #expect(try store.read { try $0.pendingCount() } == 0)
    }

    @Test func undoingADeletionBringsTheRecordBack() throws {
        let store = try store()
        try store.write { tx in try tx.saveLocal(.books, id: "synced", json: book("synced", "Edited")) }
        try store.write { tx in try tx.deleteLocal(.books, id: "synced") }
        #expect(try store.record(.books, id: "synced") == nil)

        let undone = try UnsyncedChanges(store: store).discard(.books, id: "synced")
        #expect(undone.change == .delete)
        #expect(try title(store, "synced") == "Synced title", "back as last synced, before the edit too")
        #expect(try store.read { try $0.pendingCount() } == 0)
    }

    @Test func onlyTheLatestChangeIsUndoneAtATime() throws {
        let store = try store()
        try store.write { tx in try tx.saveLocal(.books, id: "synced", json: book("synced", "Edited")) }
        try store.write { tx in try tx.saveLocal(.books, id: "new", json: book("new", "New book")) }
        let changes = UnsyncedChanges(store: store)
        #expect(try changes.discardLatest().recordID == "new")
        #expect(try changes.list().map(\.recordID) == ["synced"])
        #expect(try changes.discardLatest().recordID == "synced")
        #expect(throws: UndoError.nothingToUndo) { try changes.discardLatest() }
    }

    @Test func aSentChangeIsRefusedWithWhatToDoInstead() throws {
        let store = try store()
        let entry = try store.write { tx in try tx.saveLocal(.books, id: "synced", json: book("synced", "Edited")) }
        _ = try store.write { tx in try SyncRules(tx).markSent(entry, body: Data(#"{"title":"Edited"}"#.utf8)) }
        let changes = UnsyncedChanges(store: store)
        #expect(try changes.list().map(\.state) == [.sent])

        let error = try #require(throws: UndoError.self) { try changes.discardLatest() }
        #expect(error == .alreadySent(.init(collection: .books, id: "synced", label: "Synced title")))
        #expect(error.description.contains("run 'shelf sync', then change the record again"))
        #expect(try title(store, "synced") == "Edited", "nothing changed")
        #expect(try store.read { try $0.outboxEntry(.books, id: "synced")?.isInFlight } == true)
    }

    @Test func aConflictedChangeOrABookOthersReferToIsNotUndone() throws {
        let store = try store()
        try store.write { tx in try tx.saveLocal(.books, id: "synced", json: book("synced", "Edited")) }
        try store.write { tx in
            try tx.recordConflict(Conflict(
                collection: .books, recordID: "synced", base: book("synced", "Synced title"), local: book("synced", "Edited"),
                remote: book("synced", "Server"), remoteLastModified: 2000, detectedAt: Date()))
        }
        let changes = UnsyncedChanges(store: store)
        #expect(try changes.list().map(\.state) == [.conflict])
        #expect(throws: UndoError.inConflict(.init(collection: .books, id: "synced", label: "Synced title"))) {
            try changes.discard(.books, id: "synced")
        }

        try store.write { tx in try tx.saveLocal(.books, id: "new", json: book("new", "New book")) }
        try store.write { tx in
            try tx.saveLocal(.notes, id: "n-1", json: Data(#"{"id":"n-1","book_id":"new","title":"On it","body":""}"#.utf8))
        }
        #expect(throws: UndoError.self) { try changes.discard(.books, id: "new") }
        #expect(try store.record(.books, id: "new") != nil)
        #expect(throws: UndoError.noChange(collection: nil, id: "missing")) { try changes.discard(nil, id: "missing") }
    }

    @Test func aChangeIsFoundByAUniquePrefixOfItsRecordsID() throws {
        let store = try store()
        for id in ["abcd-1111", "abcd-2222"] {
            try store.write { tx in try tx.saveLocal(.books, id: id, json: book(id, "Book \(id)")) }
        }
        let changes = UnsyncedChanges(store: store)
        #expect(throws: UndoError.tooShort("ab")) { try changes.discard(nil, id: "ab") }
        #expect(throws: UndoError.ambiguous(reference: "abcd", candidates: ["books/abcd-1111", "books/abcd-2222"])) {
            try changes.discard(nil, id: "abcd")
        }
        #expect(try changes.discard(nil, id: "abcd-2").recordID == "abcd-2222")
        #expect(try changes.discard(.books, id: "abcd").recordID == "abcd-1111")
        #expect(throws: UndoError.noChange(collection: .notes, id: "abcd")) { try changes.discard(.notes, id: "abcd") }
    }

    /// The undo is one transaction: when it fails half-way (here: the outbox entry is
    /// already removed when the missing base snapshot is found), nothing of it stays.
    @Test func anUndoThatFailsHalfWayLeavesTheChangeWhole() throws {
        let store = try store()
        try store.write { tx in try tx.saveLocal(.books, id: "synced", json: book("synced", "Edited")) }
        try store.write { tx in try tx.removeBase(.books, id: "synced") }

        #expect(throws: StorageError.self) { try UnsyncedChanges(store: store).discard(.books, id: "synced") }

        #expect(try title(store, "synced") == "Edited")
        let entry = try #require(try store.read { try $0.outboxEntry(.books, id: "synced") })
        #expect(entry.kind == .update)
        #expect(try UnsyncedChanges(store: store).list().map(\.recordID) == ["synced"])
    }
}
