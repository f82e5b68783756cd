import Domain
import Storage

// MARK: - RecordTitles

/// What a record is called in a list of candidates or next to its id.
enum RecordTitles {
    /// - Parameter withAuthor: a book's author after its title, to tell two books of
    ///   one title apart.
    static func title(of record: StoredRecord, withAuthor: Bool = false) -> String {
        do {
            switch record.collection {
            case .books:
                let book = try BookMapping.decode(record)
                return withAuthor ? "\(book.title) — \(book.author)" : book.title
            case .notes: return try NoteMapping.decode(record).title
            case .tasks: return try ReadingTaskMapping.decode(record).title
            case .products: return try ProductMapping.decode(record).name
            case .cart:
                let item = try CartItemMapping.decode(record)
                return "\(item.quantity) × \(item.productID)"
            case .sessions:
                let session = try ReadingSessionMapping.decode(record)
                return "\(session.minutes) min on \(session.day)"
            case .preferences: return record.id
            }
        } catch {
            return "(unreadable: \(error))"
        }
    }
}
