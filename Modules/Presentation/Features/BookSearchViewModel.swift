import Domain
import Observation

// MARK: - BookSearchViewModel

/// The library searched through the store's indexes, so a library too large to load
/// whole is never loaded whole: this model asks the `BookSearching` port for the
/// matching page only (100,000 books, one search, a few milliseconds). A book is changed
/// through `BookViewModel`.
///
/// A newer search wins over an older one whatever order they finish in; a cancelled
/// search publishes nothing; a failed search keeps the last results on screen.
@MainActor
@Observable
public final class BookSearchViewModel {
    // MARK: State

    public var state: LoadingState<BookSearchPage> { content.state }
    /// The last failure of a search; cleared by the next success.
    public var errorMessage: String? { content.errorMessage }
    /// The text of the latest search.
    public private(set) var query = ""
    /// Whether the latest search left finished books out.
    public private(set) var unfinishedOnly = false
    /// The latest search's limit; nil when it asked for every match.
    public private(set) var limit: Int?

    /// The books of the latest results.
    public var books: [Book] { state.value?.books ?? [] }
    public var isLoading: Bool { state.isLoading }

    // MARK: Dependencies

    private let service: any BookSearching
    private let content = ContentController<BookSearchPage>()

    public init(service: any BookSearching) {
        self.service = service
    }

    // MARK: Searching

    /// Searches title and author (case- and diacritic-insensitive); an empty text lists
    /// every book.
    /// - Parameters:
    ///   - unfinishedOnly: leave finished books out (the reader's `showFinished` off, or
    ///     a filter asked for).
    ///   - limit: at most this many books; nil for every match.
    ///   - order: the order of the matches; the service sorts before it cuts at `limit`.
    ///   - counting: count every match and the library even past `limit` (see `BookSearching`).
    public func search(
        _ text: String, unfinishedOnly: Bool, limit: Int? = nil, order: ListOrder<BookSortField> = .standard,
        counting: Bool = true
    ) async {
        query = text
        self.unfinishedOnly = unfinishedOnly
        self.limit = limit
        let service = self.service
        await content.load(.newestWins, action: "search the books") {
            let page = try await service.searchBooks(
                matching: text, unfinishedOnly: unfinishedOnly, limit: limit, offset: 0, order: order, counting: counting)
            _ = try page.books.requireUniqueIDs()
            return page
        }
    }

    /// Cancels the search in flight; nothing it would have found is published.
    public func cancel() {
        content.cancel()
    }
}
