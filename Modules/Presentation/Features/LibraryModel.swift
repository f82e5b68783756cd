import Domain
import Observation

// MARK: - LibraryModel

/// The reader's shelf: the books, the search over them, and whether finished books show.
///
/// `showFinished` belongs to the reader's settings (`ReadingSettingsViewModel` writes it);
/// the library reads it from the `PreferencesStore` when it is created and follows
/// `settingsDidChange(_:)` afterwards, so the setting has one owner.
@MainActor
@Observable
public final class LibraryModel {
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

    // MARK: Intents

    /// Adds a book; the title and author are trimmed and must not be empty.
    /// - Returns: the new book, or nil when it was refused (see `errorMessage`).
    @discardableResult
    public func addBook(title rawTitle: String, author rawAuthor: String) async -> Book? {
        let action = "add the book"
        let title: String, author: String
        do {
            title = try TitleRule.validate(rawTitle)
            author = try TitleRule.validate(rawAuthor, field: "author")
        } catch {
            content.refuse(action, error)
            return nil
        }
        let service = self.service
        guard let book = await content.attempt(action, { try await service.addBook(title: title, author: author) })
        else { return nil }
        content.update { $0 + [book] }
        return book
    }

    /// Renames a loaded book; the title is trimmed and must not be empty.
    @discardableResult
    public func renameBook(id: Book.ID, to title: String) async -> Bool {
        await update(id: id, action: "rename the book") { book throws(DomainError) in
            try book.rename(to: title)
        }
    }

    /// Marks a loaded book as finished.
    @discardableResult
    public func finishBook(id: Book.ID) async -> Bool {
        await update(id: id, action: "mark the book finished") { $0.isFinished = true }
    }

    /// Marks a loaded book as not finished.
    @discardableResult
    public func unfinishBook(id: Book.ID) async -> Bool {
        await update(id: id, action: "mark the book unfinished") { $0.isFinished = false }
    }

    /// Deletes a loaded book.
    @discardableResult
    public func deleteBook(id: Book.ID) async -> Bool {
        let action = "delete the book"
        guard book(id: id) != nil else {
            content.refuse(action, FeatureError.notFound(kind: "book", id: id))
            return false
        }
        let service = self.service
        guard await content.attempt(action, { try await service.deleteBook(id: id) }) else { return false }
        content.update { $0.filter { $0.id != id } }
        return true
    }

    // MARK: Plumbing

    /// Changes a loaded book under a Domain rule, saves it, then shows the change.
    private func update(
        id: Book.ID, action: String, _ change: (inout Book) throws(DomainError) -> Void
    ) async -> Bool {
        guard var book = book(id: id) else {
            content.refuse(action, FeatureError.notFound(kind: "book", id: id))
            return false
        }
        do {
            try change(&book)
        } catch {
            content.refuse(action, error)
            return false
        }
        let changed = book
        let service = self.service
        guard await content.attempt(action, { try await service.updateBook(changed) }) else { return false }
        content.update { books in books.map { $0.id == changed.id ? changed : $0 } }
        return true
    }
}
