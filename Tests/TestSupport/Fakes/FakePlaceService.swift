import Domain

// MARK: - FakePlaceService

/// A `PlaceService` over in-memory books and notes: ids and unique prefixes resolve
/// as the store resolves them (`RecordReferenceMatch`), authors by exact name.
public struct FakePlaceService: PlaceService {
    public var books: [Book]
    public var notes: [Note]
    public var favorites: Set<Book.ID>
    /// Routes whose lookup waits at a gate until the test opens it.
    public var gates: [Route: SuspensionGate<Void>]

    public init(books: [Book] = [], notes: [Note] = [], favorites: Set<Book.ID> = [], gates: [Route: SuspensionGate<Void>] = [:]) {
        self.books = books
        self.notes = notes
        self.favorites = favorites
        self.gates = gates
    }

    public func place(at route: Route) async throws -> Place {
        if let gate = gates[route] { try await gate.pass() }
        switch route {
        case .book(let reference):
            let id = try RecordReferenceMatch.resolve(
                reference, among: books.map { RecordCandidate(id: $0.id, title: $0.title) }, in: .books)
            // NB: the id was just matched among `books`.
            let book = books.first { $0.id == id }!
            let about = notes.filter { $0.bookID == id }
            return .book(book, notes: about, noteCount: about.count, isFavorite: favorites.contains(id))
        case .author(let name):
            let theirs = books.filter { SearchFolding.fold($0.author) == SearchFolding.fold(name) }
            guard let first = theirs.first else { throw RecordLookupError.noBooks(byAuthor: name) }
            return .author(first.author, books: theirs, bookCount: theirs.count)
        case .note(let reference):
            let id = try RecordReferenceMatch.resolve(
                reference, among: notes.map { RecordCandidate(id: $0.id, title: $0.title) }, in: .notes)
            // NB: the id was just matched among `notes`.
            let note = notes.first { $0.id == id }!
            return .note(note, book: books.first { $0.id == note.bookID })
        }
    }

    public func titles(of routes: [Route]) async throws -> [Route: String] {
        var titles: [Route: String] = [:]
        for route in routes {
            switch route {
            case .book(let id): titles[route] = books.first { $0.id == id }?.title
            case .note(let id): titles[route] = notes.first { $0.id == id }?.title
            case .author(let name):
                let count = books.filter { $0.author == name }.count
                if count > 0 { titles[route] = count == 1 ? "1 book" : "\(count) books" }
            }
        }
        return titles
    }
}
