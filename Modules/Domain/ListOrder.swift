// MARK: - ListOrder

/// The order a list is asked for: one of the list's sort fields, ascending or
/// descending (`--sort author`, `--sort -author`, `--reverse`).
///
/// Each list names its own fields (`BookSortField`, …) so a field a list cannot sort by
/// is refused before anything is read, and the store sorts (and cuts at `--limit`) in
/// its query instead of after loading everything.
public struct ListOrder<Field: ListSortField>: Hashable, Sendable {
    public var field: Field
    public var descending: Bool

    public init(_ field: Field, descending: Bool = false) {
        self.field = field
        self.descending = descending
    }

    /// The list's own order (its first field, ascending).
    public static var standard: ListOrder { ListOrder(Field.standard) }

    /// `title` ascending, `-title` descending; nil for a word that names no field.
    public init?(parsing word: String) {
        let descending = word.hasPrefix("-")
        guard let field = Field(rawValue: descending ? String(word.dropFirst()) : word) else { return nil }
        self.init(field, descending: descending)
    }

    /// The same field the other way round.
    public var reversed: ListOrder { ListOrder(field, descending: !descending) }
}

// MARK: - ListSortField

/// The fields one list can be sorted by, spelled as `--sort` takes them.
public protocol ListSortField: CaseIterable, RawRepresentable, Hashable, Sendable where RawValue == String {
    /// The order the list has when `--sort` is not given.
    static var standard: Self { get }
}

extension ListSortField {
    /// Every field's name, in the order help and errors list them.
    public static var names: [String] { allCases.map(\.rawValue) }
}

// MARK: - The lists' fields

/// `shelf books --sort`: title (then author), author (then title), finished, id.
public enum BookSortField: String, ListSortField {
    case title, author, finished, id
    public static let standard = BookSortField.title
}

/// `shelf tasks --sort`: title, done (open first), id.
public enum TaskSortField: String, ListSortField {
    case title, done, id
    public static let standard = TaskSortField.title
}

/// `shelf notes --sort`: title (then body), book (notes about no book first, then the
/// title), id.
public enum NoteSortField: String, ListSortField {
    case title, book, id
    public static let standard = NoteSortField.title
}

/// `shelf products --sort`: name, price (in minor units, whatever the currency), id.
public enum ProductSortField: String, ListSortField {
    case name, price, id
    public static let standard = ProductSortField.name
}

/// `shelf log --sort`: day, minutes (the day's total, then the day), sessions (how many,
/// then the day). The log's own order is the newest day first (`-day`).
public enum LogSortField: String, ListSortField {
    case day, minutes, sessions
    public static let standard = LogSortField.day
}
