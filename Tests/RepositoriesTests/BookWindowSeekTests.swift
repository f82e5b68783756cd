import Domain
import Foundation
import Records
import Repositories
import Storage
import Testing
import TestSupport

/// The `BookSearching` port's seek: a page read after, from, before or through a book an
/// earlier page gave, or backward from the end, holds the books a page at the matching
/// offset holds, in the order's direction, with positions to seek from again.
@Suite("Repositories: windows of the library read by seeking")
struct BookWindowSeekTests {
    /// Eight books with tied titles and authors, some finished.
    private func library() async throws -> BookRepository {
        let harness = try Harness(policy: FreshnessPolicy(maxAge: .seconds(3600)))
        let books: [(String, String, String, Bool)] = [
            ("b1", "Dune", "Frank Herbert", true), ("b2", "Dune", "Frank Herbert", false),
            ("b3", "Beloved", "Toni Morrison", false), ("b4", "Emma", "Jane Austen", true),
            ("b5", "Persuasion", "Jane Austen", false), ("b6", "Zazie", "Raymond Queneau", false),
            ("b7", "Ulysses", "James Joyce", true), ("b8", "Éa", "Ursula K. Le Guin", false),
        ]
        let records = try books.enumerated().map { offset, book in
            try Wire.book(book.0, title: book.1, author: book.2, finished: book.3, lastModified: Int64(1000 + offset))
        }
        try harness.store.pull(records, into: .books)
        let repository = harness.books()
        _ = try await repository.load()
        return repository
    }

    static let orders: [ListOrder<BookSortField>] = [BookSortField.title, .author, .finished].flatMap { field in
        [ListOrder(field), ListOrder(field, descending: true)]
    }

    @Test(arguments: orders)
    func aSeekFromEitherEdgeOfAPageReadsTheNeighbouringPage(_ order: ListOrder<BookSortField>) async throws {
        let search: any BookSearching = try await library()
        for unfinishedOnly in [false, true] {
            func page(_ offset: Int, _ limit: Int) async throws -> BookSearchPage {
                try await search.searchBooks(
                    matching: "", unfinishedOnly: unfinishedOnly, limit: limit, offset: offset, order: order, counting: false)
            }
            func seek(_ anchor: ListAnchor?, reversed: Bool, skip: Int = 0, limit: Int = 2) async throws -> [Book.ID] {
                try await search.searchBooks(
                    matching: "", unfinishedOnly: unfinishedOnly, limit: limit, offset: skip, order: order, counting: false,
                    anchor: anchor, reversed: reversed
                ).books.map(\.id)
            }
            let all = try await page(0, 100).books.map(\.id)
            for start in 0..<all.count {
                let shown = try await page(start, 2)
                let first = try #require(shown.first), last = try #require(shown.last)
                #expect(first.id == shown.books.first?.id && last.id == shown.books.last?.id)
                let label = "\(order) unfinished: \(unfinishedOnly) at \(start)"
                #expect(try await seek(ListAnchor(.after, last), reversed: false) == Array(all.dropFirst(start + shown.books.count).prefix(2)), "after: \(label)")
                #expect(try await seek(ListAnchor(.after, first, inclusive: true), reversed: false, skip: 1) == Array(all.dropFirst(start + 1).prefix(2)), "from: \(label)")
                #expect(try await seek(ListAnchor(.before, first), reversed: true) == Array(all.prefix(start).suffix(2)), "before: \(label)")
                #expect(try await seek(ListAnchor(.before, last, inclusive: true), reversed: true, skip: 1)
                        == Array(all.prefix(start + shown.books.count - 1).suffix(2)), "through: \(label)")
                #expect(try await seek(nil, reversed: true, skip: start) == Array(all.dropLast(start).suffix(2)), "from the end: \(label)")
            }
        }
    }

    @Test func aBackwardReadSaysWhetherMoreComeBeforeIt() async throws {
        let search: any BookSearching = try await library()
        let atTheTop = try await search.searchBooks(
            matching: "", unfinishedOnly: false, limit: 8, offset: 0, order: .standard, counting: false, anchor: nil, reversed: true)
        let belowIt = try await search.searchBooks(
            matching: "", unfinishedOnly: false, limit: 2, offset: 0, order: .standard, counting: false, anchor: nil, reversed: true)

        #expect(atTheTop.books.count == 8 && !atTheTop.hasMore)
        #expect(belowIt.books.count == 2 && belowIt.hasMore)
        #expect(belowIt.totalMatches == nil, "a read from the end does not count")
    }
}
