import Domain
import Observation

// MARK: - FavoriteBooksViewModel

/// The favorite books as the library has them, found by id in the store's query — the
/// library is never loaded whole to show a handful of favorites.
@MainActor
@Observable
public final class FavoriteBooksViewModel {
    // MARK: State

    public var state: LoadingState<ListSlice<Book>> { content.state }
    public var errorMessage: String? { content.errorMessage }
    /// The favorites found in the library, in the order asked for.
    public var books: [Book] { state.value?.items ?? [] }
    /// The last load's limit; nil when it asked for every favorite.
    public private(set) var limit: Int?

    // MARK: Dependencies

    private let service: any BookService
    private let content = ContentController<ListSlice<Book>>()

    public init(service: any BookService) {
        self.service = service
    }

    // MARK: Loading

    /// Loads the books among `ids`, the first `limit` (all when nil) in `order`. A newer
    /// load wins over an older one.
    public func load(ids: Set<Book.ID>, order: ListOrder<BookSortField> = .standard, limit: Int? = nil) async {
        self.limit = limit
        let service = self.service
        await content.load(.newestWins, action: "load the favorite books") {
            let slice = try await service.books(ids: ids, order: order, limit: limit)
            return ListSlice(items: try slice.items.requireUniqueIDs(), hasMore: slice.hasMore, total: slice.total)
        }
    }
}
