import Domain
import Foundation
import LiveScreens
import Presentation
import Terminal
import Testing
import TestSupport

/// `shelf ui`'s status line and filters follow the models they show: an edit made in
/// the interface is counted as waiting at once (the store tells other processes' commits,
/// not the interface's own), and the library hides finished books when the reader's
/// settings say so, its label saying what it shows.
@MainActor
@Suite("Live interface: status line and settings")
struct LiveStatusAndSettingsTests {
    /// The store's count of waiting changes, as the fake book service's writes make it.
    private actor WaitingWrites: SyncStatusProviding {
        let books: FakeBookService
        init(_ books: FakeBookService) { self.books = books }
        func syncStatus() async throws -> SyncStatus { SyncStatus(pendingChanges: await books.writes.count) }
    }

    private func lines(_ interface: LiveInterface) -> [String] {
        let frame = interface.frame()
        return (0..<frame.rows).map(frame.line)
    }

    @Test func anEditMadeHereIsCountedAsWaitingAtOnce() async throws {
        let shelf = try LiveShelf()
        var models = shelf.models
        models.syncStatus = SyncStatusViewModel(provider: WaitingWrites(shelf.books))
        let interface = LiveInterface(models: models, size: TerminalSize(rows: 12, columns: 80))
        await interface.start()
        #expect(lines(interface).contains { $0.contains("nothing waiting") }, "\(lines(interface))")

        // WHEN a book is marked finished in the interface (no other process writes)
        await interface.press(.character("x"))

        // THEN the status line counts it
        #expect(await shelf.books.writes.count == 1)
        #expect(lines(interface).contains { $0.contains("1 waiting") }, "\(lines(interface))")
        #expect(!lines(interface).contains { $0.contains("nothing waiting") })
    }

    @Test func movingTheSelectionDoesNotReadTheStatusAgain() async throws {
        let provider = FakeSyncStatusProvider()
        let shelf = try LiveShelf(syncStatus: provider)
        let interface = await shelf.interface(columns: 80)
        let before = await provider.callCount
        await interface.press(.down, .down, .up, .pageDown, .character("g"))
        #expect(await provider.callCount == before, "keys that only move read nothing more")
    }

    @Test func theLibraryHidesFinishedBooksWhenTheSettingsSaySo() async throws {
        let shelf = try LiveShelf(showFinished: false)
        let interface = await shelf.interface(columns: 80)

        #expect(lines(interface)[1].contains("unfinished"), "\(lines(interface)[1])")
        #expect(!lines(interface)[1].contains(" all "), "\(lines(interface)[1])")
        let searches = await shelf.books.searches
        #expect(searches.last?.contains("unfinished") == true, "\(searches)")
        #expect(!lines(interface).contains { $0.contains("✓") }, "no finished book listed: \(lines(interface))")

        // `u` turns the filter over for this screen, and the label says so.
        await interface.press(.character("u"))
        #expect(lines(interface)[1].contains(" all "), "\(lines(interface)[1])")
        #expect(lines(interface).contains { $0.contains("✓") })
    }

    @Test func aSettingChangedElsewhereIsFollowed() async throws {
        let shelf = try LiveShelf(showFinished: true)
        let interface = await shelf.interface(columns: 80)
        #expect(lines(interface)[1].contains(" all "), "\(lines(interface)[1])")

        // WHEN another process hides finished books
        try FakePreferencesStore(storage: shelf.preferences).setReadingSettings(ReadingSettings(showFinished: false))
        await interface.storeChanged()
        await interface.settle()

        // THEN the library follows, and says so
        #expect(lines(interface)[1].contains("unfinished"), "\(lines(interface)[1])")
        #expect(!lines(interface).contains { $0.contains("✓") })

        // AND a store change that leaves the setting alone keeps the reader's own `u`
        await interface.press(.character("u"))
        await interface.storeChanged()
        #expect(lines(interface)[1].contains(" all "), "\(lines(interface)[1])")
    }
}
