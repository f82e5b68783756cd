import Domain
import Observation

// MARK: - BookWindowViewModel

/// The part of a book search a screen can show: one window of matches at an offset,
/// read through the `BookSearching` port, so scrolling a library of 100,000 books reads a
/// screenful at a time and memory stays flat. `BookSearchViewModel` is the whole search
/// the CLI prints; this is the same search, one window at a time, for `shelf ui`.
///
/// A window never counts: it reads its rows (and one more, to know whether more match), so
/// a key typed into a search costs its window alone. The counts (matches, books) are read
/// by `count()`, which a screen runs after the window is shown; they are forgotten when
/// the search itself changes (text, filter, order) and kept while only the window moves.
/// A newer window or count wins over an older one; a failed read keeps what is shown.
@MainActor
@Observable
public final class BookWindowViewModel {
    // MARK: State

    public var state: LoadingState<BookSearchPage> { content.state }
    public var errorMessage: String? { content.errorMessage }
    /// The books of the window shown.
    public var books: [Book] { state.value?.books ?? [] }
    /// The offset of the window shown, among the matches.
    public var offset: Int { state.value?.offset ?? 0 }
    /// How many books match, as of the last counted read; nil before it.
    public private(set) var totalMatches: Int?
    /// How many books the library holds, as of the last counted read.
    public private(set) var totalBooks: Int?
    public private(set) var query = ""
    public private(set) var unfinishedOnly = false
    public private(set) var order: ListOrder<BookSortField> = .standard

    // MARK: Dependencies

    private let service: any BookSearching
    private let content = ContentController<BookSearchPage>()
    /// The latest count asked for, or search changed: an older count publishes nothing.
    @ObservationIgnored private var countTicket = 0

    public init(service: any BookSearching) {
        self.service = service
    }

    // MARK: Intents

    /// Reads the window of `rows` matches from `offset`, without counting. A change of
    /// text, filter or order forgets the counts until the next `count()`.
    public func show(_ text: String, unfinishedOnly: Bool, order: ListOrder<BookSortField>, offset: Int, rows: Int) async {
        if text != query || unfinishedOnly != self.unfinishedOnly || order != self.order {
            totalMatches = nil
            totalBooks = nil
            countTicket &+= 1
        }
        query = text
        self.unfinishedOnly = unfinishedOnly
        self.order = order
        let service = self.service
        let start = max(0, offset)
        let limit = max(1, rows)
        await content.load(.newestWins, action: "search the books") {
            let page = try await service.searchBooks(
                matching: text, unfinishedOnly: unfinishedOnly, limit: limit, offset: start, order: order, counting: false)
            _ = try page.books.requireUniqueIDs()
            return BookSearchPage(books: page.books, totalMatches: nil, totalBooks: nil, offset: start, hasMore: page.hasMore)
        }
    }

    /// Counts the matches of the current search and the library. A count that finishes
    /// after the search changed, or after a newer count, publishes nothing; a failed count
    /// keeps the counts unknown (the window is still shown).
    public func count() async {
        countTicket &+= 1
        let ticket = countTicket
        let service = self.service
        let (text, unfinishedOnly, order) = (query, self.unfinishedOnly, self.order)
        guard let page = try? await service.searchBooks(
            matching: text, unfinishedOnly: unfinishedOnly, limit: 1, offset: 0, order: order, counting: true),
            ticket == countTicket, !Task.isCancelled
        else { return }
        totalMatches = page.totalMatches
        totalBooks = page.totalBooks
    }

    /// Cancels the read in flight; nothing it would have found is published.
    public func cancel() {
        content.cancel()
    }
}
