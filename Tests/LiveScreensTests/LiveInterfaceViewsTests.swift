import Domain
import LiveScreens
import Presentation
import Synchronization
import Terminal
import Testing
import TestSupport

// MARK: - The views over a place: favorites, the shop, refused changes; observation

@MainActor
@Suite("Live interface: favorites, shop, refused changes, observation")
struct LiveInterfaceViewsTests {
    // MARK: Favorites

    @Test(arguments: [80, 120])
    func theFavorites(columns: Int) async throws {
        let shelf = try LiveShelf(favorites: ["book-003", "book-001"])
        let interface = await shelf.interface(columns: columns)
        await interface.press(.character("F"))
        try FrameSnapshot.expect(interface.frame(), matches: "favorites-\(columns)")
    }

    @Test func enterOpensAFavoriteAndFTakesOneOff() async throws {
        let shelf = try LiveShelf(favorites: ["book-003", "book-001"])
        let interface = await shelf.interface(columns: 80)
        // By title: A Wizard of Earthsea, then Dune.
        await interface.press(.character("F"), .character("f"))
        #expect(shelf.preferences.snapshot.favorites == ["book-001"])
        #expect(!FrameSnapshot.text(of: interface.frame()).contains("Earthsea"))

        await interface.press(.enter)
        #expect(shelf.models.router.path == [.book("book-001")])
        #expect(interface.frame().line(0).contains("Library › Dune"))
    }

    @Test func favoritesSavedByAnotherProcessShowWithoutAKey() async throws {
        let shelf = try LiveShelf(favorites: ["book-003"])
        let interface = await shelf.interface(columns: 80)
        #expect(!interface.frame().line(2).contains("★"))
        // `shelf favorite book-001` in another terminal: the same preferences, another model.
        let other = FavoritesViewModel(preferences: FakePreferencesStore(storage: shelf.preferences))
        other.toggle("book-001")

        await interface.storeChanged()

        #expect(interface.frame().line(2).contains("★"))
    }

    // MARK: The shop

    @Test(arguments: [80, 120])
    func theProductsAndTheCart(columns: Int) async throws {
        let shelf = try LiveShelf(catalog: FakeCatalogService(products: try SampleShelf.products()), cart: FakeCartService())
        let interface = await shelf.interface(columns: columns)
        await interface.press(.character("$"), .down)
        try FrameSnapshot.expect(interface.frame(), matches: "products-\(columns)")
        await interface.press(.character("a"), .up, .character("a"), .character("a"), .character("c"))
        try FrameSnapshot.expect(interface.frame(), matches: "cart-\(columns)")
    }

    @Test func theCartsQuantitiesGoThroughTheViewModel() async throws {
        let cart = FakeCartService()
        let shelf = try LiveShelf(catalog: FakeCatalogService(products: try SampleShelf.products()), cart: cart)
        let interface = await shelf.interface(columns: 80)
        await interface.press(.character("$"), .character("a"))
        #expect(interface.notice?.contains("in the cart") == true)
        await interface.press(.character("c"), .character("+"), .character("+"), .character("-"))
        #expect(await cart.items.map(\.quantity) == [2])
        await interface.press(.character("d"))
        #expect(await cart.items.isEmpty)
        #expect(FrameSnapshot.text(of: interface.frame()).contains("The cart is empty"))
        await interface.press(.escape)
        #expect(interface.frame().line(1).contains("/ to search"))
    }

    // MARK: Refused changes

    @Test(arguments: [80, 120])
    func theRefusedChanges(columns: Int) async throws {
        let shelf = try LiveShelf(failed: FakeDecisions(failed: [1, 2]))
        let interface = await shelf.interface(columns: columns)
        await interface.press(.character("X"))
        try FrameSnapshot.expect(interface.frame(), matches: "failed-\(columns)")
    }

    @Test func rRetriesAndDDiscardsThroughTheViewModel() async throws {
        let decisions = FakeDecisions(failed: [1, 2])
        let shelf = try LiveShelf(failed: decisions)
        let interface = await shelf.interface(columns: 80)
        await interface.press(.character("X"), .down, .character("r"))
        #expect(interface.notice == "Queued again for the next sync.")
        await interface.press(.character("d"))
        #expect(await decisions.writes == ["retry 2", "discard 1"])
        #expect(FrameSnapshot.text(of: interface.frame()).contains("The server refused nothing."))
    }

    // MARK: Observation

    /// What a frame read is observed: a count landing in the background (the library's
    /// `totalMatches`) calls the change handler, and the next frame shows the count.
    @Test func aCountLandingAfterTheFrameAsksForARedraw() async throws {
        let shelf = try LiveShelf()
        let interface = LiveInterface(models: shelf.models, size: TerminalSize(rows: 12, columns: 80))
        let changed = Flag()
        await shelf.models.library.show("", unfinishedOnly: false, order: .standard, offset: 0, rows: 9)
        let before = interface.observedFrame { changed.raise() }
        #expect(!changed.isRaised)
        #expect(!before.line(1).contains("1/4"))

        await shelf.models.library.count()

        #expect(changed.isRaised)
        #expect(interface.frame().line(1).contains("1/4"))
    }

    /// The background sync's steps are the interface's own observed state: its start and
    /// its summary each ask for a redraw, with no key pressed in between.
    @Test func aSyncsStepsAskForRedrawsWithoutAKey() async throws {
        let gate = SuspensionGate<Void>()
        var models = try LiveShelf().models
        models.sync = { progress in
            progress("books…")
            try? await gate.pass()
            return "Sync: ok"
        }
        let interface = LiveInterface(models: models, size: TerminalSize(rows: 12, columns: 80))
        await interface.start()
        let started = Flag()
        _ = interface.observedFrame { started.raise() }

        _ = await interface.handle(.key(.character("s")))
        #expect(started.isRaised)
        await gate.arrival()
        #expect(interface.frame().line(11).contains("Syncing: books…"))

        let finished = Flag()
        _ = interface.observedFrame { finished.raise() }
        await gate.open(with: ())
        // NB: the sync's task runs on the main actor, which this test gives up at each yield.
        for _ in 0..<10_000 where !finished.isRaised { await Task.yield() }
        #expect(finished.isRaised)
        for _ in 0..<10_000 where interface.isSyncing { await Task.yield() }
        #expect(interface.frame().line(11).contains("Sync: ok"))
    }
}

// MARK: - Flag

/// Set once from any thread: what an observation's change handler saw.
final class Flag: Sendable {
    private let raised = Mutex(false)
    func raise() { raised.withLock { $0 = true } }
    var isRaised: Bool { raised.withLock { $0 } }
}
