import Domain
import Foundation
import LiveScreens
import Presentation
import Terminal
import Testing
import TestSupport

@MainActor
@Suite("Live interface")
struct LiveInterfaceTests {
    // MARK: Snapshots at 80 and 120 columns

    @Test(arguments: [80, 120])
    func theLibrary(columns: Int) async throws {
        let shelf = try LiveShelf()
        let interface = await shelf.interface(columns: columns)
        try FrameSnapshot.expect(interface.frame(), matches: "library-\(columns)")
    }

    @Test(arguments: [80, 120])
    func aSearchAsItIsTyped(columns: Int) async throws {
        let shelf = try LiveShelf()
        let interface = await shelf.interface(columns: columns)
        await interface.press(.character("/"))
        await interface.type("le")
        try FrameSnapshot.expect(interface.frame(), matches: "library-search-\(columns)")
    }

    @Test(arguments: [80, 120])
    func aBookWithItsNotes(columns: Int) async throws {
        let shelf = try LiveShelf()
        let interface = await shelf.interface(columns: columns)
        await interface.press(.character("G"), .enter)
        try FrameSnapshot.expect(interface.frame(), matches: "book-\(columns)")
    }

    @Test(arguments: [80, 120])
    func theKeys(columns: Int) async throws {
        let shelf = try LiveShelf()
        let interface = await shelf.interface(columns: columns, rows: 24)
        await interface.press(.character("?"))
        try FrameSnapshot.expect(interface.frame(), matches: "keys-\(columns)")
    }

    @Test(arguments: [80, 120])
    func theSyncStatus(columns: Int) async throws {
        let status = SyncStatus(
            lastSuccess: Date(timeIntervalSince1970: 1_796_140_800), pendingChanges: 3, conflicts: 1, deadLetters: 0,
            backoffUntil: Date(timeIntervalSince1970: 1_796_144_400))
        let shelf = try LiveShelf(syncStatus: FakeSyncStatusProvider(status: status))
        let interface = await shelf.interface(columns: columns)
        await interface.press(.character("S"))
        try FrameSnapshot.expect(interface.frame(), matches: "sync-status-\(columns)")
        await interface.press(.escape)
        #expect(interface.frame().line(1).contains("/ to search"))
    }

    @Test(arguments: [80, 120])
    func thePendingChanges(columns: Int) async throws {
        let shelf = try LiveShelf(pending: FakeDecisions(pending: ["book-001", "book-003"]))
        let interface = await shelf.interface(columns: columns)
        await interface.press(.character("P"), .down)
        try FrameSnapshot.expect(interface.frame(), matches: "pending-\(columns)")
    }

    @Test func uTakesTheSelectedPendingChangeBackThroughTheViewModelAndRPutsItBack() async throws {
        let decisions = FakeDecisions(pending: ["book-001", "book-003"])
        let shelf = try LiveShelf(pending: decisions)
        let interface = await shelf.interface(columns: 80)
        await interface.press(.character("P"), .down, .character("u"))

        #expect(await decisions.writes == ["undo book-003"])
        #expect(interface.notice == "Undid #book-003.")
        let screen = FrameSnapshot.text(of: interface.frame())
        #expect(screen.contains("books/book-001") && !screen.contains("books/book-003"))
        await interface.press(.character("r"))
        #expect(await decisions.writes == ["undo book-003", "redo book-003"])
        #expect(FrameSnapshot.text(of: interface.frame()).contains("books/book-003"))
        await interface.press(.escape)
        #expect(interface.frame().line(1).contains("/ to search"))
    }

    /// An undo that removes a record says so on the status line and waits for `u` again;
    /// any other key between forgets it.
    @Test func anUndoThatNeedsAYesWaitsForTheSameKeyAgain() async throws {
        let decisions = FakeDecisions(pending: ["book-001"])
        await decisions.requireConfirmation(of: "book-001", ["removes book book-001 (\"Dune\")"])
        let shelf = try LiveShelf(pending: decisions)
        let interface = await shelf.interface(columns: 100)
        await interface.press(.character("P"), .character("u"))
        #expect(await decisions.writes.isEmpty)
        #expect(interface.notice == "This undo removes book book-001 (\"Dune\"). Press u again to do it.")

        await interface.press(.down, .character("u"))
        #expect(await decisions.writes.isEmpty, "another key between: asked again, not done")
        await interface.press(.character("u"))
        #expect(await decisions.writes == ["undo book-001"])
        #expect(interface.notice == "Undid #book-001.")
    }

    @Test(arguments: [80, 120])
    func today(columns: Int) async throws {
        let today = try ReadingDay("2026-12-01")
        let sessions = try [(0, 15), (0, 10), (1, 20), (2, 40), (3, 5), (9, 30), (29, 20)].enumerated().map { index, entry in
            try ReadingSession(id: "s-\(index)", minutes: entry.1, day: today.adding(days: -entry.0))
        }
        let shelf = try LiveShelf(readingLog: FakeReadingLogService(sessions: sessions), today: today)
        let interface = await shelf.interface(columns: columns)
        await interface.press(.character("T"))
        try FrameSnapshot.expect(interface.frame(), matches: "today-\(columns)")
    }

    @Test(arguments: [80, 120])
    func aConflictFieldByField(columns: Int) async throws {
        let shelf = try LiveShelf(conflicts: FakeDecisions(conflicts: ["book-001"]))
        let interface = await shelf.interface(columns: columns)
        await interface.press(.character("C"), .enter, .character("l"))
        try FrameSnapshot.expect(interface.frame(), matches: "conflict-\(columns)")
    }

    @Test func eachClashGetsASideThenTheResolutionIsQueuedThroughTheViewModel() async throws {
        let decisions = FakeDecisions(conflicts: ["book-001"])
        let shelf = try LiveShelf(conflicts: decisions)
        let interface = await shelf.interface(columns: 80)
        await interface.press(.character("C"), .enter, .character("r"), .character("w"))
        #expect(interface.notice == "Choose a side for finished first (l local, r server).")
        #expect(await decisions.writes.isEmpty)

        await interface.press(.down, .character("l"), .down, .character("l"), .character("w"))
        #expect(await decisions.writes == ["resolve books/book-001 finished=local,title=server"])
        #expect(interface.notice == "Resolved books/book-001; queued for the next sync.")
        #expect(FrameSnapshot.text(of: interface.frame()).contains("No conflicts: nothing waits"))
    }

    @Test(arguments: [80, 120])
    func theNotes(columns: Int) async throws {
        let shelf = try LiveShelf(notes: FakeNoteService(notes: try SampleShelf.notes()))
        let interface = await shelf.interface(columns: columns)
        await interface.press(.character("N"))
        try FrameSnapshot.expect(interface.frame(), matches: "notes-\(columns)")
    }

    @Test func enterOnANoteOpensItAsAPlaceOnThePath() async throws {
        let shelf = try LiveShelf(notes: FakeNoteService(notes: try SampleShelf.notes()))
        let interface = await shelf.interface(columns: 80)
        await interface.press(.character("N"), .enter)
        let first = try #require(shelf.models.notes?.visibleNotes.first)
        #expect(shelf.models.router.path == [.note(first.id)])
        #expect(interface.frame().line(1).contains(first.title))
    }

    @Test(arguments: [80, 120])
    func theTasks(columns: Int) async throws {
        let shelf = try LiveShelf(tasks: FakeTaskService(tasks: try SampleShelf.tasks()))
        let interface = await shelf.interface(columns: columns)
        await interface.press(.character("D"), .down)
        try FrameSnapshot.expect(interface.frame(), matches: "tasks-\(columns)")
    }

    @Test func xMarksTheSelectedTaskDoneThroughTheViewModel() async throws {
        let tasks = FakeTaskService(tasks: try SampleShelf.tasks())
        let shelf = try LiveShelf(tasks: tasks)
        let interface = await shelf.interface(columns: 80)
        await interface.press(.character("D"), .down, .character("x"))
        #expect(shelf.models.tasks?.task(id: "task-002")?.isDone == true)
        #expect(interface.frame().line(1).contains("Tasks (2 of 3 done)"))
    }

    // MARK: Behaviour

    @Test func searchOpenFavoriteAndBackGoThroughTheModels() async throws {
        let shelf = try LiveShelf(favorites: [])
        let interface = await shelf.interface(columns: 80)

        await interface.press(.character("/"))
        await interface.type("camus")
        await interface.press(.enter)
        #expect(shelf.models.library.books.map(\.id) == ["book-005"])

        await interface.press(.enter)
        #expect(shelf.models.router.path == [.book("book-005")])
        #expect(interface.frame().line(0).contains("Library › L'Étranger"))

        await interface.press(.character("f"))
        #expect(shelf.models.favorites.isFavorite("book-005"))
        #expect(shelf.preferences.snapshot.favorites == ["book-005"])
        #expect(FrameSnapshot.text(of: interface.frame()).contains("★ favorite"))

        await interface.press(.escape)
        #expect(shelf.models.router.path == [])
        #expect(shelf.preferences.snapshot.routerPath == [])
    }

    @Test func thePathIsSavedAndTheNextInterfaceStartsThere() async throws {
        let shelf = try LiveShelf()
        let interface = await shelf.interface(columns: 80)
        await interface.press(.enter)
        #expect(shelf.preferences.snapshot.routerPath == [.book("book-001")])

        let next = LiveInterface(
            models: LiveModels(
                router: Router(preferences: FakePreferencesStore(storage: shelf.preferences), places: shelf.places),
                library: shelf.models.library, favorites: shelf.models.favorites, book: shelf.models.book),
            size: TerminalSize(rows: 12, columns: 80))
        await next.start()
        #expect(next.frame().line(0).contains("Library › Dune"))
        #expect(next.frame().line(1).contains("Dune"))
    }

    @Test func aPlaceWhoseRecordWasDeletedPopsItselfWithANotice() async throws {
        let shelf = try LiveShelf()
        let interface = await shelf.interface(columns: 80)
        await interface.press(.enter)
        #expect(shelf.models.router.path == [.book("book-001")])

        shelf.places.removeBook("book-001")
        await interface.storeChanged()

        #expect(shelf.models.router.path == [])
        #expect(interface.notice != nil)
        #expect(interface.frame().line(11).contains("book-001"))
    }

    @Test func finishingABookIsTheViewModelsIntent() async throws {
        let shelf = try LiveShelf()
        let interface = await shelf.interface(columns: 80)
        await interface.press(.down, .character("x"))
        let written = try #require(await shelf.books.books(forceRefresh: false).first { $0.id == "book-003" })
        #expect(written.isFinished)
        #expect(interface.frame().line(3).contains("★✓ A Wizard of Earthsea"))
    }

    @Test func aResizeLaysTheFrameOutAgain() async throws {
        let shelf = try LiveShelf()
        let interface = await shelf.interface(columns: 80)
        _ = await interface.handle(.resize(TerminalSize(rows: 6, columns: 40)))
        let frame = interface.frame()
        #expect(frame.columns == 40 && frame.rows == 6)
        #expect(frame.line(5).contains("? keys"))
    }

    @Test func qAndControlCQuit() async throws {
        let shelf = try LiveShelf()
        let interface = await shelf.interface(columns: 80)
        #expect(await interface.handle(.key(.character("q"))) == .quit)
        #expect(await interface.handle(.key(.control("c"))) == .quit)
    }
}
