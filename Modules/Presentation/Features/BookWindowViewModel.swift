import Domain
import Observation

// MARK: - BookWindowViewModel

/// The part of a book search a screen can show: one window of matches at an offset,
/// read through the `BookSearching` port, so scrolling a library of 100,000 books reads a
/// screenful at a time and memory stays flat. `BookSearchViewModel` is the whole search
/// the CLI prints; this is the same search, one window at a time, for `shelf ui`.
///
/// The counts (matches, books) are read when the search itself changes (text, filter,
/// order) and kept while only the window moves, so a scroll costs its window alone.
/// A newer window wins over an older one; a failed read keeps the window shown.
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

    public init(service: any BookSearching) {
        self.service = service
    }

    // MARK: Intents

    /// Reads the window of `rows` matches from `offset`. A change of text, filter or
    /// order (or `recount`) counts the matches again; a move of the window alone does not.
    public func show(
        _ text: String, unfinishedOnly: Bool, order: ListOrder<BookSortField>, offset: Int, rows: Int,
        recount: Bool = false
    ) async {
        let counting = recount || totalMatches == nil || text != query || unfinishedOnly != self.unfinishedOnly
            || order != self.order
        query = text
        self.unfinishedOnly = unfinishedOnly
        self.order = order
        let service = self.service
        let start = max(0, offset)
        let limit = max(1, rows)
        await content.load(.newestWins, action: "search the books") {
            let page = try await service.searchBooks(
                matching: text, unfinishedOnly: unfinishedOnly, limit: limit, offset: start, order: order,
                counting: counting)
            _ = try page.books.requireUniqueIDs()
            return page
        }
        if counting, let page = state.value, errorMessage == nil {
            totalMatches = page.totalMatches
            totalBooks = page.totalBooks
        }
    }

    /// Cancels the read in flight; nothing it would have found is published.
    public func cancel() {
        content.cancel()
    }
}
