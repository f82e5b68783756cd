import Domain
import Presentation
import Testing
import TestSupport

@MainActor
@Suite("BookWindowViewModel")
struct BookWindowViewModelTests {
    let service: FakeBookService
    let model: BookWindowViewModel

    init() throws {
        service = FakeBookService(books: try SampleShelf.books())
        model = BookWindowViewModel(service: service)
    }

    @Test func aWindowIsReadAtItsOffsetWithoutCounting() async {
        await model.show("", unfinishedOnly: false, order: .standard, offset: 1, rows: 2)

        #expect(model.books.map(\.id) == ["book-003", "book-004"])
        #expect(model.offset == 1)
        #expect(model.totalMatches == nil)
    }

    @Test func aCountPublishesTheMatchesAndTheLibrary() async {
        await model.show("le", unfinishedOnly: false, order: .standard, offset: 0, rows: 1)
        await model.count()

        #expect(model.totalMatches == 2)
        #expect(model.totalBooks == 4)
    }

    @Test func movingTheWindowKeepsTheCountsAndChangingTheSearchForgetsThem() async {
        await model.show("", unfinishedOnly: false, order: .standard, offset: 0, rows: 2)
        await model.count()
        await model.show("", unfinishedOnly: false, order: .standard, offset: 2, rows: 2)
        #expect(model.totalMatches == 4)

        await model.show("", unfinishedOnly: true, order: .standard, offset: 0, rows: 2)
        #expect(model.totalMatches == nil)
    }

    /// GIVEN a count held at a gate, WHEN the search changes before it answers, THEN the
    /// stale count publishes nothing.
    @Test func aCountThatFinishesAfterTheSearchChangedPublishesNothing() async throws {
        await model.show("", unfinishedOnly: false, order: .standard, offset: 0, rows: 2)
        let gate = SuspensionGate<BookSearchPage>()
        await service.enqueueSearch(.gate(gate))
        let counting = Task { await model.count() }
        await gate.arrival()

        await model.show("camus", unfinishedOnly: false, order: .standard, offset: 0, rows: 2)
        await gate.open(with: BookSearchPage(books: [], totalMatches: 99, totalBooks: 99))
        await counting.value

        #expect(model.totalMatches == nil)
        #expect(model.books.map(\.id) == ["book-005"])
    }
}
