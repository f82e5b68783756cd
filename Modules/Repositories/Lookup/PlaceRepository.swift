import Domain
import Records
import Storage

// MARK: - PlaceRepository

/// What the router's routes lead to (`PlaceService`), read from the account's local
/// store: a link is checked against the records that are there, with the same id
/// prefixes the CLI's commands take.
public struct PlaceRepository: PlaceService {
    private let store: ShelfStore
    private let preferences: any PreferencesStore

    public init(store: ShelfStore, preferences: any PreferencesStore) {
        self.store = store
        self.preferences = preferences
    }

    public func place(at route: Route) async throws -> Place {
        let limit = Place.listLimit
        switch route {
        case .book(let reference):
            let (book, notes, noteCount) = try store.read { reader in
                let id = try Self.resolveID(reference, in: .books, reader: reader)
                let book = try Self.decode(BookMapping.self, reader.record(.books, id: id), id: id)
                let noteIDs = try reader.recordIDs(.notes, field: WireNames.noteBook, equals: id)
                var notes = try noteIDs.prefix(limit).compactMap { noteID in
                    try reader.record(.notes, id: noteID).flatMap { try? NoteMapping.decode($0) }
                }
                notes.sort { NoteMapping.listsBefore((NoteMapping.sortKey(of: $0), $0.id), (NoteMapping.sortKey(of: $1), $1.id)) }
                return (book, notes, noteIDs.count)
            }
            return .book(book, notes: notes, noteCount: noteCount, isFavorite: (try? preferences.favorites().contains(book.id)) ?? false)
        case .author(let name):
            let matches = try store.read { reader in try reader.books(byAuthor: name, limit: limit) }
            let books = matches.records.compactMap { try? BookMapping.decode($0) }
            guard let first = books.first else { throw RecordLookupError.noBooks(byAuthor: name) }
            return .author(first.author, books: books, bookCount: matches.total)
        case .note(let reference):
            return try store.read { reader in
                let id = try Self.resolveID(reference, in: .notes, reader: reader)
                let note = try Self.decode(NoteMapping.self, reader.record(.notes, id: id), id: id)
                let book = try note.bookID.flatMap { bookID in try reader.record(.books, id: bookID) }
                    .flatMap { try? BookMapping.decode($0) }
                return .note(note, book: book)
            }
        }
    }

    public func titles(of routes: [Route]) async throws -> [Route: String] {
        try store.read { reader in
            var titles: [Route: String] = [:]
            for route in Set(routes) {
                switch route {
                case .book(let id):
                    if let record = try reader.record(.books, id: id) { titles[route] = RecordTitles.title(of: record) }
                case .note(let id):
                    if let record = try reader.record(.notes, id: id) { titles[route] = RecordTitles.title(of: record) }
                case .author(let name):
                    let count = try reader.books(byAuthor: name, limit: 0).total
                    if count > 0 { titles[route] = count == 1 ? "1 book" : "\(count) books" }
                }
            }
            return titles
        }
    }

    // MARK: Reading

    /// A link's id, as the CLI's commands resolve ids, except that a book link is an
    /// id (or a prefix of one), never a title.
    private static func resolveID(_ reference: String, in collection: CollectionName, reader: StoreReader) throws -> String {
        try RecordLookupRepository.resolve(reference, in: collection, matchingTitles: false, reader: reader)
    }

    private static func decode<Mapping: RecordMapping>(_: Mapping.Type, _ record: StoredRecord?, id: String) throws -> Mapping.Value {
        guard let record else { throw RecordLookupError.notFound(Mapping.collection, reference: id) }
        return try Mapping.decode(record)
    }
}
