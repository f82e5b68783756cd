import Domain
import Records

// MARK: - Collection mappings
//
// Each collection's DTO (Records) and listing order. The order mirrors the sort key
// Storage computes from the stored JSON (`RecordIndexing`):
//
// | collection | key                                        |
// |------------|--------------------------------------------|
// | books      | fold(title ␟ author)                       |
// | notes      | fold(title) ␟ first 64 characters of fold(body) |
// | tasks      | fold(title)                                |
// | products   | fold(name)                                 |
// | cart       | product id, as written                     |
// | sessions   | day (YYYY-MM-DD), as written               |
//
// ␟ is U+001F; fold is Domain's `SearchFolding.fold`. Repositories need it only to put
// a value they just wrote where the store would list it, without reading the whole
// collection again; `RepositoriesTests` checks the cached order against a fresh read.

/// U+001F, the separator of fields inside a stored sort key.
private let fieldSeparator = "\u{1F}"

enum BookMapping: RecordMapping {
    typealias DTO = BookDTO

    static func sortKey(of book: Book) -> String {
        SearchFolding.fold(book.title + fieldSeparator + book.author)
    }
}

enum NoteMapping: RecordMapping {
    typealias DTO = NoteDTO

    /// Characters of a body that take part in the key (Storage's `bodySortPrefix`).
    static let bodySortPrefix = 64

    static func sortKey(of note: Note) -> String {
        let folded = SearchFolding.fold(note.title + fieldSeparator + note.body)
        guard let separator = folded.firstIndex(of: Character(fieldSeparator)) else { return folded }
        return String(folded[...separator]) + folded[folded.index(after: separator)...].prefix(bodySortPrefix)
    }
}

enum ReadingTaskMapping: RecordMapping {
    typealias DTO = ReadingTaskDTO

    static func sortKey(of task: ReadingTask) -> String {
        SearchFolding.fold(task.title)
    }
}

enum CartItemMapping: RecordMapping {
    typealias DTO = CartItemDTO

    static func sortKey(of item: CartItem) -> String {
        item.productID
    }
}

enum ProductMapping: RecordMapping {
    typealias DTO = ProductDTO

    static func sortKey(of product: Product) -> String {
        SearchFolding.fold(product.name)
    }
}

enum ReadingSessionMapping: RecordMapping {
    typealias DTO = ReadingSessionDTO

    static func sortKey(of session: ReadingSession) -> String {
        session.day.description
    }
}
