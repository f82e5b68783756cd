import Domain
import Foundation
import Screens
import Sync
import Testing
import TestSupport

/// The screens of a person's sync decisions — a conflict field by field, a resolution,
/// the pending changes and an undo — against the files in `Fixtures/rendering/`.
@Suite("Rendering: conflict detail, resolution, pending changes, undo")
struct DecisionScreenRenderingTests {
    let detected = Date(timeIntervalSince1970: 1_740_817_800)  // 2025-03-01T08:30:00Z

    @Test func aConflictFieldByField() throws {
        let summary = ConflictSummary(
            collection: .books, recordID: "book-001", kind: .fields, fields: ["pages", "title"], label: "The Dispossessed",
            detectedAt: detected)
        let detail = ConflictDetail(
            summary: summary, deletedHere: false, deletedOnServer: false,
            fields: [
                FieldVersions(name: "author_name", base: .string("Le Guin"), local: .string("Le Guin"), server: .string("Ursula K. Le Guin"), outcome: .server),
                FieldVersions(name: "finished", base: .bool(false), local: .bool(true), server: .bool(false), outcome: .local),
                FieldVersions(name: "pages", base: .number(300), local: .number(320), server: nil, outcome: .clash),
                FieldVersions(name: "title", base: .string("Dispossessed"), local: .string("The Dispossessed"), server: .string("Dispossessed: A Utopia"), outcome: .clash),
            ],
            knownFields: ["author_name", "finished", "pages", "title"])
        try RenderingFixture.expect(ConflictDetailScreen(detail), matches: "conflict-detail")

        let deleted = ConflictDetail(
            summary: ConflictSummary(collection: .notes, recordID: "note-002", kind: .deleteVersusEdit, fields: [], label: "Spice", detectedAt: detected),
            deletedHere: true, deletedOnServer: false,
            fields: [FieldVersions(name: "body", base: .string(""), local: nil, server: .string("Edited on the phone"), outcome: .server)],
            knownFields: ["body", "title"])
        try RenderingFixture.expect(ConflictDetailScreen(deleted), matches: "conflict-detail-deleted")
    }

    @Test func aResolution() throws {
        let resolution = ConflictResolver.Resolution(
            collection: .books, recordID: "book-001", fields: ["title": .written, "pages": .remote], queued: true)
        try RenderingFixture.expect(ResolutionScreen(resolution), matches: "resolution-fields")
        let whole = ConflictResolver.Resolution(collection: .notes, recordID: "note-002", fields: [:], wholeRecord: .remote, queued: false)
        try RenderingFixture.expect(ResolutionScreen(whole), matches: "resolution-record")
    }

    static let sessionID = "3f2c9a41-7b7e-4b51-9d0e-5a1f3c2e8b10"
    static let sessionShortIDs = ShortIDs([.sessions: [sessionID: "3f2c9a41"]])

    @Test func pendingChangesAndAnUndo() throws {
        let later = detected.addingTimeInterval(90)
        let changes = [
            UnsyncedChange(collection: .books, recordID: "book-001", change: .update, label: "The Dispossessed", since: detected,
                           changedAt: detected, state: .sent, sequence: 1),
            UnsyncedChange(collection: .sessions, recordID: Self.sessionID, change: .create, label: "25 min on 2025-03-01", since: detected,
                           changedAt: later, state: .waiting, sequence: 2),
            UnsyncedChange(collection: .tasks, recordID: "task-009", change: .delete, label: nil, since: later,
                           changedAt: later, state: .waiting, sequence: 3),
        ]
        let edit = HistoryEntry(
            operation: 7, madeAt: detected, origin: "book edit", state: .done, delivery: .sent, reverts: nil, isUndoable: true,
            records: [HistoryRecord(collection: .books, id: "book-001", label: "The Dispossessed", change: .changed, fields: ["title"])],
            recordCount: 1, tally: [.books: HistoryEntry.Tally(changed: 1)])
        let removal = HistoryEntry(
            operation: 8, madeAt: later, origin: "book rm", state: .done, delivery: .waiting, reverts: nil, isUndoable: true,
            records: [
                HistoryRecord(collection: .books, id: "book-002", label: "Kindred", change: .removed, fields: []),
                HistoryRecord(collection: .notes, id: "note-001", label: "Dana", change: .removed, fields: []),
                HistoryRecord(collection: .notes, id: "note-002", label: "Rufus", change: .removed, fields: []),
                HistoryRecord(collection: .preferences, id: "reader", label: nil, change: .changed, fields: ["favorite book-002"]),
            ],
            recordCount: 4, tally: [.books: HistoryEntry.Tally(removed: 1), .notes: HistoryEntry.Tally(removed: 2), .preferences: HistoryEntry.Tally(changed: 1)])
        let pending = PendingWork(operations: [edit, removal], outside: Array(changes.suffix(2)), changes: changes)
        // The text shows the session's short id as every table does; the JSON the full one.
        try RenderingFixture.expect(PendingChangesScreen(pending, shortIDs: Self.sessionShortIDs), matches: "pending-full")
        try RenderingFixture.expect(PendingChangesScreen(PendingWork(operations: [], outside: [], changes: [])), matches: "pending-empty")

        var undone = removal
        undone.state = .undone
        try RenderingFixture.expect(
            UndoScreen(UndoOutcome(
                direction: .undo, entry: edit,
                records: [.init(collection: .books, id: "book-001", label: "Dispossessed", outcome: .changed, fields: ["title"])],
                revertedBy: nil, canRedo: true)),
            matches: "undo-update")
        try RenderingFixture.expect(
            UndoScreen(UndoOutcome(
                direction: .undo, entry: undone,
                records: [
                    .init(collection: .notes, id: "note-002", label: "Rufus", outcome: .restored, fields: []),
                    .init(collection: .notes, id: "note-001", label: "Dana", outcome: .restored, fields: []),
                    .init(collection: .preferences, id: "reader", label: nil, outcome: .changed, fields: ["favorite book-002"]),
                    .init(collection: .books, id: "book-002", label: "Kindred", outcome: .restored, fields: []),
                ],
                revertedBy: nil, canRedo: true)),
            matches: "undo-removal")
        try RenderingFixture.expect(
            UndoScreen(UndoOutcome(
                direction: .undo, entry: nil,
                records: [.init(collection: .books, id: "book-002", label: "Kindred", outcome: .removed, fields: [])],
                revertedBy: nil, canRedo: false)),
            matches: "undo-create")
        let incomplete = HistoryEntry(
            operation: 9, madeAt: later, origin: "import", state: .done, delivery: .unknown, reverts: nil, isUndoable: false,
            records: [], recordCount: 5000, tally: [.books: HistoryEntry.Tally(added: 4990), .notes: HistoryEntry.Tally(added: 10)])
        try RenderingFixture.expect(HistoryScreen([edit, removal, incomplete, undone.with(operation: 10)]), matches: "history")
    }
}

private extension HistoryEntry {
    func with(operation: Int64) -> HistoryEntry {
        var entry = self
        entry.operation = operation
        return entry
    }
}
