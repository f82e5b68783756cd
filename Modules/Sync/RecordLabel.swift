import Domain

// MARK: - RecordLabel

/// What a person recognises a record by in a list of sync decisions or pending changes:
/// its title (books, notes, tasks) or name; for records without one, what they hold (a
/// cart line's product and quantity, a reading session's minutes and day, the reader's
/// preferences record).
enum RecordLabel {
    static func of(_ fields: [String: JSONValue]?) -> String? {
        guard let fields else { return nil }
        for key in ["title", "name"] {
            if case .string(let text)? = fields[key], !text.isEmpty { return text }
        }
        if let product = fields["product_id"]?.stringValue {
            return fields["quantity"]?.intValue.map { "\($0) × \(product)" } ?? product
        }
        if let minutes = fields["minutes"]?.intValue, let day = fields["day"]?.stringValue {
            return "\(minutes) min on \(day)"
        }
        if fields.keys.contains(where: { $0.hasPrefix("favorite:") || $0 == "daily_goal_minutes" || $0 == "show_finished" }) {
            return "favorites and settings"
        }
        return nil
    }
}
