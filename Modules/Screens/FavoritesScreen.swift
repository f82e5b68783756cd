import Domain
import Presentation

// MARK: - FavoritesScreen

/// The favorite books as `shelf favorites` shows them: the favorites are the reader's
/// preferences, their titles come from the library, so the screen loads as the
/// library does.
public struct FavoritesScreen: RenderableScreen, Hashable {
    /// One favorite: its id, and the book when the library has it.
    public struct Entry: Encodable, Hashable, Sendable {
        public let id: String
        public let book: BookView?

        private enum CodingKeys: String, CodingKey { case id, book }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(id, forKey: .id)
            try container.encode(book, forKey: .book)
        }
    }

    public let state: ScreenStatus
    /// The favorite books in the order asked for, then those the library does not have, by id.
    public let favorites: [Entry]
    public let error: String?
    private let hasValue: Bool
    /// More favorites than the list shows (`--limit` cut it).
    private var hasMore = false
    /// The id prefixes the table shows (JSON keeps full ids).
    private let shortIDs: ShortIDs

    /// The favorites as the store found them by id: the books in the order asked for,
    /// then — when the list was not cut — the favorites the library does not have, by
    /// id, all cut at the model's limit.
    @MainActor
    public init(favorites model: FavoritesViewModel, books: FavoriteBooksViewModel, shortIDs: ShortIDs = .full) {
        self.shortIDs = shortIDs
        let slice = books.state.value
        let found = books.books.map { Entry(id: $0.id, book: BookView($0)) }
        let known = Set(found.map(\.id))
        let missing = slice?.hasMore == false ? model.sortedIDs.filter { !known.contains($0) }.map { Entry(id: $0, book: nil) } : []
        let all = found + missing
        let limit = books.limit ?? all.count
        state = ScreenStatus(books.state)
        favorites = Array(all.prefix(limit))
        hasMore = (slice?.hasMore ?? false) || all.count > limit
        error = model.errorMessage ?? books.errorMessage ?? books.state.failureMessage
        hasValue = books.state.hasValue
    }

    // MARK: Text

    public func renderText(_ options: RenderOptions) -> String {
        var text = ScreenText(options)
        text.list(
            status: state, hasValue: hasValue, noun: "favorites",
            table: favorites.isEmpty ? nil : table, empty: "No favorites yet.",
            summary: Wording.count(favorites.count, "favorite") + (hasMore ? " shown (more than --limit \(favorites.count))" : ""),
            error: error
        )
        return text.text
    }

    private var table: TextTable {
        var table = TextTable([.init("ID"), .init("TITLE"), .init("AUTHOR")])
        for entry in favorites {
            if let book = entry.book {
                table.append(shortIDs.shown(entry.id, in: .books), book.title, book.author)
            } else {
                table.append([.init(shortIDs.shown(entry.id, in: .books)), .init("(not in the library)", .quiet), .init("")])
            }
        }
        return table
    }

    // MARK: JSON

    private enum CodingKeys: String, CodingKey { case state, favorites, error }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(state, forKey: .state)
        try container.encode(favorites, forKey: .favorites)
        try container.encode(error, forKey: .error)
    }
}
