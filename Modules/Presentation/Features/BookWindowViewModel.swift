import Domain
import Observation

// MARK: - BookWindowViewModel

/// The part of a book search a screen can show: one window of matches at an offset,
/// read through the `BookSearching` port, so scrolling a library of 100,000 books reads a
/// screenful at a time and memory stays flat. `BookSearchViewModel` is the whole search
/// the CLI prints; this is the same search, one window at a time, for `shelf ui`.
///
/// A window never counts: it reads its rows (and one more, to know whether more match), so
/// a key typed into a search costs its window alone. The counts (matches, books) are read
/// by `count()`, which a screen runs after the window is shown; they are forgotten when
/// the search itself changes (text, filter, order) and kept while only the window moves.
/// A newer window or count wins over an older one; a failed read keeps what is shown.
///
/// A window is read where it is cheapest to reach (`WindowRead`): next to the window
/// shown, by seeking from its first or last book's position, or backward from the end
/// when the count is known and the window is in the back half; only a jump with neither
/// counts from the top. So a key costs the same at the 90,000th book as at the first.
/// After the store changed under it, a seek keeps the books in view where they were and
/// labels them with the offset asked for, which may then be off by the books added or
/// removed above until a read from the top or the end (as `g` and `G` make).
@MainActor
@Observable
public final class BookWindowViewModel {
    // MARK: State

    public var state: LoadingState<BookSearchPage> { content.state }
    public var errorMessage: String? { content.errorMessage }
    /// The books of the window shown.
    public var books: [Book] { state.value?.books ?? [] }
    /// The offset of the window shown, among the matches.
    public var offset: Int { state.value?.offset ?? 0 }
    /// How many books match, as of the last counted read; nil before it.
    public private(set) var totalMatches: Int?
    /// How many books the library holds, as of the last counted read.
    public private(set) var totalBooks: Int?
    public private(set) var query = ""
    public private(set) var unfinishedOnly = false
    public private(set) var order: ListOrder<BookSortField> = .standard

    // MARK: Dependencies

    private let service: any BookSearching
    private let content = ContentController<BookSearchPage>()
    /// The latest count asked for, or search changed: an older count publishes nothing.
    @ObservationIgnored private var countTicket = 0
    /// The last window read and the search it was read for: an anchor for the next
    /// window while it is the one shown and the search is the same.
    @ObservationIgnored private var lastRead: (search: Search, page: BookSearchPage)?
    /// The newest window asked for: only its read may publish, so only it is kept as
    /// `lastRead` (an older read that ends later never becomes the anchor).
    @ObservationIgnored private var windowTicket = 0

    /// What a window is read for; a window anchors only windows of the same search.
    private struct Search: Equatable {
        var text: String
        var unfinishedOnly: Bool
        var order: ListOrder<BookSortField>
    }

    public init(service: any BookSearching) {
        self.service = service
    }

    // MARK: Intents

    /// Reads the window of `rows` matches from `offset`, without counting. A change of
    /// text, filter or order forgets the counts until the next `count()`.
    public func show(_ text: String, unfinishedOnly: Bool, order: ListOrder<BookSortField>, offset: Int, rows: Int) async {
        if text != query || unfinishedOnly != self.unfinishedOnly || order != self.order {
            totalMatches = nil
            totalBooks = nil
            countTicket &+= 1
        }
        query = text
        self.unfinishedOnly = unfinishedOnly
        self.order = order
        let search = Search(text: text, unfinishedOnly: unfinishedOnly, order: order)
        let start = max(0, offset)
        let shown = shownWindow(for: search)
        let plan = WindowRead.plan(offset: start, rows: max(1, rows), shown: shown, total: totalMatches)
        let service = self.service
        windowTicket &+= 1
        let ticket = windowTicket
        await content.load(.newestWins, action: "search the books") { [weak self] in
            let page = try await Self.read(plan, at: start, of: search, shown: shown, from: service)
            _ = try page.books.requireUniqueIDs()
            if let self, ticket == windowTicket { lastRead = (search, page) }
            return page
        }
    }

    /// The window on screen as an anchor for `search`: nil when none is shown, when it
    /// was read for another search, or when the last read never got on screen.
    private func shownWindow(for search: Search) -> ShownWindow? {
        guard let lastRead, lastRead.search == search, let page = state.value, page == lastRead.page,
              let first = page.first, let last = page.last
        else { return nil }
        return ShownWindow(offset: page.offset, count: page.books.count, first: first, last: last, hasMore: page.hasMore)
    }

    /// Reads the window as planned, as the page at `offset`. A backward read that finds
    /// fewer books than it asked for met the top of a list that changed since the
    /// window it started from; the window is then read again from the top.
    private nonisolated static func read(
        _ plan: WindowRead, at offset: Int, of search: Search, shown: ShownWindow?, from service: any BookSearching
    ) async throws -> BookSearchPage {
        func fetch(_ plan: WindowRead) async throws -> BookSearchPage {
            try await service.searchBooks(
                matching: search.text, unfinishedOnly: search.unfinishedOnly, limit: plan.limit, offset: plan.skip,
                order: search.order, counting: false, anchor: plan.anchor, reversed: plan.reversed)
        }
        var plan = plan
        var page = try await fetch(plan)
        if plan.reversed && page.books.count < plan.limit && offset > 0 {
            plan = WindowRead(anchor: nil, reversed: false, skip: offset, limit: plan.limit)
            page = try await fetch(plan)
        }
        return BookSearchPage(
            books: page.books, totalMatches: nil, totalBooks: nil, offset: offset, hasMore: plan.hasMore(after: page, shown: shown),
            first: page.first, last: page.last)
    }

    /// Counts the matches of the current search and the library. A count that finishes
    /// after the search changed, or after a newer count, publishes nothing; a failed count
    /// keeps the counts unknown (the window is still shown).
    public func count() async {
        countTicket &+= 1
        let ticket = countTicket
        let service = self.service
        let (text, unfinishedOnly, order) = (query, self.unfinishedOnly, self.order)
        guard let page = try? await service.searchBooks(
            matching: text, unfinishedOnly: unfinishedOnly, limit: 1, offset: 0, order: order, counting: true),
            ticket == countTicket, !Task.isCancelled
        else { return }
        totalMatches = page.totalMatches
        totalBooks = page.totalBooks
    }

    /// Cancels the read in flight; nothing it would have found is published.
    public func cancel() {
        content.cancel()
    }
}
