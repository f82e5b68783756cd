import Domain
import Records

// MARK: - Sort keys of Domain values

extension RecordIndexing {
    /// The key a book is listed by: the same rule as a stored book's (title, author).
    public static func sortKey(of book: Book) -> String {
        folded([book.title, book.author])
    }

    public static func sortKey(of note: Note) -> String {
        noteKey(searchText: folded([note.title, note.body]))
    }

    public static func sortKey(of task: ReadingTask) -> String {
        folded([task.title])
    }

    public static func sortKey(of product: Product) -> String {
        folded([product.name])
    }

    public static func sortKey(of item: CartItem) -> String {
        item.productID
    }

    public static func sortKey(of session: ReadingSession) -> String {
        session.day.description
    }
}
