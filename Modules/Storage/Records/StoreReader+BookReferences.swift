import Domain
import Records

// MARK: - What refers to a book

/// What in the store names a book: its notes and reading sessions (`book_id`) and its
/// favorite in the synced `preferences` record. The repositories ask before removing a
/// book, the sync engine's history before taking a book's creation back.
extension StoreReader {
    /// What refers to `bookID` in the store now.
    public func references(toBook bookID: Book.ID) throws -> BookReferences {
        BookReferences(
            notes: try recordIDs(.notes, field: WireNames.noteBook, equals: bookID).count,
            sessions: try recordIDs(.sessions, field: WireNames.sessionBook, equals: bookID).count,
            isFavorite: try isFavoriteBook(bookID))
    }

    /// Whether `bookID` is a favorite, read leniently from the stored `preferences`
    /// record: a record that is not a JSON object holds no favorite.
    public func isFavoriteBook(_ bookID: Book.ID) throws -> Bool {
        guard let record = try record(.preferences, id: ReaderPreferences.recordID),
              let fields = try? WireJSON.fields(record.json)
        else { return false }
        return fields[PreferenceFields.favorite(bookID)] == .bool(true)
    }
}
