import ArgumentParsing
import Domain
import Screens
import Terminal

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

// MARK: - ListOptions

/// `--limit N`, `--sort FIELD` and `--reverse`: the options of every list, declared once
/// and held by each list command as an `@OptionGroup`, with the words of its own help.
struct ListOptions<Field: ListSortField>: ParsableArguments {
    @Option(value: "n", help: "List at most N items.", expecting: ListLimit.expectation, transform: ListLimit.parse)
    var limit: Int?
    @Option(value: "field", help: "Sort by a field; '-field' for descending.")
    var sort: ListOrder<Field>?
    @Flag(help: "Sort descending.")
    var reverse = false

    init() {}

    /// - Parameters:
    ///   - noun: what the list holds, for `--limit`'s help ("List at most N books.").
    ///   - sortHelp: `--sort`'s help: the fields, and which is the default.
    ///   - reverseHelp: `--reverse`'s help, for a list whose own order is not ascending.
    ///   - completesFields: shell completion offers the field names after `--sort`.
    init(noun: String, sortHelp: String, reverseHelp: String = "Sort descending.", completesFields: Bool = false) {
        _limit = Option(value: "n", help: "List at most N \(noun).", expecting: ListLimit.expectation, transform: ListLimit.parse)
        _sort = Option(value: "field", help: sortHelp, completion: completesFields ? ListOrder<Field>.completionWords : nil)
        _reverse = Flag(help: reverseHelp)
    }

    /// The order asked for: `--sort` (else the list's own), turned round by `--reverse`.
    func order(standard: ListOrder<Field> = .standard) -> ListOrder<Field> {
        let order = sort ?? standard
        return reverse ? order.reversed : order
    }
}
