// MARK: - Place

/// What a `Route` leads to: the screen a deep link opens.
public enum Place: Hashable, Sendable {
    /// A book, with the notes about it (the first `Place.listLimit`) and whether it is a favorite.
    case book(Book, notes: [Note], noteCount: Int, isFavorite: Bool)
    /// An author, as their books spell the name, with their books (the first `Place.listLimit`).
    case author(String, books: [Book], bookCount: Int)
    /// A note, and the book it is about when it is about one that is there.
    case note(Note, book: Book?)

    /// The most notes or books a place lists; the count says how many there are.
    public static let listLimit = 50

    /// The exact route of the place: full ids, the author's name as their books spell it.
    public var route: Route {
        switch self {
        case .book(let book, _, _, _): .book(book.id)
        case .author(let name, _, _): .author(name)
        case .note(let note, _): .note(note.id)
        }
    }
}

// MARK: - PlaceService (port)

/// Finds what routes lead to, for the router: a link is followed only to something
/// that is there.
public protocol PlaceService: Sendable {
    /// What `route` leads to. A book or note link may hold a unique id prefix (as
    /// `RecordLookupService` resolves it); an author link matches the author of some
    /// book, case- and accent-insensitively.
    /// - Throws: `RecordLookupError` — `.notFound` when no such record (or no book by
    ///   that author) is in the local store.
    func place(at route: Route) async throws -> Place

    /// What to call each route of a path next to its value: a book's or note's title,
    /// how many books an author has. Routes that lead nowhere any more are left out.
    func titles(of routes: [Route]) async throws -> [Route: String]
}
