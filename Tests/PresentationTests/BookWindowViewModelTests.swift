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

// MARK: - Seeking

/// The window is read where it is cheapest to reach: next to the window shown, by seeking
/// from its first or last book, or backward from the end of a counted list; only a jump
/// with neither reads from the top. The fake logs how each read started.
@MainActor
@Suite("BookWindowViewModel: windows read by seeking")
struct BookWindowSeekingTests {
    let service: FakeBookService
    let model: BookWindowViewModel
    /// Thirty books, `book-00` … `book-29`, in the shelf's (the standard) order.
    let shelf: [Book]

    init() throws {
        shelf = try (0..<30).map { number in
            let id = "book-" + (number < 10 ? "0" : "") + String(number)
            return try Book(id: id, title: "Title \(id)", author: "Author \(number % 3)", isFinished: number % 4 == 0)
        }
        service = FakeBookService(books: shelf)
        model = BookWindowViewModel(service: service)
    }

    private func show(_ offset: Int, rows: Int = 5, _ text: String = "") async {
        await model.show(text, unfinishedOnly: false, order: .standard, offset: offset, rows: rows)
    }

    private func ids(_ range: Range<Int>) -> [Book.ID] {
        shelf[range].map(\.id)
    }

    @Test func movingByARowOrAPageSeeksFromTheWindowShown() async {
        await show(10)
        await show(11)
        await show(16)
        await show(15)

        #expect(await service.searches == ["", " from book-10 skip 1", " after book-15 skip 0", " through book-20 reversed skip 1"])
        #expect(model.books.map(\.id) == ids(15..<20))
        #expect(model.offset == 15)
        #expect(model.totalMatches == nil)
    }

    @Test func eachSeekGivesTheBooksAnOffsetWould() async {
        await show(12)
        for offset in [13, 14, 19, 24, 25, 23, 18, 7, 3, 1, 0, 2] {
            await show(offset)
            #expect(model.books.map(\.id) == ids(offset..<min(30, offset + 5)), "at \(offset)")
            #expect(model.offset == offset)
        }
        await show(26)
        #expect(model.books.map(\.id) == ids(26..<30), "the end")
        #expect(model.state.value?.hasMore == false)
    }

    @Test func aJumpNearTheEndOfACountedListReadsBackwardFromTheEnd() async {
        await show(0)
        await model.count()
        await show(25)

        #expect(await service.searches.last == " reversed skip 0")
        #expect(model.books.map(\.id) == ids(25..<30))
        #expect(model.state.value?.hasMore == false)

        await show(17)
        #expect(await service.searches.last == " before book-25 reversed skip 3")
        #expect(model.books.map(\.id) == ids(17..<22))
        #expect(model.state.value?.hasMore == true)
    }

    @Test func aJumpFarFromTheWindowAndFromTheEndReadsFromTheTop() async {
        await show(0)
        await model.count()
        await show(20)
        await show(6)

        #expect(await service.searches == ["", "", " reversed skip 5", ""], "the count, from the end, then an offset of 6")
        #expect(model.books.map(\.id) == ids(6..<11))
    }

    @Test func aWindowOfAnotherSearchIsNoAnchor() async {
        await show(10)
        await show(11, "title")
        await model.show("", unfinishedOnly: true, order: .standard, offset: 12, rows: 5)

        #expect(await service.searches == ["", "title", " unfinished"])
    }

    @Test func aTallerWindowAboveTheOneShownReadsFromTheTop() async {
        await show(10)
        await show(8, rows: 10)

        #expect(await service.searches == ["", ""])
        #expect(model.books.map(\.id) == ids(8..<18))
    }

    /// GIVEN a backward seek that finds fewer books than it asked for (books above the
    /// window were removed meanwhile), THEN the window is read again from the top.
    @Test func aBackwardSeekThatMeetsTheTopTooSoonIsReadAgainFromTheTop() async {
        await show(10)
        await service.enqueueSearch(.value(BookSearchPage(books: Array(shelf[8..<10]), totalMatches: nil, totalBooks: nil)))
        await show(5)

        #expect(await service.searches == ["", " before book-10 reversed skip 0", ""])
        #expect(model.books.map(\.id) == ids(5..<10))
        #expect(model.offset == 5)
    }

    /// GIVEN a seek held at a gate, WHEN a newer window is asked for before it answers,
    /// THEN the newer one seeks from the window on screen (the held one never got there),
    /// and the held answer publishes nothing.
    @Test func aSeekOvertakenByANewerWindowAnchorsOnTheWindowShown() async throws {
        await show(10)
        let gate = SuspensionGate<BookSearchPage>()
        await service.enqueueSearch(.gate(gate))
        let held = Task { await show(11) }
        await gate.arrival()

        await show(15)
        await gate.open(with: BookSearchPage(books: Array(shelf[0..<5]), totalMatches: nil, totalBooks: nil))
        await held.value

        #expect(await service.searches == ["", " from book-10 skip 1", " after book-14 skip 0"])
        #expect(model.books.map(\.id) == ids(15..<20))
        #expect(model.offset == 15)

        await show(16)
        #expect(await service.searches.last == " from book-15 skip 1", "the window on screen anchors the next")
    }
}
