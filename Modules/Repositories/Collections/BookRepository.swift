import Domain
import Storage

// MARK: - BookRepository

/// The reader's books (see `CollectionRepository`).
public typealias BookRepository = CollectionRepository<BookMapping>

extension CollectionRepository where Mapping == BookMapping {
    // MARK: Reading

    /// One page of the books matching `search` (case- and diacritic-insensitive, in
    /// title and author), found with the store's indexes — for the CLI at 100,000 books.
    /// - Parameters:
    ///   - unfinishedOnly: leave finished books out.
    ///   - limit: at most this many books; nil for all matches.
    ///   - order: sorted by the store, so a limit keeps the first books of that order.
    ///   - countsMatches: count every match past the limit too (see `CachedCollection.page`).
    public func books(
        matching search: String? = nil, unfinishedOnly: Bool = false, limit: Int? = nil, offset: Int = 0,
        order: ListOrder<BookSortField> = .standard, countsMatches: Bool = true, anchor: ListAnchor? = nil,
        reversed: Bool = false, forceRefresh: Bool = false
    ) async throws -> CachedResult<QueryPage<Book>> {
        try await cache.page(
            search: search, complete: unfinishedOnly ? false : nil, limit: limit, offset: offset,
            order: RecordOrder(order), countsMatches: countsMatches, anchor: anchor, reversed: reversed,
            forceRefresh: forceRefresh)
    }

    /// How many books the local store holds, without asking the server.
    public func libraryCount() async throws -> Int {
        try await cache.count()
    }

    /// The book with this id in the local store, without asking the server.
    public func book(id: Book.ID) async throws -> Book? {
        try await value(id: id)
    }
}

// MARK: - BookService

extension CollectionRepository: BookService where Mapping == BookMapping {
    /// The books; a failed refresh is reported only when there is nothing cached.
    public func books(forceRefresh: Bool) async throws -> [Book] {
        try await values(forceRefresh: forceRefresh)
    }

    /// - Throws: `DomainError` for an empty title or author (nothing is written).
    /// The books among `ids`, sorted and cut at `limit` by the store's query (the
    /// library is never loaded whole); a failed refresh is reported only when there is
    /// nothing cached.
    public func books(ids: Set<Book.ID>, order: ListOrder<BookSortField>, limit: Int?) async throws -> ListSlice<Book> {
        try await cache.slice(
            search: nil, ids: ids.sorted(), order: RecordOrder(order), limit: limit, countsCollection: false, forceRefresh: false
        ).valueOrRefreshError()
    }

    public func addBook(title: String, author: String) async throws -> Book {
        let book = try Book(id: newID.next(), title: title, author: author)
        try await cache.save(book, as: .create)
        return book
    }

    /// - Throws: `RepositoryError.notFound` when the store has no such book.
    public func updateBook(_ book: Book) async throws {
        try await cache.save(book, as: .update)
    }

    /// - Throws: `DomainError.invalidIdentifier`, `RepositoryError.notFound`.
    public func deleteBook(id: Book.ID) async throws {
        try await cache.delete(id: RecordID.validate(id), mustExist: true)
    }
}
