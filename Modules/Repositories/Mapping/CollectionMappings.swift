import Domain
import RecordDTOs
import Records

// MARK: - Collection mappings
//
// Each collection's DTO and listing order. The order is the store's sort key, computed
// by the one rule in Records (`RecordIndexing`), which RecordDTOs applies to a Domain
// value instead of to the stored JSON. Repositories need it only to put a value they just wrote where the store
// would list it, without reading the whole collection again; `RepositoriesTests` checks
// the cached order against a fresh read.

public enum BookMapping: RecordMapping {
    public typealias DTO = BookDTO
    public static func sortKey(of book: Book) -> String { RecordIndexing.sortKey(of: book) }
}

public enum NoteMapping: RecordMapping {
    public typealias DTO = NoteDTO
    public static func sortKey(of note: Note) -> String { RecordIndexing.sortKey(of: note) }
}

public enum ReadingTaskMapping: RecordMapping {
    public typealias DTO = ReadingTaskDTO
    public static func sortKey(of task: ReadingTask) -> String { RecordIndexing.sortKey(of: task) }
}

public enum CartItemMapping: RecordMapping {
    public typealias DTO = CartItemDTO
    public static func sortKey(of item: CartItem) -> String { RecordIndexing.sortKey(of: item) }
}

public enum ProductMapping: RecordMapping {
    public typealias DTO = ProductDTO
    public static func sortKey(of product: Product) -> String { RecordIndexing.sortKey(of: product) }
}

public enum ReadingSessionMapping: RecordMapping {
    public typealias DTO = ReadingSessionDTO
    public static func sortKey(of session: ReadingSession) -> String { RecordIndexing.sortKey(of: session) }
}
