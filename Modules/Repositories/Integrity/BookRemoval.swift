import Domain
import Foundation
import RecordDTOs
import Records
import Storage

// MARK: - BookRemovalError

/// A removal refused because other records refer to the book.
public struct BookRemovalError: Error, Hashable, Sendable, CustomStringConvertible {
    public let bookID: Book.ID
    public let references: BookReferences

    public init(bookID: Book.ID, references: BookReferences) {
        self.bookID = bookID
        self.references = references
    }

    public var description: String {
        "book '\(bookID)' has \(references); nothing was removed"
    }
}

// MARK: - BookRemoval

/// Removes a book together with what refers to it, in one transaction of the account's
/// store: the book's deletion, its notes' and sessions' deletions or detachments and its
/// favorite's removal are queued as one change set, or nothing is.
public enum BookRemoval {
    /// - Throws: `RepositoryError.notFound` when there is no such book;
    ///   `BookRemovalError` under `.refuseIfReferenced` when something refers to it
    ///   (nothing is written then); `StorageError`.
    public static func remove(_ bookID: Book.ID, mode: BookRemovalMode, from store: ShelfStore) throws -> BookRemovalResult {
        let id = try RecordID.validate(bookID)
        return try store.edit { transaction in
            guard try transaction.record(.books, id: id) != nil else { throw RepositoryError.notFound(.books, id: id) }
            var result = BookRemovalResult(bookID: id, mode: mode)
            let notes = try transaction.recordIDs(.notes, field: WireNames.noteBook, equals: id)
            let sessions = try transaction.recordIDs(.sessions, field: WireNames.sessionBook, equals: id)
            if mode == .refuseIfReferenced {
                let references = BookReferences(
                    notes: notes.count, sessions: sessions.count,
                    isFavorite: try transaction.isFavoriteBook(id))
                guard references.isEmpty else { throw BookRemovalError(bookID: id, references: references) }
            }
            for (collection, ids) in [(CollectionName.notes, notes), (.sessions, sessions)] {
                for recordID in ids {
                    if mode == .cascade {
                        try transaction.deleteLocal(collection, id: recordID)
                    } else {
                        try detach(collection, id: recordID, in: transaction)
                    }
                }
            }
            if mode == .cascade {
                result.notesRemoved = notes.count
                result.sessionsRemoved = sessions.count
            } else {
                result.notesDetached = notes.count
                result.sessionsDetached = sessions.count
            }
            result.favoriteRemoved = try SyncedPreferencesStore.removeFavorite(id, in: transaction)
            try transaction.deleteLocal(.books, id: id)
            return result
        }
    }

    /// Sets the record's `book_id` to null, keeping every other field.
    private static func detach(_ collection: CollectionName, id: String, in transaction: StoreTransaction) throws {
        guard let record = try transaction.record(collection, id: id) else { return }
        guard var fields = try? WireJSON.fields(record.json) else {
            throw RepositoryError.unreadableRecord(
                UnreadableRecord(collection: collection, id: id, reason: "its stored JSON is not an object"))
        }
        ServerOwnedFields.removeStamp(from: &fields)
        fields[collection == .notes ? WireNames.noteBook : WireNames.sessionBook] = .null
        try transaction.saveLocal(collection, id: id, json: try WireJSON.data(fields))
    }
}
