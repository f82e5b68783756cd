import Domain

// MARK: - FakeBookService

/// A `BookService` over an in-memory shelf. Loads answer from the shelf unless a reply
/// is queued (a value, an error or a gate); writes change the shelf unless a failure
/// or a gate is queued for them. Every call is counted.
public actor FakeBookService: BookService, BookSearching {
    /// The server's copy of the books.
    public private(set) var shelf: [Book]
    public private(set) var loadCount = 0
    /// The `forceRefresh` flag of every load, in order.
    public private(set) var forceFlags: [Bool] = []
    /// Every write, in order: "add <title>", "update <id>", "delete <id>".
    public private(set) var writes: [String] = []

    /// Every search, in order: "<text>" or "<text> unfinished".
    public private(set) var searches: [String] = []

    private var loadReplies = ReplyQueue<[Book]>()
    private var searchReplies = ReplyQueue<BookSearchPage>()
    private var writeReplies = ReplyQueue<Void>()
    private var nextNumber = 1

    public init(books: [Book] = []) {
        shelf = books
    }

    // MARK: Scripting

    public func enqueueLoad(_ reply: FakeReply<[Book]>) {
        loadReplies.enqueue(reply)
    }

    public func enqueueSearch(_ reply: FakeReply<BookSearchPage>) {
        searchReplies.enqueue(reply)
    }

    /// The next write waits at this reply (a gate) or fails with it before touching the shelf.
    public func enqueueWrite(_ reply: FakeReply<Void>) {
        writeReplies.enqueue(reply)
    }

    // MARK: BookService

    public func books(forceRefresh: Bool) async throws -> [Book] {
        loadCount += 1
        forceFlags.append(forceRefresh)
        if let reply = loadReplies.next() { return try await reply.resolve() }
        return shelf
    }

    public func addBook(title: String, author: String) async throws -> Book {
        writes.append("add \(title)")
        try await writeReplies.next()?.resolve()
        let book = try Book(id: "book-new-\(nextNumber)", title: title, author: author)
        nextNumber += 1
        shelf.append(book)
        return book
    }

    public func updateBook(_ book: Book) async throws {
        writes.append("update \(book.id)")
        try await writeReplies.next()?.resolve()
        shelf = shelf.map { $0.id == book.id ? book : $0 }
    }

    public func deleteBook(id: Book.ID) async throws {
        writes.append("delete \(id)")
        try await writeReplies.next()?.resolve()
        shelf.removeAll { $0.id == id }
    }

    // MARK: BookSearching (as the store's indexes would answer)

    public func searchBooks(
        matching text: String, unfinishedOnly: Bool, limit: Int?, offset: Int, order: ListOrder<BookSortField>, counting: Bool
    ) async throws -> BookSearchPage {
        let sorted = order == .standard ? "" : " sorted by \(order.descending ? "-" : "")\(order.field.rawValue)"
        searches.append((unfinishedOnly ? "\(text) unfinished" : text) + sorted)
        if let reply = searchReplies.next() { return try await reply.resolve() }
        var matches = shelf.filter { book in
            (!unfinishedOnly || !book.isFinished) && SearchFolding.matches(text, in: book.title, book.author)
        }
        if order != .standard {
            let key: (Book) -> String = switch order.field {
            case .title: { $0.title }
            case .author: { $0.author }
            case .finished: { $0.isFinished ? "1" : "0" }
            case .id: { $0.id }
            }
            matches.sort { order.descending ? key($0) > key($1) : key($0) < key($1) }
        }
        let page = Array(matches.dropFirst(offset).prefix(limit ?? Int.max))
        return BookSearchPage(books: page, totalMatches: matches.count, totalBooks: shelf.count, offset: offset)
    }
}
