import Domain
import Storage

// MARK: - BookSearching

/// The library search of the CLI and of any list too long to load whole: the store's
/// indexes find the page, and only that page is decoded.
extension CollectionRepository: BookSearching where Mapping == BookMapping {
    /// One page of matches with the library's size, under the reader-data freshness
    /// policy (one refresh at most, shared with every other read of the books).
    /// - Throws: the refresh's error only when nothing is cached at all (as the
    ///   `BookService` reads do); `StorageError` when the store cannot be read.
    public func searchBooks(
        matching text: String, unfinishedOnly: Bool, limit: Int?, offset: Int, order: ListOrder<BookSortField>, counting: Bool,
        anchor: ListAnchor?, reversed: Bool
    ) async throws -> BookSearchPage {
        let search = text.allSatisfy(\.isWhitespace) ? nil : text
        let page = try await books(
            matching: search, unfinishedOnly: unfinishedOnly, limit: limit, offset: offset, order: order,
            countsMatches: counting, anchor: anchor, reversed: reversed
        ).valueOrRefreshError()
        // NB: an unfiltered listing already counted the whole library; a search that does
        // not count leaves it uncounted (a scan of the whole index).
        let totalBooks: Int? = if search == nil && !unfinishedOnly { page.totalMatches }
            else if counting || limit == nil { try await libraryCount() }
            else { nil }
        return BookSearchPage(
            books: page.items, totalMatches: page.totalMatches, totalBooks: totalBooks, offset: page.offset, hasMore: page.hasMore,
            first: page.first, last: page.last)
    }
}
