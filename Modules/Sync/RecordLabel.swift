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
            title: fields[WireNames.title]?.stringValue, name: fields[WireNames.productName]?.stringValue,
            product: fields[WireNames.cartProduct]?.stringValue, quantity: fields[WireNames.cartQuantity]?.intValue,
            minutes: fields[WireNames.sessionMinutes]?.intValue, day: fields[WireNames.sessionDay]?.stringValue,
            isPreferences: fields.keys.contains(where: isPreferenceField))
    }

    /// The same from a stored record's bytes, reading only the members a label needs
    /// (a list of thousands of pending changes decodes none of the rest); nil for bytes
    /// that are not a JSON object.
    static func of(_ json: Data?, in collection: CollectionName) -> String? {
        if collection == .preferences { return preferences }
        guard let json, let fields = try? WireFields.parse(json, keeping: labelFields) else { return nil }
        return label(
            title: fields.string(WireNames.title), name: fields.string(WireNames.productName),
            product: fields.string(WireNames.cartProduct), quantity: fields.integer(WireNames.cartQuantity).map(Int.init),
            minutes: fields.integer(WireNames.sessionMinutes).map(Int.init), day: fields.string(WireNames.sessionDay),
            isPreferences: false)
    }

    private static let labelFields: [WireFields.Name] = [
        WireNames.title, WireNames.productName, WireNames.cartProduct, WireNames.cartQuantity,
        WireNames.sessionMinutes, WireNames.sessionDay,
    ].map { WireFields.Name($0) }

    private static let preferences = "favorites and settings"

    private static func isPreferenceField(_ name: String) -> Bool {
        name.hasPrefix(PreferenceFields.favoritePrefix) || name == PreferenceFields.dailyGoalMinutes
            || name == PreferenceFields.showFinished
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
