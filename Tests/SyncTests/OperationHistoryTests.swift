import Domain
import Foundation
import Records
import Storage
import Sync
import Testing
import TestSupport

/// The history of operations in one store: undo takes back one step, field by field,
/// redo puts it back, and what would remove a record or lose a later change needs a yes.
@Suite("Operation history: undo, redo and what needs a yes")
struct OperationHistoryTests {
    let clock = TestClock()
    let store: ShelfStore
    let history: OperationHistory

    init() throws {
        store = try ShelfStore.testStore(clock: clock)
        history = OperationHistory(store: store)
    }

    // MARK: Helpers

    /// One operation, as a command makes it: its writes in one `edit`.
    private func operation(_ origin: String, _ body: (StoreTransaction) throws -> Void) throws {
        clock.advance()
        store.setOperationOrigin(origin)
        try store.edit { tx in try body(tx) }
    }

    private func saveBook(_ id: String, title: String, author: String = "Frank Herbert", finished: Bool = false) throws {
        try operation("book save") { tx in
            try tx.saveLocal(.books, id: id, json: Wire.book(id, title: title, author: author, finished: finished))
        }
    }

    private func book(_ id: String) throws -> [String: Any]? {
        guard let record = try store.record(.books, id: id) else { return nil }
        return try JSONSerialization.jsonObject(with: record.json) as? [String: Any]
    }

    /// Plans and carries out an undo; refuses, as the CLI does off a terminal, what needs a yes unless `yes`.
    @discardableResult
    private func undo(_ target: UndoTarget = .last, yes: Bool = false) throws -> UndoOutcome {
        let plan = try history.planUndo(target)
        if !yes, !plan.warnings.isEmpty { throw UndoError.needsConfirmation(plan) }
        return try history.carryOut(plan)
    }

    @discardableResult
    private func redo(yes: Bool = false) throws -> UndoOutcome {
        let plan = try history.planRedo()
        if !yes, !plan.warnings.isEmpty { throw UndoError.needsConfirmation(plan) }
        return try history.carryOut(plan)
    }

    // MARK: One step at a time

    /// The issue's report: add, edit, finish, then `undo` took all three back and removed
    /// the book without a word. Now each undo takes back one operation.
    @Test func undoTakesBackOneOperationAtATimeAndAskBeforeRemovingARecord() throws {
        try saveBook("dune", title: "Dune")
        try saveBook("dune", title: "Dune (1965)")
        try saveBook("dune", title: "Dune (1965)", finished: true)
        #expect(try history.entries().map(\.origin) == ["book save", "book save", "book save"])

        let finish = try undo()
        #expect(finish.records.map(\.fields) == [["finished"]])
        #expect(try book("dune")?["finished"] as? Bool == false)
        #expect(try book("dune")?["title"] as? String == "Dune (1965)", "the edit before it stays")

        try undo()
        #expect(try book("dune")?["title"] as? String == "Dune")

        // The last step removes the book: it says so, and nothing happens without a yes.
        #expect {
            try undo()
        } throws: { error in
            guard case UndoError.needsConfirmation(let plan) = error else { return false }
            return plan.confirmationReasons == [#"removes book dune ("Dune")"#]
        }
        #expect(try book("dune") != nil)
        let removed = try undo(yes: true)
        #expect(removed.records.map(\.outcome) == [.removed])
        #expect(try book("dune") == nil)
        #expect(try store.outbox().isEmpty, "never synced: nothing to tell the server")

        // Redo walks forward again, one step at a time.
        try redo()
        #expect(try book("dune")?["title"] as? String == "Dune")
        try redo()
        try redo()
        #expect(try book("dune")?["finished"] as? Bool == true)
        #expect(throws: UndoError.nothingToRedo) { try redo() }
        #expect(try history.entries().map(\.state) == [.done, .done, .done])
    }

    @Test func aNewOperationEndsWhatCanBeRedone() throws {
        try saveBook("dune", title: "Dune")
        try saveBook("dune", title: "Dune (1965)")
        try undo()
        try saveBook("dune", title: "Dune, revised")
        #expect(throws: UndoError.nothingToRedo) { try redo() }
        #expect(try history.entries().map(\.state) == [.done, .done])
    }

    @Test func anEditTakenBackBeforeASyncLeavesNothingToSend() throws {
        try store.applyPulled([Wire.remoteBook("b1", title: "Dune", lastModified: 100)], to: .books)
        try saveBook("b1", title: "A typo", author: "Anon")
        #expect(try store.outbox().map(\.kind) == [.update])
        try undo()
        #expect(try store.outbox().isEmpty, "the record is back as the server has it: its change is dropped")
        #expect(try store.record(.books, id: "b1")?.lastModified == 100)
        #expect(try history.pending().operations.isEmpty)
    }

    @Test func anOperationOnSeveralRecordsIsTakenBackWhole() throws {
        try saveBook("b1", title: "Dune")
        try operation("note add") { tx in
            try tx.saveLocal(.notes, id: "n1", json: Wire.note("n1", title: "Spice", body: "flows", bookID: "b1"))
            try tx.saveLocal(.notes, id: "n2", json: Wire.note("n2", title: "Sand", body: "worms", bookID: "b1"))
        }
        try operation("book rm") { tx in
            try tx.deleteLocal(.notes, id: "n1")
            try tx.deleteLocal(.notes, id: "n2")
            try tx.deleteLocal(.books, id: "b1")
        }
        #expect(try book("b1") == nil)
        let back = try undo()
        #expect(back.records.map(\.outcome) == [.restored, .restored, .restored])
        #expect(back.records.map(\.id) == ["b1", "n2", "n1"], "in the reverse order: the book before the notes about it")
        #expect(Set(try store.read { try $0.records(RecordQuery(.notes)) }.map(\.id)) == ["n1", "n2"])
    }

    /// The preferences record stands for its fields: taking back a favorite sets its field
    /// back, and never asks about removing "favorites and settings".
    @Test func undoingAFavoriteSetsItsFieldBackAndNeverRemovesThePreferences() throws {
        try operation("favorite add") { tx in
            try tx.saveLocal(.preferences, id: "reader", json: Wire.object(["id": "reader", "favorite:b1": true]))
        }
        try operation("settings") { tx in
            try tx.saveLocal(.preferences, id: "reader", json: Wire.object(["id": "reader", "favorite:b1": true, "daily_goal_minutes": 45]))
        }
        let goal = try history.planUndo(.last)
        #expect(goal.warnings.isEmpty)
        #expect(try history.carryOut(goal).records.map(\.fields) == [["daily_goal_minutes"]])
        let favorite = try history.planUndo(.last)
        #expect(favorite.warnings.isEmpty, "no record is removed: a field is set back")
        #expect(favorite.entry?.records.map(\.fields) == [["favorite b1"]])
        _ = try history.carryOut(favorite)
        #expect(try store.record(.preferences, id: "reader") == nil, "made here and left with no field: nothing to send")
        #expect(try store.outbox().isEmpty)
        try redo()
        #expect(try store.record(.preferences, id: "reader") != nil)
    }

    @Test func undoingABooksCreationWhileALaterNoteRefersToItIsRefused() throws {
        try saveBook("b1", title: "Dune")
        try operation("note add") { tx in
            try tx.saveLocal(.notes, id: "n1", json: Wire.note("n1", title: "Spice", body: "flows", bookID: "b1"))
        }
        #expect {
            try undo(.operation(1), yes: true)
        } throws: { error in
            if case UndoError.referenced = error { return true }
            return false
        }
        #expect(try book("b1") != nil, "nothing changed")
    }

    // MARK: A later change is never lost in silence

    @Test func takingBackAnOlderOperationSaysWhichLaterOneChangedTheSameField() throws {
        try saveBook("b1", title: "Dune")
        try saveBook("b1", title: "Dune (1965)")
        try saveBook("b1", title: "Dune: a novel")

        let plan = try history.planUndo(.operation(2))
        #expect(plan.subject == .operation(2, selective: true))
        #expect(plan.confirmationReasons == [
            #"sets book b1 ("Dune")'s title back to "Dune": it was changed since by #3 (book save), to "Dune: a novel", and that change is lost"#,
        ])
        #expect(throws: UndoError.needsConfirmation(plan)) { try undo(.operation(2)) }
        #expect(try book("b1")?["title"] as? String == "Dune: a novel")

        let outcome = try undo(.operation(2), yes: true)
        #expect(outcome.revertedBy == 4, "taken back by a new operation, which undo takes back in turn")
        #expect(try book("b1")?["title"] as? String == "Dune")
        try undo()
        #expect(try book("b1")?["title"] as? String == "Dune: a novel")
    }

    @Test func aLaterChangeToAnotherFieldStaysWithoutAQuestion() throws {
        try saveBook("b1", title: "Dune")
        try saveBook("b1", title: "Dune (1965)")
        try saveBook("b1", title: "Dune (1965)", author: "F. Herbert")
        let outcome = try undo(.operation(2))
        #expect(outcome.records.map(\.fields) == [["title"]])
        #expect(try book("b1")?["title"] as? String == "Dune")
        #expect(try book("b1")?["author_name"] as? String == "F. Herbert", "the later change to the author stays")
    }

    /// A change pulled from the server after the operation: the undo names it and asks.
    @Test func aPulledServerChangeToTheSameFieldIsNamedAndAsked() throws {
        try store.applyPulled([Wire.remoteBook("b1", title: "Dune", lastModified: 100)], to: .books)
        try saveBook("b1", title: "Dune (1965)", author: "Anon")
        // The edit is acknowledged; then another device renames the book.
        try store.write { tx in
            guard let entry = try tx.outboxEntry(.books, id: "b1") else { return }
            try SyncRules(tx).acknowledgePush(entry, server: Wire.remoteBook("b1", title: "Dune (1965)", lastModified: 200))
        }
        #expect(try history.pending().operations.isEmpty, "synced")
        try store.applyPulled([Wire.remoteBook("b1", title: "Dune, from the phone", lastModified: 300)], to: .books)

        let plan = try history.planUndo(.last)
        #expect(plan.confirmationReasons == [
            #"sets book b1 ("Dune")'s title back to "Dune": it was changed since by a sync (or a settled conflict), to "Dune, from the phone", and that change is lost"#,
        ])
        _ = try history.carryOut(plan)
        #expect(try book("b1")?["title"] as? String == "Dune")
        #expect(try store.outbox().map(\.kind) == [.update], "the undo goes to the server like any change")
        #expect(try store.outbox().first?.baseLastModified == 300)
    }

    @Test func aRecordRemovedSinceIsBroughtBackOnlyWithAYes() throws {
        try saveBook("b1", title: "Dune")
        try saveBook("b1", title: "Dune (1965)")
        try operation("book rm") { tx in try tx.deleteLocal(.books, id: "b1") }
        let plan = try history.planUndo(.operation(2))
        #expect(plan.confirmationReasons == [#"brings back book b1 ("Dune"), removed since by #3 (book rm)"#])
    }

    /// The store changed between the question and the answer: nothing is written.
    @Test func aPlanConfirmedBeforeTheStoreChangedIsRefused() throws {
        try saveBook("b1", title: "Dune")
        try saveBook("b1", title: "Dune (1965)")
        let plan = try history.planUndo(.last)
        #expect(plan.warnings.isEmpty)
        try saveBook("b1", title: "Dune: a novel")
        #expect {
            try history.carryOut(plan)
        } throws: { error in
            if case UndoError.changedMeanwhile = error { return true }
            return false
        }
        #expect(try book("b1")?["title"] as? String == "Dune: a novel")
    }

    // MARK: What waits, and what the history keeps

    @Test func pendingListsTheOperationsNotSyncedAndTheChangesMadeOutsideTheHistory() throws {
        try store.applyPulled([Wire.remoteBook("b1", title: "Dune", lastModified: 100)], to: .books)
        try store.write { tx in try tx.saveLocal(.books, id: "b1", json: Wire.book("b1", title: "Resolved", author: "Anon")) }
        try saveBook("b2", title: "Kindred")
        try saveBook("b2", title: "Kindred", finished: true)

        let pending = try history.pending()
        #expect(pending.operations.map(\.operation) == [1, 2])
        #expect(pending.operations.map(\.delivery) == [.waiting, .waiting])
        #expect(pending.outside.map(\.recordID) == ["b1"], "a write outside the history")
        #expect(pending.changes.map(\.recordID) == ["b1", "b2"])

        // The change outside the history is discarded by naming its record, with a yes.
        let plan = try history.planUndo(.record(nil, "b1"))
        #expect(plan.subject == .unsyncedChanges(.books, "b1"))
        #expect(plan.warnings.count == 1)
        _ = try history.carryOut(plan)
        #expect(try book("b1")?["title"] as? String == "Dune")
    }

    @Test func theHistoryKeepsTheLastOperationsOnly() throws {
        for index in 0..<(OperationHistoryLimits.maximumOperations + 5) {
            try operation("task add") { tx in
                try tx.saveLocal(.tasks, id: "t\(index)", json: Wire.task("t\(index)", title: "Task \(index)"))
            }
        }
        let entries = try history.entries()
        #expect(entries.count == OperationHistoryLimits.maximumOperations)
        #expect(entries.first?.operation == 6 && entries.last?.operation == Int64(OperationHistoryLimits.maximumOperations + 5))
    }

    @Test func anOperationTooLargeToKeepIsListedButNeverUndone() throws {
        let count = OperationHistoryLimits.maximumRecordsPerOperation + 1
        try operation("import") { tx in
            for index in 0..<count {
                try tx.saveLocal(.books, id: "g\(index)", json: Wire.book("g\(index)", title: "Imported \(index)", author: "A"))
            }
        }
        let entry = try #require(try history.entries().last)
        #expect(!entry.isUndoable && entry.records.isEmpty && entry.recordCount == count)
        #expect(entry.tally[.books] == HistoryEntry.Tally(added: count))
        #expect(throws: UndoError.tooLarge(entry)) { try undo(yes: true) }
        #expect(try store.count(RecordQuery(.books)) == count)
    }

    @Test func anEditThatChangesNothingIsNoOperation() throws {
        try saveBook("b1", title: "Dune")
        try saveBook("b1", title: "Dune")
        #expect(try history.entries().count == 1)
    }

    @Test func writesOfTheSyncEngineAreNotTheReadersOperations() throws {
        try store.applyPulled([Wire.remoteBook("b1", title: "Dune", lastModified: 100)], to: .books)
        try store.write { tx in try tx.saveLocal(.books, id: "b1", json: Wire.book("b1", title: "Merged", author: "Anon")) }
        #expect(try history.entries().isEmpty)
        #expect(throws: UndoError.nothingInHistory(waiting: 1)) { try undo() }
    }

    @Test func aRefusalOfEditsStopsUndoAndRedoToo() throws {
        try saveBook("b1", title: "Dune")
        struct Refused: Error, Equatable {}
        store.refuseEdits(Refused())
        #expect(throws: Refused.self) { try saveBook("b2", title: "Kindred") }
        #expect(throws: Refused.self) { try undo(yes: true) }
        #expect(try book("b1") != nil && book("b2") == nil)
    }
}
