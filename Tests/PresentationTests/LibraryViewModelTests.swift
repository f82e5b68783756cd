import Domain
import Presentation
import Testing
import TestSupport

@MainActor
@Suite("Library model")
struct LibraryViewModelTests {
    let service: FakeBookService
    let preferences = FakePreferencesStore()
    let model: LibraryViewModel

    init() throws {
        service = FakeBookService(books: try SampleShelf.books())
        model = LibraryViewModel(service: service, preferences: preferences)
    }

    // MARK: Loading

    @Test func twoRefreshesWhileOneIsInFlightCostOneServiceCall() async throws {
        // GIVEN a refresh waiting for the service
        let gate = SuspensionGate<[Book]>()
        await service.enqueueLoad(.gate(gate))
        let first = Task { await model.refresh() }
        await gate.arrival()

        // WHEN two more refreshes are asked for while it is in flight
        let joined = Checkpoint()
        let second = Task { joined.pass(); await model.refresh(force: true) }
        await joined.reached()
        let third = Task { joined.pass(); await model.refresh() }
        await joined.reached()
        let books = try SampleShelf.books()
        await gate.open(with: books)
        await first.value
        await second.value
        await third.value

        // THEN the service was asked once and every caller sees its answer
        #expect(await service.loadCount == 1)
        #expect(model.state == .loaded(books))
    }

    @Test func aRefreshAfterTheFirstFinishedAsksAgain() async {
        await model.refresh()
        await model.refresh(force: true)

        #expect(await service.loadCount == 2)
        #expect(await service.forceFlags == [false, true])
    }

    @Test func aCancelledRefreshNeverPublishes() async throws {
        let gate = SuspensionGate<[Book]>(honoursCancellation: false)
        await service.enqueueLoad(.gate(gate))
        let refresh = Task { await model.refresh() }
        await gate.arrival()

        model.cancel()
        #expect(model.state == .idle)
        await gate.open(with: try SampleShelf.books())
        await refresh.value

        #expect(model.state == .idle)
        #expect(model.books.isEmpty)
    }

    @Test func aRefreshStartedAfterACancelIsNotOverwrittenByTheCancelledOne() async throws {
        let stale = SuspensionGate<[Book]>(honoursCancellation: false)
        await service.enqueueLoad(.gate(stale))
        let cancelled = Task { await model.refresh() }
        await stale.arrival()
        model.cancel()

        let fresh = try [Book(id: "fresh", title: "Fresh", author: "Someone")]
        await service.enqueueLoad(.value(fresh))
        await model.refresh()
        await stale.open(with: try SampleShelf.books())
        await cancelled.value

        #expect(model.state == .loaded(fresh))
    }

    @Test func aFailedRefreshKeepsTheBooksItHad() async throws {
        await model.refresh()
        let books = try SampleShelf.books()
        await service.enqueueLoad(.failure(FakeError("connection refused")))

        await model.refresh(force: true)

        #expect(model.books == books)
        #expect(model.state == .failed(message: "Could not load books: connection refused", previous: books))
        #expect(model.errorMessage == "Could not load books: connection refused")
    }

    @Test func aListWithDuplicateIDsIsRefused() async throws {
        let dune = try Book(id: "book-001", title: "Dune", author: "Frank Herbert")
        await service.enqueueLoad(.value([dune, dune]))

        await model.refresh()

        #expect(model.books.isEmpty)
        #expect(model.errorMessage == "Could not load books: duplicate ids: book-001")
    }

    // MARK: Search and showFinished

    @Test func searchIgnoresCaseAndDiacriticsInTitleAndAuthor() async {
        await model.refresh()

        model.search("garcia MARQUEZ")
        #expect(model.visibleBooks.map(\.id) == ["book-004"])
        model.search("etranger")
        #expect(model.visibleBooks.map(\.id) == ["book-005"])
        model.search("le guin")
        #expect(model.visibleBooks.map(\.id) == ["book-003"])
        model.search("")
        #expect(model.visibleBooks.count == 4)
    }

    @Test func showFinishedComesFromThePreferencesAndFollowsSettings() async throws {
        try preferences.setReadingSettings(ReadingSettings(showFinished: false))
        let hiding = LibraryViewModel(service: service, preferences: preferences)
        await hiding.refresh()
        #expect(hiding.showFinished == false)
        #expect(hiding.visibleBooks.map(\.id) == ["book-003", "book-005"])

        hiding.settingsDidChange(ReadingSettings(showFinished: true))

        #expect(hiding.visibleBooks.count == 4)
    }

    @Test func searchAndShowFinishedCombine() async throws {
        try preferences.setReadingSettings(ReadingSettings(showFinished: false))
        let hiding = LibraryViewModel(service: service, preferences: preferences)
        await hiding.refresh()

        hiding.search("a")

        #expect(hiding.visibleBooks.allSatisfy { !$0.isFinished })
        #expect(hiding.visibleBooks.map(\.id) == ["book-003", "book-005"])
    }

    @Test func unreadableSettingsFallBackToDefaultsWithAMessage() {
        preferences.failReads(with: FakeError("database is locked"))

        let library = LibraryViewModel(service: service, preferences: preferences)

        #expect(library.showFinished == ReadingSettings.default.showFinished)
        #expect(library.errorMessage == "Could not read the reading settings: database is locked")
    }

    // MARK: Intents

}
