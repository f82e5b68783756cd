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

    /// Every search is logged as "<text>[ unfinished][ sorted by <order>]", and a read
    /// that seeks or reads backward adds " after|from|before|through <id>", " reversed"
    /// and " skip <offset>".
    ///
    /// A book's position is its rank in the whole shelf in that order (its key, then its
    /// place on the shelf, as the store breaks ties by id), so a seek finds the rows after
    /// it whatever the filter, as the store's does.
    public func searchBooks(
        matching text: String, unfinishedOnly: Bool, limit: Int?, offset: Int, order: ListOrder<BookSortField>, counting: Bool,
        anchor: ListAnchor?, reversed: Bool
    ) async throws -> BookSearchPage {
        searches.append(Self.describe(text, unfinishedOnly: unfinishedOnly, order: order, offset: offset, anchor: anchor, reversed: reversed))
        if let reply = searchReplies.next() { return try await reply.resolve() }
        let ordered = Self.ordered(shelf, by: order)
        let rank = Dictionary(uniqueKeysWithValues: ordered.enumerated().map { ($0.element.id, $0.offset) })
        let matches = ordered.filter { book in
            (!unfinishedOnly || !book.isFinished) && SearchFolding.matches(text, in: book.title, book.author)
        }
        var candidates = matches
        if let anchor, case .integer(let at)? = anchor.position.values.first {
            candidates = candidates.filter { book in
                let place = Int64(rank[book.id] ?? 0)
                return switch anchor.side {
                case .after: anchor.inclusive ? place >= at : place > at
                case .before: anchor.inclusive ? place <= at : place < at
                }
            }
        }
        if reversed { candidates.reverse() }
        var page = Array(candidates.dropFirst(offset).prefix(limit ?? Int.max))
        let hasMore = offset + page.count < candidates.count
        if reversed { page.reverse() }
        func position(_ book: Book?) -> ListPosition? {
            book.map { ListPosition(values: [.integer(Int64(rank[$0.id] ?? 0))], id: $0.id) }
        }
        return BookSearchPage(
            books: page, totalMatches: matches.count, totalBooks: shelf.count, offset: offset, hasMore: hasMore,
            first: position(page.first), last: position(page.last))
    }

    /// The shelf in `order`: the shelf's own order for the standard one, else by the
    /// field with the shelf's order breaking ties (a stable sort), reversed when descending.
    private static func ordered(_ shelf: [Book], by order: ListOrder<BookSortField>) -> [Book] {
        guard order != .standard else { return shelf }
        let key: (Book) -> String = switch order.field {
        case .title: { $0.title }
        case .author: { $0.author }
        case .finished: { $0.isFinished ? "1" : "0" }
        case .id: { $0.id }
        }
        let sorted = shelf.enumerated().sorted { lhs, rhs in
            key(lhs.element) != key(rhs.element) ? key(lhs.element) < key(rhs.element) : lhs.offset < rhs.offset
        }.map(\.element)
        return order.descending ? sorted.reversed() : sorted
    }

    private static func describe(
        _ text: String, unfinishedOnly: Bool, order: ListOrder<BookSortField>, offset: Int, anchor: ListAnchor?, reversed: Bool
    ) -> String {
        let sorted = order == .standard ? "" : " sorted by \(order.descending ? "-" : "")\(order.field.rawValue)"
        var line = (unfinishedOnly ? "\(text) unfinished" : text) + sorted
        if let anchor {
            let side = switch (anchor.side, anchor.inclusive) {
            case (.after, false): "after"
            case (.after, true): "from"
            case (.before, false): "before"
            case (.before, true): "through"
            }
            line += " \(side) \(anchor.position.id)"
        }
        if reversed { line += " reversed" }
        if anchor != nil || reversed { line += " skip \(offset)" }
        return line
    }
}
