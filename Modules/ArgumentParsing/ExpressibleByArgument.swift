// MARK: - ExpressibleByArgument

/// A type an option or argument's word converts to.
///
/// A word that does not convert is a usage error: `Invalid value 'soon' for
/// '--daily-goal': expected a whole number` (the `expectation`). A type with a fixed set
/// of values lists them in `allowedValues`, and any other word is refused naming them,
/// before anything converts: `expected one of: on, off`.
public protocol ExpressibleByArgument: Sendable {
    init?(argument: String)
    /// What a word must look like, for the error: "a whole number".
    static var expectation: String { get }
    /// The only words accepted, in the order errors (and completions) list them.
    static var allowedValues: [String]? { get }
}

extension ExpressibleByArgument {
    public static var allowedValues: [String]? { nil }
}

/// Enumerations spelled by their raw values get both conversions and the list for free.
extension ExpressibleByArgument where Self: CaseIterable & RawRepresentable, RawValue == String {
    public init?(argument: String) { self.init(rawValue: argument) }
    public static var expectation: String { "one of: " + allCases.map(\.rawValue).joined(separator: ", ") }
    public static var allowedValues: [String]? { allCases.map(\.rawValue) }
}

// MARK: - Standard conformances

extension String: ExpressibleByArgument {
    public init?(argument: String) { self = argument }
    public static var expectation: String { "text" }
}

extension Int: ExpressibleByArgument {
    public init?(argument: String) { self.init(argument) }
    public static var expectation: String { "a whole number" }
}

extension Duration: ExpressibleByArgument {
    public init?(argument: String) {
        guard let duration = DurationParsing.parse(argument) else { return nil }
        self = duration
    }

    public static var expectation: String { "a duration such as 90s, 5m or 1h" }
}

// MARK: - ValueConversion

/// How one parameter's words become its typed value; made by the property wrappers
/// from the declared type, or from a conversion the declaration gives.
struct ValueConversion: Sendable {
    /// The word to value; nil when the word is refused.
    let convert: @Sendable (String) -> (any Sendable)?
    let expectation: String
    let allowedValues: [String]?

    init<T: ExpressibleByArgument>(_ type: T.Type) {
        convert = { T(argument: $0) }
        expectation = T.expectation
        allowedValues = T.allowedValues
    }

    init<T: Sendable>(expecting: String, allowed: [String]?, _ transform: @escaping @Sendable (String) -> T?) {
        convert = { transform($0) }
        expectation = expecting
        allowedValues = allowed
    }

    /// The word's value, or the usage error naming the parameter as `display` shows it
    /// (`'--quantity'`, `<minutes>`).
    func value(of word: String, for display: String) throws(ParseError) -> any Sendable {
        guard let value = convert(word) else {
            throw .invalid("Invalid value '\(word)' for \(display): expected \(expectation)")
        }
        return value
    }
}
