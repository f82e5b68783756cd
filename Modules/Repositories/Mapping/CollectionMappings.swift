import Domain
import Records

// MARK: - Collection mappings
//
// Each collection's DTO and listing order. The order is the store's sort key, computed
// by the one rule in Records (`RecordIndexing`) from a Domain value instead of from the
// stored JSON. Repositories need it only to put a value they just wrote where the store
// would list it, without reading the whole collection again; `RepositoriesTests` checks
// the cached order against a fresh read.

enum BookMapping: RecordMapping {
    typealias DTO = BookDTO
    static func sortKey(of book: Book) -> String { RecordIndexing.sortKey(of: book) }
}

enum NoteMapping: RecordMapping {
    typealias DTO = NoteDTO
    static func sortKey(of note: Note) -> String { RecordIndexing.sortKey(of: note) }
}

enum ReadingTaskMapping: RecordMapping {
    typealias DTO = ReadingTaskDTO
    static func sortKey(of task: ReadingTask) -> String { RecordIndexing.sortKey(of: task) }
}

enum CartItemMapping: RecordMapping {
    typealias DTO = CartItemDTO
    static func sortKey(of item: CartItem) -> String { RecordIndexing.sortKey(of: item) }
}

enum ProductMapping: RecordMapping {
    typealias DTO = ProductDTO
    static func sortKey(of product: Product) -> String { RecordIndexing.sortKey(of: product) }
}

enum ReadingSessionMapping: RecordMapping {
    typealias DTO = ReadingSessionDTO
    static func sortKey(of session: ReadingSession) -> String { RecordIndexing.sortKey(of: session) }
}
