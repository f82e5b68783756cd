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
        let model = BookSearchViewModel(service: FakeBookService(books: try SampleShelf.books()))
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

    // MARK: Short ids

    /// Tables show the prefixes they are given, notes their books' titles; JSON keeps
    /// the full ids.
    @Test func listsShowShortIDsAndNotesTheirBooksTitles() async throws {
        let books = [
            try Book(id: "3f2b1c9a-0d4e-4c1b-9a7e-5e1f2a3b4c5d", title: "The Dispossessed", author: "Ursula K. Le Guin"),
            try Book(id: "3f2b1c9f-77aa-4b0c-8d21-0a9b8c7d6e5f", title: "Dune", author: "Frank Herbert"),
        ]
        let model = BookSearchViewModel(service: FakeBookService(books: books))
        await model.search("", unfinishedOnly: false)
        let shortIDs = ShortIDs([.books: [books[0].id: "3f2b1c9a", books[1].id: "3f2b1c9f"]])
        try RenderingFixture.expect(LibraryScreen(model, shortIDs: shortIDs), matches: "library-short-ids")

        let notes = [
            try Note(id: "9c0ffee1-2b3c-4d5e-8f90-a1b2c3d4e5f6", bookID: books[0].id, title: "Walls", body: "On both sides."),
            try Note(id: "9c0ffee2-3c4d-4e5f-9a01-b2c3d4e5f6a7", bookID: nil, title: "Loose thought"),
        ]
        let notesModel = NotesViewModel(service: FakeNoteService(notes: notes))
        await notesModel.load()
        var noteIDs = shortIDs
        noteIDs.merge(.notes, [notes[0].id: "9c0ffee1", notes[1].id: "9c0ffee2"])
        try RenderingFixture.expect(
            NotesScreen(notesModel, shortIDs: noteIDs, bookTitles: [books[0].id: books[0].title]), matches: "notes-short-ids")
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
            ConflictSummary(collection: .notes, recordID: "0b6e1d2c-55aa-4c3e-8f7d-2a9b4c6d8e01", kind: .deleteVersusEdit, fields: [],
                            label: nil, detectedAt: detected),
        ]
        // The text shows the note's short id as every table does; the JSON the full one.
        let shortIDs = ShortIDs([.notes: ["0b6e1d2c-55aa-4c3e-8f7d-2a9b4c6d8e01": "0b6e1d2c"]])
        try RenderingFixture.expect(ConflictsScreen(conflicts, shortIDs: shortIDs), matches: "conflicts-full")
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
