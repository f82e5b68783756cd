import Domain
import Observation

// MARK: - LibraryViewModel

/// The reader's shelf: the books, the search over them, and whether finished books show.
///
/// `showFinished` belongs to the reader's settings (`ReadingSettingsViewModel` writes it);
/// the library reads it from the `PreferencesStore` when it is created and follows
/// `settingsDidChange(_:)` afterwards, so the setting has one owner.
///
/// It loads the whole library and filters in memory, as a screen that narrows the list
/// with each key typed needs (the planned terminal interface); `shelf books` asks the
/// store's indexes instead (`BookSearchViewModel`). A book is changed through
/// `BookViewModel`, whatever lists it.
@MainActor
@Observable
public final class LibraryViewModel {
    // MARK: State

    /// The books as last loaded (kept while refreshing and after a failed refresh).
    public var state: LoadingState<[Book]> { content.state }
    /// The last failure of a load or an intent; cleared by the next success.
    public var errorMessage: String? { content.errorMessage }
    /// The search text, matched case- and diacritic-insensitively against title and author.
    public private(set) var searchText = ""
    /// Whether finished books are listed.
    public private(set) var showFinished: Bool

    /// All loaded books, in the service's order.
    public var books: [Book] { state.value ?? [] }

    /// The books to list: those matching the search, without finished ones unless shown.
    public var visibleBooks: [Book] {
        books.filter { book in
            (showFinished || !book.isFinished)
                && SearchFolding.matches(searchText, in: book.title, book.author)
        }
    }

    public var isLoading: Bool { state.isLoading }

    /// The loaded book with this id, if any.
    public func book(id: Book.ID) -> Book? {
        books.first { $0.id == id }
    }

    // MARK: Dependencies

    private let service: any BookService
    private let content = ContentController<[Book]>()

    public init(service: any BookService, preferences: any PreferencesStore) {
        self.service = service
        do {
            showFinished = try preferences.readingSettings().showFinished
        } catch {
            showFinished = ReadingSettings.default.showFinished
            content.refuse("read the reading settings", error)
        }
    }

    // MARK: Loading

    /// Loads the books. While a refresh is in flight, another call joins it instead of
    /// asking the service again. A failed refresh keeps the books it had; a list with
    /// duplicate ids is refused the same way.
    /// - Parameter force: ask the server even when the repository's copy is fresh. A
    ///   forced call that finds a refresh in flight joins it like any other.
    public func refresh(force: Bool = false) async {
        let service = self.service
        await content.load(.joinInFlight, action: "load books") {
            try await service.books(forceRefresh: force).requireUniqueIDs()
        }
    }

    /// Cancels in-flight work; nothing it would have loaded or changed is published.
    public func cancel() {
        content.cancel()
    }

    // MARK: Filtering

    public func search(_ text: String) {
        searchText = text
    }

    /// Follows a change of the reader's settings (made through `ReadingSettingsViewModel`).
    public func settingsDidChange(_ settings: ReadingSettings) {
        showFinished = settings.showFinished
    }
}
