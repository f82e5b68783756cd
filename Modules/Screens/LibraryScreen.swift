import Domain
import Foundation
import Presentation

// MARK: - LibraryScreen

/// The library as `shelf books` shows it: the visible books, how many there are in
/// all, and the search and filter that hid the others.
public struct LibraryScreen: RenderableScreen, Hashable {
    public let state: ScreenStatus
    /// The books the search and `showFinished` let through.
    public let books: [BookView]
    /// How many books the library holds; nil when a `--limit` search did not count them.
    public let totalCount: Int?
    public let query: String
    public let showFinished: Bool
    public let error: String?
    private let hasValue: Bool
    /// The id prefixes the table shows (JSON keeps full ids).
    private let shortIDs: ShortIDs
    /// How many books match in all, when `--limit` may have cut the list short.
    private let matchCount: Int?
    /// More books match than the list shows (`--limit` cut it).
    private let hasMore: Bool

    /// The library as a search through the store's indexes found it: the page of
    /// matches, counted against the whole library.
    @MainActor
    public init(_ model: BookSearchViewModel, shortIDs: ShortIDs = .full) {
        self.shortIDs = shortIDs
        state = ScreenStatus(model.state)
        books = model.books.map(BookView.init)
        totalCount = model.state.value.map(\.totalBooks) ?? 0
        query = model.query
        showFinished = !model.unfinishedOnly
        error = model.errorMessage ?? model.state.failureMessage
        hasValue = model.state.hasValue
        matchCount = model.limit == nil ? nil : model.state.value?.totalMatches
        hasMore = model.state.value?.hasMore ?? false
    }

    // MARK: Text

    public func renderText(_ options: RenderOptions) -> String {
        var text = ScreenText(options)
        text.list(
            status: state, hasValue: hasValue, noun: "books",
            table: books.isEmpty ? nil : table, empty: emptyLine, summary: summary, error: error
        )
        return text.text
    }

    private var table: TextTable {
        var table = TextTable([.init("ID"), .init("TITLE"), .init("AUTHOR"), .init("FINISHED")])
        for book in books {
            table.append([.init(shortIDs.shown(book.id, in: .books)), .init(book.title), .init(book.author),
                          .init(Wording.yesNo(book.isFinished), book.isFinished ? .positive : nil)])
        }
        return table
    }

    private var filters: [String] {
        var filters: [String] = []
        if !query.trimmingCharacters(in: .whitespaces).isEmpty { filters.append("matching \"\(query)\"") }
        if !showFinished { filters.append("finished books hidden") }
        return filters
    }

    private var summary: String {
        guard let totalCount else {
            // A limited search that did not count: what it shows, and that more match.
            let more = hasMore ? ["more match than --limit \(books.count) shows"] : []
            let notes = filters + more
            return Wording.count(books.count, "book") + " shown" + (notes.isEmpty ? "" : " (\(notes.joined(separator: "; ")))")
        }
        guard books.count != totalCount else { return Wording.count(totalCount, "book") }
        var filters = filters
        if let matchCount, matchCount > books.count {
            filters.append(filters.isEmpty ? "--limit \(books.count)" : "the first \(books.count) of \(matchCount) matches")
        }
        return "\(books.count) of \(Wording.count(totalCount, "book")) shown (\(filters.joined(separator: "; ")))"
    }

    private var emptyLine: String {
        let unfiltered = query.trimmingCharacters(in: .whitespaces).isEmpty && showFinished
        if totalCount == 0 || (totalCount == nil && unfiltered) { return "No books on the shelf yet." }
        if !query.trimmingCharacters(in: .whitespaces).isEmpty {
            return "No books match \"\(query)\"" + (showFinished ? "." : " (finished books hidden).")
        }
        return "No unfinished books; finished books are hidden."
    }

    // MARK: JSON

    private enum CodingKeys: String, CodingKey { case state, books, totalCount, query, showFinished, error }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(state, forKey: .state)
        try container.encode(books, forKey: .books)
        try container.encode(totalCount, forKey: .totalCount)
        try container.encode(query, forKey: .query)
        try container.encode(showFinished, forKey: .showFinished)
        try container.encode(error, forKey: .error)
    }
}
