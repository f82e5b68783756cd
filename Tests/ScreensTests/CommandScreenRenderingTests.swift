import Domain
import Foundation
import Presentation
import Screens
import Sync
import Testing
import TestSupport

/// The screens only the CLI's commands show — a record, a change, the library through
/// the search port, conflicts, failed changes, a sync run, accounts — against the files
/// in `Fixtures/rendering/`.
@MainActor
@Suite("Rendering: command screens")
struct CommandScreenRenderingTests {
    let detected = Date(timeIntervalSince1970: 1_740_817_800)  // 2025-03-01T08:30:00Z

    // MARK: Library through the search port

    @Test func librarySearched() async throws {
        let model = BookSearchModel(service: FakeBookService(books: try SampleShelf.books()))
        await model.search("garcia", unfinishedOnly: false)
        try RenderingFixture.expect(LibraryScreen(model), matches: "library-search")
        await model.search("", unfinishedOnly: true)
        try RenderingFixture.expect(LibraryScreen(model), matches: "library-search-unfinished")
    }

    @Test func notesAboutOneBook() async throws {
        let model = NotesViewModel(service: FakeNoteService(notes: try SampleShelf.notes()))
        model.filter(book: "book-005")
        await model.load()
        try RenderingFixture.expect(NotesScreen(model), matches: "notes-about-book")
        model.search("muchos")
        #expect(NotesScreen(model).renderText(.plain) == "No notes match \"muchos\" about book book-005.\n")
    }

    // MARK: Records

    @Test func bookAndNoteDetails() throws {
        let books = try SampleShelf.books()
        try RenderingFixture.expect(BookDetailScreen(books[0], isFavorite: true), matches: "book-detail")
        try RenderingFixture.expect(NoteDetailScreen(try SampleShelf.notes()[2]), matches: "note-detail")
    }

    // MARK: Changes

    @Test func changesSayWhatWasWrittenAndThatItIsQueued() throws {
        let book = try SampleShelf.books()[1]
        try RenderingFixture.expect(ChangeScreen.book(.added, book), matches: "change-book-added")
        try RenderingFixture.expect(ChangeScreen.removed(.notes, id: "note-002"), matches: "change-note-removed")

        var finished = book
        finished.isFinished = true
        #expect(ChangeScreen.bookFinished(finished).message == "Marked book book-003 finished (queued for sync)")
        #expect(ChangeScreen.taskDone(try SampleShelf.tasks()[1]).message
            == "Marked task task-002 not done (queued for sync)")
        #expect(ChangeScreen.putInCart(try CartItem(productID: "prod-001", quantity: 2)).message
            == "Put 2 × prod-001 in the cart (queued for sync)")
        #expect(ChangeScreen.favorite("book-003", isFavorite: false).message == "Book book-003 is no longer a favorite (queued for sync)")
        #expect(ChangeScreen.resolved(.books, id: "b-1", keptLocal: true).message
            == "Kept the local version of books/b-1; it is sent on the next sync")
        #expect(try ChangeScreen.retried(failedChange: 7).renderJSON() == "{\n  \"action\" : \"retried\",\n  \"id\" : 7\n}\n")
    }

    // MARK: Sync decisions

    @Test func conflictsAndFailedChanges() throws {
        let conflicts = [
            ConflictSummary(collection: .books, recordID: "book-001", kind: .fields, fields: ["author_name", "title"],
                            label: "Dune (2nd edition)", detectedAt: detected),
            ConflictSummary(collection: .notes, recordID: "note-002", kind: .deleteVersusEdit, fields: [],
                            label: nil, detectedAt: detected),
        ]
        try RenderingFixture.expect(ConflictsScreen(conflicts), matches: "conflicts-full")
        try RenderingFixture.expect(ConflictsScreen([]), matches: "conflicts-empty")

        let failed = [FailedChange(id: 3, collection: .tasks, recordID: "task-009", change: "create", status: 400,
                                   reason: "Invalid parameters: data.title is too long", failedAt: detected)]
        try RenderingFixture.expect(FailedChangesScreen(failed), matches: "failed-full")
        try RenderingFixture.expect(FailedChangesScreen([]), matches: "failed-empty")
    }

    // MARK: Sync runs

    @Test func syncRuns() throws {
        var books = CollectionReport()
        books.pulled = 12
        books.pushed = 2
        var notes = CollectionReport()
        notes.pulled = 3
        notes.conflicts = 1
        let synced = RunReport(account: "reader", outcome: .synced, message: "synced", startedAt: detected,
                               durationMilliseconds: 420, requests: 3, collections: ["books": books])
        try RenderingFixture.expect(SyncRunScreen(synced), matches: "sync-run-synced")

        let attention = RunReport(account: "reader", outcome: .needsAttention,
                                  message: "1 conflict to resolve ('shelf conflicts')", startedAt: detected,
                                  durationMilliseconds: 1250, requests: 3, collections: ["notes": notes, "books": books])
        try RenderingFixture.expect(SyncRunScreen(attention), matches: "sync-run-needs-attention")

        let reason = "the server offers no shop catalog (shop/products answered HTTP 403); products and the cart's prices stay empty"
        let noCatalog = RunReport(account: "reader", outcome: .synced, message: "synced; \(reason)", startedAt: detected,
                                  durationMilliseconds: 380, requests: 6, collections: ["books": books],
                                  unavailable: ["products": reason])
        try RenderingFixture.expect(SyncRunScreen(noCatalog), matches: "sync-run-no-catalog")

        let offline = RunReport(account: "reader", outcome: .temporaryFailure,
                                message: "could not connect to 127.0.0.1:8888 (connection refused)", startedAt: detected)
        #expect(SyncRunScreen(offline).renderText(.plain)
            == "Not synced: could not connect to 127.0.0.1:8888 (connection refused)\n")
    }

    // MARK: Accounts

    @Test func accounts() throws {
        let screen = AccountsScreen(accounts: [
            .init(name: "work", user: "ana", server: "https://kinto.example.org/v1", isCurrent: false),
            .init(name: "home", user: "reader", server: "http://127.0.0.1:8888/v1", isCurrent: true),
        ], problems: ["account old: /home/ana/.config/shelf/accounts/old.json is accessible by group or others (mode 644)"])
        try RenderingFixture.expect(screen, matches: "accounts-full")
        try RenderingFixture.expect(AccountsScreen(accounts: []), matches: "accounts-empty")
    }
}
