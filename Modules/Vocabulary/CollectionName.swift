// MARK: - CollectionName

/// The collections Shelf keeps locally and syncs.
///
/// The reader's own data (`books`, `notes`, `tasks`, `cart`, `preferences` — favorites
/// and reading settings — and `sessions`, the reading log) lives in the reader's
/// private bucket; `products` is the shared shop catalog, which readers only read.
public enum CollectionName: String, CaseIterable, Hashable, Sendable, Codable, Comparable {
    case books, notes, tasks, cart, products, preferences, sessions

    /// The collections a reader writes to and the sync engine pushes.
    public static let writable: [CollectionName] = [.books, .notes, .tasks, .cart, .preferences, .sessions]

    public var isReadOnly: Bool { self == .products }

    public static func < (lhs: CollectionName, rhs: CollectionName) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
        // NB: force unwraps are safe: both values are cases of `allCases` by definition.
    }
}
