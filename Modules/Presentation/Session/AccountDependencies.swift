import Domain

// MARK: - AccountID

/// The account a session works for: the user name the server knows the reader by.
public struct AccountID: Hashable, Sendable, Comparable, CustomStringConvertible {
    public let name: String

    /// - Throws: `DomainError.emptyTitle` when the name is empty after trimming.
    public init(_ name: String) throws(DomainError) {
        self.name = try TitleRule.validate(name, field: "account")
    }

    public var description: String { name }

    public static func < (lhs: AccountID, rhs: AccountID) -> Bool { lhs.name < rhs.name }
}

// MARK: - AccountDependencies

/// Everything the feature models of one account talk to, as Domain ports.
///
/// The app builds one of these per account (each account has its own store and its
/// own server bucket); tests build one from fakes.
public struct AccountDependencies: Sendable {
    public var books: any BookService
    public var notes: any NoteService
    public var tasks: any TaskService
    public var catalog: any CatalogService
    public var cart: any CartService
    public var syncStatus: any SyncStatusProviding
    public var preferences: any PreferencesStore

    public init(
        books: any BookService, notes: any NoteService, tasks: any TaskService,
        catalog: any CatalogService, cart: any CartService,
        syncStatus: any SyncStatusProviding, preferences: any PreferencesStore
    ) {
        self.books = books
        self.notes = notes
        self.tasks = tasks
        self.catalog = catalog
        self.cart = cart
        self.syncStatus = syncStatus
        self.preferences = preferences
    }
}
