import Domain
import Foundation
import Storage

// MARK: - BookReferences

/// What refers to one book: notes about it, reading sessions with it, its favorite.
public struct BookReferences: Hashable, Sendable, Codable {
    public var notes: Int
    public var sessions: Int
    public var isFavorite: Bool

    public var isEmpty: Bool { notes == 0 && sessions == 0 && !isFavorite }

    public init(notes: Int = 0, sessions: Int = 0, isFavorite: Bool = false) {
        self.notes = notes
        self.sessions = sessions
        self.isFavorite = isFavorite
    }
}

extension BookReferences: CustomStringConvertible {
    /// "3 notes, 1 reading session and a favorite".
    public var description: String {
        var parts: [String] = []
        if notes > 0 { parts.append("\(notes) note\(notes == 1 ? "" : "s")") }
        if sessions > 0 { parts.append("\(sessions) reading session\(sessions == 1 ? "" : "s")") }
        if isFavorite { parts.append("a favorite") }
        guard parts.count > 1 else { return parts.first ?? "nothing" }
        return parts.dropLast().joined(separator: ", ") + " and " + parts[parts.count - 1]
    }
}

// MARK: - BookRemovalMode

/// What happens to a book's notes, sessions and favorite when the book goes.
public enum BookRemovalMode: String, Sendable, Hashable, Codable {
    /// Remove the book only when nothing refers to it; otherwise refuse and say what does.
    case refuseIfReferenced
    /// Remove the notes and sessions too, in the same change set.
    case cascade
    /// Keep the notes and sessions, detached from the book (`book_id` null); the minutes
    /// still count in the reading log.
    case keepNotes
}

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

// MARK: - BookRemovalResult

/// What one removal did, for the confirmation and `--json`.
public struct BookRemovalResult: Hashable, Sendable, Codable {
    public var bookID: Book.ID
    public var mode: BookRemovalMode
    public var notesRemoved: Int = 0
    public var notesDetached: Int = 0
    public var sessionsRemoved: Int = 0
    public var sessionsDetached: Int = 0
    public var favoriteRemoved: Bool = false

    public init(bookID: Book.ID, mode: BookRemovalMode) {
        self.bookID = bookID
        self.mode = mode
    }
}

// MARK: - BookRemoval

/// Removes a book together with what refers to it, in one transaction of the account's
/// store: the book's deletion, its notes' and sessions' deletions or detachments and its
/// favorite's removal are queued as one change set, or nothing is.
public enum BookRemoval {
    /// What refers to `bookID` in the store now.
    public static func references(to bookID: Book.ID, in reader: StoreReader) throws -> BookReferences {
        BookReferences(
            notes: try reader.recordIDs(.notes, field: "book_id", equals: bookID).count,
            sessions: try reader.recordIDs(.sessions, field: "book_id", equals: bookID).count,
            isFavorite: try SyncedPreferencesStore.isFavorite(bookID, in: reader))
    }

    /// - Throws: `RepositoryError.notFound` when there is no such book;
    ///   `BookRemovalError` under `.refuseIfReferenced` when something refers to it
    ///   (nothing is written then); `StorageError`.
    public static func remove(_ bookID: Book.ID, mode: BookRemovalMode, from store: ShelfStore) throws -> BookRemovalResult {
        let id = try RecordID.validate(bookID)
        return try store.write { transaction in
            guard try transaction.record(.books, id: id) != nil else { throw RepositoryError.notFound(.books, id: id) }
            var result = BookRemovalResult(bookID: id, mode: mode)
            let notes = try transaction.recordIDs(.notes, field: "book_id", equals: id)
            let sessions = try transaction.recordIDs(.sessions, field: "book_id", equals: id)
            if mode == .refuseIfReferenced {
                let references = BookReferences(
                    notes: notes.count, sessions: sessions.count,
                    isFavorite: try SyncedPreferencesStore.isFavorite(id, in: transaction))
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
        guard var fields = try JSONDecoder().decode(JSONValue.self, from: record.json).objectValue else {
            throw RepositoryError.unreadableRecord(
                UnreadableRecord(collection: collection, id: id, reason: "its stored JSON is not an object"))
        }
        fields.removeValue(forKey: "last_modified")
        fields["book_id"] = .null
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        try transaction.saveLocal(collection, id: id, json: try encoder.encode(JSONValue.object(fields)))
    }
}
