// The values of a book's removal: what refers to it, what to do with that, and what was
// done. The removal itself is one transaction in Repositories (`BookRemoval`).

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

