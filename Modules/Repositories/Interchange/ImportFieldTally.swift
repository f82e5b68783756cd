import Domain

// MARK: - ImportFieldTally

/// Counts, field by field, what the rows an import turns into records held: the fields
/// Shelf keeps (and as what), and the ones it drops, so the report can say what of the
/// reader's data stayed behind (`ImportField`). Only rows that became records are
/// counted: a skipped row is reported whole, with why.
struct ImportFieldTally {
    /// What one field of the source becomes.
    struct Rule {
        /// What Shelf keeps it as; nil when it is dropped.
        var keptAs: String?
        var reason: String?
    }

    private var order: [String] = []
    private var counts: [String: Int] = [:]
    private var rules: [String: Rule] = [:]
    /// The rule of a field no table names.
    private let unknown: Rule

    /// - Parameters:
    ///   - rules: the fields the format knows, by their name in the file.
    ///   - unknown: what happens to any other field.
    init(rules: [String: Rule], unknown: Rule) {
        self.rules = rules
        self.unknown = unknown
    }

    /// Notes the fields of the file, in its order (a CSV header), so the report follows it.
    mutating func declare(_ names: [String]) {
        for name in names where counts[name] == nil {
            order.append(name)
            counts[name] = 0
        }
    }

    /// Counts one imported row's value of `field`, when it holds one.
    mutating func count(_ field: String, hasValue: Bool) {
        if counts[field] == nil {
            order.append(field)
            counts[field] = 0
        }
        if hasValue { counts[field, default: 0] += 1 }
    }

    /// The fields that held a value in at least one imported row, in the file's order:
    /// a column nobody filled in lost nothing.
    var fields: [ImportField] {
        order.compactMap { name in
            guard let rows = counts[name], rows > 0 else { return nil }
            let rule = rules[name] ?? unknown
            return ImportField(source: name, keptAs: rule.keptAs, rows: rows, reason: rule.reason)
        }
    }
}
