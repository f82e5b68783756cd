import Domain
import Observation

// MARK: - NotesViewModel

/// The reader's notes, loaded with a generation ticket.
///
/// Every `load()` takes a new ticket, and only the load holding the newest ticket may
/// publish: when an older load finishes after a newer one, its result is dropped, so
/// the screen never goes back in time. A cancelled load publishes nothing. A response
/// with duplicate ids is refused before it reaches the list, and a failed load keeps
/// the notes already shown; both set `errorMessage`.
@MainActor
@Observable
public final class NotesViewModel {
    // MARK: State

    public var state: LoadingState<[Note]> { content.state }
    /// The last failure of a load or an intent; cleared by the next success.
    public var errorMessage: String? { content.errorMessage }
    /// The filter, matched case- and diacritic-insensitively against title and body.
    public private(set) var query = ""

    /// All loaded notes, in the service's order.
    public var notes: [Note] { state.value ?? [] }

    /// Only notes about this book, when set.
    public private(set) var bookID: Book.ID?

    /// The notes matching `query` (and about `bookID`, when set).
    public var visibleNotes: [Note] {
        notes.filter { note in
            (bookID == nil || note.bookID == bookID) && SearchFolding.matches(query, in: note.title, note.body)
        }
    }

    public var isLoading: Bool { state.isLoading }

    /// Set by `load(order:limit:)`: the store filtered the notes (the search and book are
    /// already applied), and cut them at this limit when there is one.
    public private(set) var filteredByStore = false
    /// The last store-filtered load's limit; nil when it asked for every match.
    public private(set) var limit: Int?
    /// More notes match than the last store-filtered load holds (`limit` cut it).
    public private(set) var hasMore = false
    /// How many notes there are in all: every loaded note after `load()`, the store's
    /// count after an unlimited `load(order:limit:)`, nil after a limited one (which
    /// counts nothing, so its time does not grow with the notes).
    public var totalCount: Int? { filteredByStore ? storeTotal : notes.count }
    private var storeTotal: Int?
    /// Only the newest store-filtered load may set the facts above.
    private var sliceTicket = 0

    public func note(id: Note.ID) -> Note? {
        notes.first { $0.id == id }
    }

    // MARK: Dependencies

    private let service: any NoteService
    private let content = ContentController<[Note]>()

    public init(service: any NoteService) {
        self.service = service
    }

    // MARK: Loading

    /// Loads the notes. A newer `load()` wins over an older one, whatever order they
    /// finish in; a cancelled load publishes nothing.
    public func load() async {
        let service = self.service
        await content.load(.newestWins, action: "load notes") {
            try await service.loadNotes().requireUniqueIDs()
        }
        filteredByStore = false
        hasMore = false
    }

    /// Loads the notes matching the search and book filter, the first `limit` (all when
    /// nil) in `order`: the service filters, sorts and cuts them in its store's query.
    /// A newer load wins over an older one, as with `load()`.
    public func load(order: ListOrder<NoteSortField>, limit: Int?) async {
        sliceTicket &+= 1
        let (ticket, service, query, bookID) = (sliceTicket, self.service, self.query, self.bookID)
        await content.load(.newestWins, action: "load notes") { [weak self] in
            let slice = try await service.notes(matching: query, about: bookID, order: order, limit: limit)
            let notes = try slice.items.requireUniqueIDs()
            if let self, ticket == self.sliceTicket {
                (self.filteredByStore, self.limit, self.hasMore, self.storeTotal) = (true, limit, slice.hasMore, slice.total)
            }
            return notes
        }
    }

    /// Cancels in-flight work; nothing it would have loaded or changed is published.
    public func cancel() {
        content.cancel()
    }

    // MARK: Filtering

    public func search(_ query: String) {
        self.query = query
    }

    /// Shows only the notes about `book`; nil shows the notes about any book or none.
    public func filter(book: Book.ID?) {
        bookID = book
    }
}
