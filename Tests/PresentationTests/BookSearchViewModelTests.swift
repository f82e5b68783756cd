import Domain
import Presentation
import Testing
import TestSupport

@MainActor
@Suite("Book search model")
struct BookSearchViewModelTests {
    let service: FakeBookService
    let model: BookSearchViewModel

    init() throws {
        service = FakeBookService(books: try SampleShelf.books())
        model = BookSearchViewModel(service: service)
    }

    @Test func aSearchAsksThePortForTheMatchesOnly() async {
        await model.search("le guin", unfinishedOnly: true)

        #expect(await service.searches == ["le guin unfinished"])
        #expect(await service.loadCount == 0)
        #expect(model.books.map(\.title) == ["A Wizard of Earthsea"])
        #expect(model.state.value?.totalBooks == 4)
        #expect(model.query == "le guin")
        #expect(model.unfinishedOnly)
    }

    @Test func theOrderAndLimitGoToThePortWhichSortsBeforeItCuts() async {
        await model.search("", unfinishedOnly: false, limit: 2, order: ListOrder(.author, descending: true))

        #expect(await service.searches == [" sorted by -author"])
        #expect(model.books.map(\.author) == ["Ursula K. Le Guin", "Gabriel García Márquez"])
        #expect(model.limit == 2)
        #expect(model.state.value?.hasMore == true)
    }

    @Test func aNewerSearchWinsOverAnOlderOneThatFinishesLater() async throws {
        // GIVEN two searches in flight, "dune" started before "camus"
        let older = SuspensionGate<BookSearchPage>(), newer = SuspensionGate<BookSearchPage>()
        await service.enqueueSearch(.gate(older))
        await service.enqueueSearch(.gate(newer))
        let first = Task { await model.search("dune", unfinishedOnly: false) }
        await older.arrival()
        let second = Task { await model.search("camus", unfinishedOnly: false) }
        await newer.arrival()

        // WHEN the newer one finishes first, then the older one
        let camus = BookSearchPage(books: [try Book(id: "b-2", title: "L'Étranger", author: "Albert Camus")], totalMatches: 1, totalBooks: 4)
        await newer.open(with: camus)
        await second.value
        await older.open(with: BookSearchPage(books: [try Book(id: "b-1", title: "Dune", author: "Frank Herbert")], totalMatches: 1, totalBooks: 4))
        await first.value

        // THEN the newer results stay
        #expect(model.books.map(\.id) == ["b-2"])
        #expect(model.query == "camus")
    }

    @Test func aFailedSearchKeepsTheResultsOnScreen() async {
        await model.search("dune", unfinishedOnly: false)
        await service.enqueueSearch(.failure(FakeError("disk I/O error")))
        await model.search("camus", unfinishedOnly: false)

        #expect(model.books.map(\.title) == ["Dune"])
        #expect(model.errorMessage == "Could not search the books: disk I/O error")
        #expect(model.state.failureMessage != nil)
    }

    @Test func resultsWithDuplicateIDsAreRefused() async throws {
        let dune = try Book(id: "b-1", title: "Dune", author: "Frank Herbert")
        await service.enqueueSearch(.value(BookSearchPage(books: [dune, dune], totalMatches: 2, totalBooks: 2)))
        await model.search("dune", unfinishedOnly: false)

        #expect(model.books.isEmpty)
        #expect(model.errorMessage?.contains("duplicate ids: b-1") == true)
    }
}
