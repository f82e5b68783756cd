import Domain
import Foundation

// MARK: - Wording

/// Small pieces of English the screens share.
enum Wording {
    /// "1 book", "2 books".
    static func count(_ count: Int, _ singular: String, _ plural: String? = nil) -> String {
        "\(count) \(count == 1 ? singular : plural ?? singular + "s")"
    }

    /// A date as ISO 8601 in UTC, "2025-03-01T08:30:00Z": unambiguous in any locale.
    static func timestamp(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle(timeZone: TimeZone(identifier: "UTC") ?? .gmt))
    }

    static func yesNo(_ value: Bool) -> String {
        value ? "yes" : "no"
    }

    /// "book", "note", "task", "cart line", "product": one record of a collection.
    static func noun(_ collection: CollectionName) -> String {
        switch collection {
        case .books: "book"
        case .notes: "note"
        case .tasks: "task"
        case .cart: "cart line"
        case .products: "product"
        case .preferences: "preferences record"
        case .sessions: "reading session"
        }
    }
}
