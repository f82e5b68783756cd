import Foundation

// MARK: - Ports
//
// The protocols view models depend on. They are declared in Domain so Presentation
// sees nothing but Domain values; Repositories implements them over Storage and the
// remote services, and tests implement them with fakes and suspension gates.

/// The reader's books.
public protocol BookService: Sendable {
    /// The books as the repository's freshness policy serves them.
    /// - Parameter forceRefresh: ask the server even when the cache is fresh.
    func books(forceRefresh: Bool) async throws -> [Book]
    func addBook(title: String, author: String) async throws -> Book
    func updateBook(_ book: Book) async throws
    func deleteBook(id: Book.ID) async throws
    /// The books among `ids` (favorites), the first `limit` (all when nil) in `order`; a
    /// store finds, sorts and cuts them in its query instead of loading the library.
    func books(ids: Set<Book.ID>, order: ListOrder<BookSortField>, limit: Int?) async throws -> ListSlice<Book>
}

extension BookService {
    /// For services that hold their books in memory: every book, filtered, sorted and cut here.
    public func books(ids: Set<Book.ID>, order: ListOrder<BookSortField>, limit: Int?) async throws -> ListSlice<Book> {
        let key: (Book) -> String = switch order.field {
        case .title: { SearchFolding.fold($0.title) + "\u{1F}" + SearchFolding.fold($0.author) }
        case .author: { SearchFolding.fold($0.author) + "\u{1F}" + SearchFolding.fold($0.title) }
        case .finished: { ($0.isFinished ? "1" : "0") + SearchFolding.fold($0.title) }
        case .id: { $0.id }
        }
        let slice = ListSlice.cutting(
            try await books(forceRefresh: false), where: { ids.contains($0.id) }, key: key, id: \.id,
            descending: order.descending, limit: limit)
        return ListSlice(items: slice.items, hasMore: slice.hasMore, total: nil)
    }
}

/// Removes a book with what refers to it, as one change (notes, reading sessions, its
/// favorite): a change across collections, so not one collection's `BookService`.
public protocol BookRemoving: Sendable {
    /// - Throws: when references are found and `mode` does not say what to do with them
    ///   (Repositories' `BookRemovalError` names how many).
    func removeBook(id: Book.ID, mode: BookRemovalMode) async throws -> BookRemovalResult
}

/// Finds the reader's books with the local store's indexes, one page at a time: for
/// libraries too large to load whole (a search over 100,000 books must not decode them all).
public protocol BookSearching: Sendable {
    /// The books whose title or author contains `text` (case- and diacritic-insensitive;
    /// empty matches every book), in the order asked for.
    /// - Parameters:
    ///   - unfinishedOnly: leave finished books out.
    ///   - limit: at most this many books; nil for every match.
    ///   - offset: matches skipped first: from the start, from the anchor, or (reversed)
    ///     from the end.
    ///   - order: the order of the matches, applied before the limit.
    ///   - counting: count every match and the whole library, even past `limit`. A
    ///     limited search without it reads only its page (and one more book, to know
    ///     whether more match): quick at a million books, with nil counts.
    ///   - anchor: only the matches on one side of a book an earlier page ended on
    ///     (`BookSearchPage.first`, `.last`): the store seeks to it instead of stepping
    ///     through every match before it, so a window deep in the library costs what the
    ///     first one does.
    ///   - reversed: read the order from its end (or backward from a `.before` anchor):
    ///     the books still come in the order, and `hasMore` says whether more match
    ///     before them.
    func searchBooks(
        matching text: String, unfinishedOnly: Bool, limit: Int?, offset: Int, order: ListOrder<BookSortField>, counting: Bool,
        anchor: ListAnchor?, reversed: Bool
    ) async throws -> BookSearchPage
}

extension BookSearching {
    /// The matches in the library's own order (title, then author).
    public func searchBooks(matching text: String, unfinishedOnly: Bool, limit: Int?, offset: Int) async throws -> BookSearchPage {
        try await searchBooks(
            matching: text, unfinishedOnly: unfinishedOnly, limit: limit, offset: offset, order: .standard, counting: true)
    }

    /// The matches from an offset of the order's start.
    public func searchBooks(
        matching text: String, unfinishedOnly: Bool, limit: Int?, offset: Int, order: ListOrder<BookSortField>, counting: Bool
    ) async throws -> BookSearchPage {
        try await searchBooks(
            matching: text, unfinishedOnly: unfinishedOnly, limit: limit, offset: offset, order: order, counting: counting,
            anchor: nil, reversed: false)
    }
}

/// One page of a book search, with the counts a list needs to say what it left out.
public struct BookSearchPage: Hashable, Sendable {
    /// The matching books of this page.
    public var books: [Book]
    /// How many books match in all pages; nil when a search that did not count stopped
    /// at its limit with more to come.
    public var totalMatches: Int?
    /// How many books the library holds, matching or not; nil when not counted.
    public var totalBooks: Int?
    /// Matches skipped before this page.
    public var offset: Int
    /// Whether more books match after this page (before it, for a page read reversed).
    public var hasMore: Bool
    /// Where the page's first and last books are in its order, for the next page to
    /// seek from (`ListAnchor`); nil for an empty page or a store that cannot seek.
    public var first: ListPosition?
    public var last: ListPosition?

    public init(
        books: [Book], totalMatches: Int?, totalBooks: Int?, offset: Int = 0, hasMore: Bool? = nil,
        first: ListPosition? = nil, last: ListPosition? = nil
    ) {
        self.books = books
        self.totalMatches = totalMatches
        self.totalBooks = totalBooks
        self.offset = offset
        self.hasMore = hasMore ?? (totalMatches.map { offset + books.count < $0 } ?? false)
        self.first = first
        self.last = last
    }
}

/// Loads the reader's notes (the seed article's `NotesLoading`).
public protocol NotesLoading: Sendable {
    func loadNotes() async throws -> [Note]
}

/// Changes the reader's notes.
public protocol NoteService: NotesLoading {
    func addNote(title: String, body: String, bookID: Book.ID?) async throws -> Note
    func updateNote(_ note: Note) async throws
    func deleteNote(id: Note.ID) async throws
    /// The notes matching `search` (title or body) and about `bookID` (when set), the
    /// first `limit` (all when nil) in `order`; a store filters, sorts and cuts in its
    /// query instead of loading every note.
    func notes(matching search: String, about bookID: Book.ID?, order: ListOrder<NoteSortField>, limit: Int?)
        async throws -> ListSlice<Note>
}

extension NoteService {
    /// For services that hold their notes in memory: every note, filtered, sorted and cut here.
    public func notes(matching search: String, about bookID: Book.ID?, order: ListOrder<NoteSortField>, limit: Int?)
        async throws -> ListSlice<Note>
    {
        let key: (Note) -> String = switch order.field {
        case .title: { SearchFolding.fold($0.title) + "\u{1F}" + SearchFolding.fold($0.body) }
        case .book: { ($0.bookID.map { "1" + $0 } ?? "0") + "\u{1F}" + SearchFolding.fold($0.title) }
        case .id: { $0.id }
        }
        return ListSlice.cutting(
            try await loadNotes(),
            where: { (bookID == nil || $0.bookID == bookID) && SearchFolding.matches(search, in: $0.title, $0.body) },
            key: key, id: \.id, descending: order.descending, limit: limit)
    }
}

/// The reader's reading tasks.
public protocol TaskService: Sendable {
    func tasks() async throws -> [ReadingTask]
    /// The first `limit` tasks (all when nil) in `order`; a store sorts and cuts in its
    /// query instead of loading every task.
    func tasks(order: ListOrder<TaskSortField>, limit: Int?) async throws -> [ReadingTask]
    func addTask(title: String) async throws -> ReadingTask
    func updateTask(_ task: ReadingTask) async throws
    func deleteTask(id: ReadingTask.ID) async throws
}

extension TaskService {
    /// For services that hold their tasks in memory: every task, sorted and cut here (in
    /// the service's own order for the standard one).
    public func tasks(order: ListOrder<TaskSortField>, limit: Int?) async throws -> [ReadingTask] {
        guard order != .standard else {
            let all = try await tasks()
            return Array(all.prefix(limit ?? all.count))
        }
        let key: (ReadingTask) -> String = switch order.field {
        case .title: { SearchFolding.fold($0.title) }
        case .done: { ($0.isDone ? "1" : "0") + SearchFolding.fold($0.title) }
        case .id: { $0.id }
        }
        let sorted = try await tasks().sorted { lhs, rhs in
            let (left, right) = (key(lhs), key(rhs))
            if left != right { return order.descending ? left > right : left < right }
            return order.descending ? lhs.id > rhs.id : lhs.id < rhs.id
        }
        return Array(sorted.prefix(limit ?? sorted.count))
    }
}

/// The shared shop catalog (read-only).
public protocol CatalogService: Sendable {
    func products(forceRefresh: Bool) async throws -> [Product]
    /// The products whose name contains `search`, the first `limit` (all when nil) in
    /// `order`; a store filters, sorts and cuts in its query.
    func products(matching search: String, order: ListOrder<ProductSortField>, limit: Int?) async throws -> ListSlice<Product>
}

extension CatalogService {
    /// For services that hold the catalog in memory: every product, filtered, sorted and cut here.
    public func products(matching search: String, order: ListOrder<ProductSortField>, limit: Int?) async throws
        -> ListSlice<Product>
    {
        let key: (Product) -> String = switch order.field {
        case .name: { SearchFolding.fold($0.name) }
        case .price: { String(repeating: "0", count: max(0, 20 - String($0.price.minorUnits).count)) + String($0.price.minorUnits) }
        case .id: { $0.id }
        }
        return ListSlice.cutting(
            try await products(forceRefresh: false), where: { SearchFolding.matches(search, in: $0.name) },
            key: key, id: \.id, descending: order.descending, limit: limit)
    }
}

/// The reader's cart.
public protocol CartService: Sendable {
    func cartItems() async throws -> [CartItem]
    /// Adds `quantity` of a product, or sets the line's quantity when it is already there.
    func setQuantity(_ quantity: Int, of productID: Product.ID) async throws -> CartItem
    func removeFromCart(productID: Product.ID) async throws
}

/// What the sync engine last did, for the status screen.
public protocol SyncStatusProviding: Sendable {
    func syncStatus() async throws -> SyncStatus
}

// MARK: - SyncStatus

/// A summary of the local store's sync state, across collections.
public struct SyncStatus: Hashable, Sendable, Codable {
    /// When the last complete sync started (every collection pulled, every change it could
    /// send pushed); nil before the first. A failed push or a read's refresh does not move it.
    public var lastSuccess: Date?
    /// Local changes waiting in the outbox.
    public var pendingChanges: Int
    /// Conflicts waiting for `shelf resolve`.
    public var conflicts: Int
    /// Changes the server refused for good, waiting for `shelf retry` or `shelf discard`.
    public var deadLetters: Int
    /// The server asked clients to wait until then (Backoff / Retry-After).
    public var backoffUntil: Date?
    /// The last run's error, when it failed: each cause once, with the collections it hit.
    public var lastError: String?
    /// Ticks the worker still rests after idle runs before it asks the server again
    /// (`shelf-sync --rest-when-idle`); 0 when it asks at the next tick. It says why the
    /// last sync may be older than the cron period.
    public var restingTicks: Int

    public init(
        lastSuccess: Date? = nil, pendingChanges: Int = 0, conflicts: Int = 0,
        deadLetters: Int = 0, backoffUntil: Date? = nil, lastError: String? = nil, restingTicks: Int = 0
    ) {
        self.lastSuccess = lastSuccess
        self.pendingChanges = pendingChanges
        self.conflicts = conflicts
        self.deadLetters = deadLetters
        self.backoffUntil = backoffUntil
        self.lastError = lastError
        self.restingTicks = max(0, restingTicks)
    }
}

// MARK: - Reading log

/// The reader's reading sessions (append-only) and what they add up to.
public protocol ReadingLogService: Sendable {
    /// Every session, from every device that has synced.
    func sessions(forceRefresh: Bool) async throws -> [ReadingSession]
    /// Adds a session.
    /// - Throws: `DomainError` for minutes outside 1...1440 or a malformed book id.
    func logSession(minutes: Int, day: ReadingDay, bookID: Book.ID?) async throws -> ReadingSession
}

// MARK: - Sync runs

/// One sync run of the account, now: pull, merge, push, with progress as it goes. The
/// run's events and report are the sync engine's own, so the port names them as
/// associated types. A run never throws: whatever went wrong is in its report.
public protocol SyncRunning: Sendable {
    associatedtype Event: Sendable
    associatedtype Report: Sendable

    /// - Parameter onEvent: told each step as it happens (from the engine's task).
    func runNow(onEvent: @escaping @Sendable (Event) -> Void) async -> Report
}

// MARK: - Accounts

/// The reader's accounts on this machine: listed, added (checked with the server first),
/// made current, removed. What an account, a listing and an addition are is the account
/// store's and the sync engine's, so the port names them as associated types.
public protocol AccountService: Sendable {
    associatedtype Account: Sendable
    associatedtype Listing: Sendable
    associatedtype Addition: Sendable
    associatedtype Added: Sendable
    associatedtype Removal: Sendable
    /// A new password for an account, and where it comes from.
    associatedtype PasswordChange: Sendable
    associatedtype PasswordChanged: Sendable
    /// What an addition tells the reader along the way (warnings, notes).
    associatedtype Notice: Sendable

    func accounts() async throws -> Listing
    /// Verifies (or signs up) and saves; told each notice as it arises.
    func add(_ addition: Addition, notify: @escaping @Sendable (Notice) -> Void) async throws -> Added
    func use(_ name: String) async throws -> Account
    /// Removes the account; its local store stays. An account whose store holds changes
    /// not synced yet is refused unless `discardingUnsynced` (the reader confirmed).
    func remove(_ name: String, discardingUnsynced: Bool) async throws -> Removal
    /// Checks the new password with the server, then saves it; told each notice as it arises.
    func changePassword(_ change: PasswordChange, notify: @escaping @Sendable (Notice) -> Void) async throws -> PasswordChanged
}

// MARK: - Store care

/// The account's local store looked after: checked whole, copied while a sync may run,
/// or replaced by a checked copy. The diagnosis and summaries are the store's own, so
/// the port names them as associated types.
public protocol StoreCaring: Sendable {
    associatedtype Diagnosis: Sendable
    associatedtype Backup: Sendable
    associatedtype Restore: Sendable

    /// Reads the store through SQLite's full integrity check; changes nothing.
    func diagnose() async throws -> Diagnosis
    /// Writes a consistent copy to a new private file at `path`.
    func backup(to path: String) async throws -> Backup
    /// Checks the backup at `path` and puts it in the store's place (the replaced one is kept).
    func restore(from path: String) async throws -> Restore
}
