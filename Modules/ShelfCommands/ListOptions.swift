import ArgumentParsing
import Domain
import Screens

// MARK: - Colour

extension ColorChoice: ExpressibleByArgument {}

// MARK: - --limit

/// `--limit N` on a list: a whole number from 1 to 1,000,000.
enum ListLimit {
    static let expectation = "a whole number from 1 to 1000000"

    @Sendable static func parse(_ word: String) -> Int? {
        guard let value = Int(word), (1...1_000_000).contains(value) else { return nil }
        return value
    }
}

// MARK: - --sort

/// `--sort FIELD` on a list: a field of that list, `-FIELD` for descending. Any other
/// word is refused naming the closest field and every valid one.
extension ListOrder: ExpressibleByArgument {
    public init?(argument: String) { self.init(parsing: argument) }

    public static var expectation: String {
        "one of: " + Field.names.joined(separator: ", ") + " (a leading '-' sorts descending)"
    }

    public static func refusal(of word: String, for parameter: String) -> String {
        let field = word.hasPrefix("-") ? String(word.dropFirst()) : word
        let suggestion = ValueSuggestion.closest(to: field, among: Field.names).map { " Did you mean '\($0)'?" } ?? ""
        return "Unknown field '\(field)' for \(parameter).\(suggestion) Fields: \(Field.names.joined(separator: ", "))"
            + " (a leading '-' sorts descending)"
    }
}

extension ListOrder {
    /// The order a list command asked for: `--sort` (else the list's own), turned round by
    /// `--reverse`.
    static func asked(_ sort: ListOrder?, reverse: Bool) -> ListOrder {
        let order = sort ?? .standard
        return reverse ? order.reversed : order
    }
}
