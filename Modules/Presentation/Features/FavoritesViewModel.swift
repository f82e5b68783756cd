import Domain
import Observation

// MARK: - FavoritesViewModel

/// The books the reader marked as favorites, kept in the `PreferencesStore` so they
/// are there again on the next launch.
///
/// A change is saved before it is shown: when saving fails, the favorites stay as
/// they were and `errorMessage` says why, so the screen never shows a favorite that
/// would be gone after a restart.
@MainActor
@Observable
public final class FavoritesViewModel {
    // MARK: State

    /// The ids of the favorite books.
    public private(set) var favoriteIDs: Set<Book.ID>
    /// The last failure to read or save the favorites; cleared by the next success.
    public private(set) var errorMessage: String?
    /// The error behind `errorMessage`, for a front that tells failures apart by kind.
    public private(set) var failure: (any Error)?

    /// The favorite ids in a stable order, for listing.
    public var sortedIDs: [Book.ID] { favoriteIDs.sorted() }

    public func isFavorite(_ id: Book.ID) -> Bool {
        favoriteIDs.contains(id)
    }

    /// The favorites among `books`, in the order of `books`.
    public func favorites(in books: [Book]) -> [Book] {
        books.filter { favoriteIDs.contains($0.id) }
    }

    // MARK: Dependencies

    private let preferences: any PreferencesStore

    public init(preferences: any PreferencesStore) {
        self.preferences = preferences
        do {
            favoriteIDs = try preferences.favorites()
        } catch {
            favoriteIDs = []
            errorMessage = FailureMessage.make("read the favorites", error)
        }
    }

    // MARK: Intents

    /// Reads the favorites again: another process (`shelf favorite` in another terminal, a
    /// sync that pulled the reader's settings) may have changed them. A failed read keeps
    /// what is shown and says why.
    public func reload() {
        do {
            let stored = try preferences.favorites()
            if stored != favoriteIDs { favoriteIDs = stored }
            errorMessage = nil
        } catch {
            errorMessage = FailureMessage.make("read the favorites", error)
        }
    }

    /// Adds the book to the favorites, or removes it when it is one.
    /// - Returns: whether the book is a favorite afterwards; unchanged on failure.
    @discardableResult
    public func toggle(_ id: Book.ID) -> Bool {
        set(id, favorite: !isFavorite(id))
        return isFavorite(id)
    }

    /// Makes the book a favorite or not; saving first, then showing.
    /// - Returns: whether the change was saved (true also when nothing had to change).
    @discardableResult
    public func set(_ id: Book.ID, favorite: Bool) -> Bool {
        let action = favorite ? "add the favorite" : "remove the favorite"
        let validID: Book.ID
        do {
            validID = try RecordID.validate(id)
        } catch {
            errorMessage = FailureMessage.make(action, error)
            failure = error
            return false
        }
        var updated = favoriteIDs
        if favorite { updated.insert(validID) } else { updated.remove(validID) }
        do {
            try preferences.setFavorites(updated)
        } catch {
            errorMessage = FailureMessage.make(action, error)
            failure = error
            return false
        }
        favoriteIDs = updated
        errorMessage = nil
        failure = nil
        return true
    }
}
