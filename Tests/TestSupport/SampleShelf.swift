import Domain
import Foundation

// MARK: - SampleShelf

/// A small, fixed shelf for tests and rendering fixtures: a few books (accents and a
/// finished one included), notes, tasks, a catalog and a cart — the same values on
/// every run, so expected outputs can be written down as files.
public enum SampleShelf {
    public static func books() throws -> [Book] {
        [
            try Book(id: "book-001", title: "Dune", author: "Frank Herbert", isFinished: true),
            try Book(id: "book-003", title: "A Wizard of Earthsea", author: "Ursula K. Le Guin"),
            try Book(id: "book-004", title: "Cien años de soledad", author: "Gabriel García Márquez", isFinished: true),
            try Book(id: "book-005", title: "L'Étranger", author: "Albert Camus"),
        ]
    }

    public static func notes() throws -> [Note] {
        [
            try Note(id: "note-001", bookID: "book-005", title: "Character list — L'Étranger", body: "Page 294: ask Ana about this"),
            try Note(id: "note-002", title: "Footnote on translation", body: "Page 119: check the original wording"),
            try Note(id: "note-003", bookID: "book-004", title: "Quote worth keeping", body: "Page 12: «Muchos años después»\nsecond line is not shown"),
        ]
    }

    public static func tasks() throws -> [ReadingTask] {
        [
            try ReadingTask(id: "task-001", title: "Finish chapter 3 of Dune", isDone: true),
            try ReadingTask(id: "task-002", title: "Return L'Étranger to the library"),
            try ReadingTask(id: "task-003", title: "Pick the book club's next book"),
        ]
    }

    public static func products() throws -> [Product] {
        [
            try Product(id: "prod-001", name: "Bookmark, brass", price: Money(minorUnits: 450, currency: "EUR")),
            try Product(id: "prod-002", name: "Reading lamp", price: Money(minorUnits: 2999, currency: "EUR")),
            try Product(id: "prod-003", name: "Café au lait mug", price: Money(minorUnits: 1250, currency: "EUR")),
            try Product(id: "prod-004", name: "Tote bag", price: Money(minorUnits: 1500, currency: "USD")),
        ]
    }

    /// Two EUR lines, one USD line and one product the catalog no longer has.
    public static func cart() throws -> [CartItem] {
        [
            try CartItem(productID: "prod-001", quantity: 3),
            try CartItem(productID: "prod-002", quantity: 1),
            try CartItem(productID: "prod-004", quantity: 2),
            try CartItem(productID: "prod-999", quantity: 1),
        ]
    }

    /// 2025-03-01T08:30:00Z: the fixed "now" of status fixtures.
    public static let now = Date(timeIntervalSince1970: 1_740_817_800)

    /// A status with something of everything: a last sync, pending changes, a conflict,
    /// a dead letter and a backoff that ends five minutes after `now`.
    public static var busySyncStatus: SyncStatus {
        SyncStatus(
            lastSuccess: now.addingTimeInterval(-3_600), pendingChanges: 4, conflicts: 1,
            deadLetters: 1, backoffUntil: now.addingTimeInterval(300),
            lastError: "server asked to back off for 300 s"
        )
    }
}
