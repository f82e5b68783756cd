import Domain
import Foundation
import Records

// MARK: - RecordLabel

/// What a person recognises a record by in a list of sync decisions or pending changes:
/// its title (books, notes, tasks) or name; for records without one, what they hold (a
/// cart line's product and quantity, a reading session's minutes and day, the reader's
/// preferences record).
enum RecordLabel {
    static func of(_ fields: [String: JSONValue]?) -> String? {
        guard let fields else { return nil }
        return label(
            title: fields["title"]?.stringValue, name: fields["name"]?.stringValue,
            product: fields["product_id"]?.stringValue, quantity: fields["quantity"]?.intValue,
            minutes: fields["minutes"]?.intValue, day: fields["day"]?.stringValue,
            isPreferences: fields.keys.contains(where: isPreferenceField))
    }

    /// The same from a stored record's bytes, reading only the members a label needs
    /// (a list of thousands of pending changes decodes none of the rest); nil for bytes
    /// that are not a JSON object.
    static func of(_ json: Data?, in collection: CollectionName) -> String? {
        if collection == .preferences { return preferences }
        guard let json, let fields = try? WireFields.parse(json, keeping: labelFields) else { return nil }
        return label(
            title: fields.string("title"), name: fields.string("name"), product: fields.string("product_id"),
            quantity: fields.integer("quantity").map(Int.init), minutes: fields.integer("minutes").map(Int.init),
            day: fields.string("day"), isPreferences: false)
    }

    private static let labelFields: [WireFields.Name] = [
        WireFields.Name("title"), WireFields.Name("name"), WireFields.Name("product_id"), WireFields.Name("quantity"),
        WireFields.Name("minutes"), WireFields.Name("day"),
    ]

    private static let preferences = "favorites and settings"

    private static func isPreferenceField(_ name: String) -> Bool {
        name.hasPrefix("favorite:") || name == "daily_goal_minutes" || name == "show_finished"
    }

    private static func label(
        title: String?, name: String?, product: String?, quantity: Int?, minutes: Int?, day: String?, isPreferences: Bool
    ) -> String? {
        if let title, !title.isEmpty { return title }
        if let name, !name.isEmpty { return name }
        if let product { return quantity.map { "\($0) × \(product)" } ?? product }
        if let minutes, let day { return "\(minutes) min on \(day)" }
        return isPreferences ? preferences : nil
    }
}
