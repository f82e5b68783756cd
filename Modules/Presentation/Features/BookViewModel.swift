import Domain
import Observation

// MARK: - BookViewModel

/// One book, as a detail screen shows and changes it: add, edit, finish, remove. Every
/// front's book writes go through these intents (`shelf book add|edit|finish|rm` today,
/// the terminal interface's detail screen later), so the rules and the failure state
/// are written once.
///
/// The book an intent changes is the one shown (`show(_:)`, after the front found it by
/// id, prefix or title), or the one `add` made.
@MainActor
@Observable
public final class BookViewModel {
    // MARK: State

    /// The book as last shown or written.
    public var state: LoadingState<Book> { content.state }
    public var book: Book? { state.value }
    /// The last failure of an intent; cleared by the next success.
    public var errorMessage: String? { content.errorMessage }
    /// The error behind `errorMessage`, for a front that tells failures apart by kind.
    public var failure: (any Error)? { content.failure }

    // MARK: Dependencies

    private let service: any BookService
    private let removal: any BookRemoving
    private let content = ContentController<Book>()

    public init(service: any BookService, removal: any BookRemoving) {
        self.service = service
        self.removal = removal
    }

    /// Shows `book`, as the front read it.
    public func show(_ book: Book) {
        content.show(book)
    }

    /// Cancels the intent in flight; nothing it would have changed is published.
    public func cancel() {
        content.cancel()
    }

    // MARK: Intents

    /// Adds a book; the title is trimmed and must not be empty, the author is trimmed and
    /// may be (Domain's rules).
    /// - Returns: the new book, or nil when it was refused (see `failure`).
    public func add(title: String, author: String) async -> Book? {
        let service = self.service
        return await content.write("add the book") { try await service.addBook(title: title, author: author) }
    }

    /// Changes the shown book's title, author or both.
    /// - Returns: the book as saved, or nil when a rule refused it or the write failed.
    public func edit(title: String?, author: String?) async -> Book? {
        let service = self.service
        return await content.change("edit the book", "book", { book in
            if let title { try book.rename(to: title) }
            if let author { book.setAuthor(author) }
        }, save: { try await service.updateBook($0) })
    }

    /// Marks the shown book finished, or not finished.
    public func setFinished(_ finished: Bool) async -> Book? {
        let service = self.service
        return await content.change(finished ? "mark the book finished" : "mark the book unfinished", "book", {
            $0.isFinished = finished
        }, save: { try await service.updateBook($0) })
    }

    /// Removes a book and, as `mode` says, what refers to it.
    /// - Returns: what was removed, or nil when references held it back or the write failed.
    public func remove(id: Book.ID, mode: BookRemovalMode) async -> BookRemovalResult? {
        let removal = self.removal
        return await content.attempt("remove the book", { try await removal.removeBook(id: id, mode: mode) })
    }
}
