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
    /// The sentence after `Error:` for a refused word; `parameter` is the parameter as
    /// usage shows it (`'--quantity'`, `<id>`). By default it names both and says what
    /// was expected.
    static func refusal(of word: String, for parameter: String) -> String
}

extension ExpressibleByArgument {
    public static var allowedValues: [String]? { nil }

    public static func refusal(of word: String, for parameter: String) -> String {
        "Invalid value '\(word)' for \(parameter): expected \(expectation)"
    }
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
    let allowedValues: [String]?
    /// The error's sentence for a refused word and the parameter's name.
    let refusal: @Sendable (String, String) -> String

    init<T: ExpressibleByArgument>(_ type: T.Type) {
        convert = { T(argument: $0) }
        allowedValues = T.allowedValues
        refusal = { T.refusal(of: $0, for: $1) }
    }

    /// Only `allowed` of the type's values, in that order (a command that takes some
    /// of an enumeration's cases).
    init<T: ExpressibleByArgument & RawRepresentable>(_ type: T.Type, allowed: [T]) where T.RawValue == String {
        let words = allowed.map(\.rawValue)
        convert = { word in words.contains(word) ? T(argument: word) : nil }
        allowedValues = words
        refusal = { T.refusal(of: $0, for: $1) }
    }

    init<T: Sendable>(expecting: String, allowed: [String]?, _ transform: @escaping @Sendable (String) -> T?) {
        convert = { transform($0) }
        allowedValues = allowed
        refusal = { word, parameter in "Invalid value '\(word)' for \(parameter): expected \(expecting)" }
    }

    /// The word's value, or the usage error naming the parameter as `display` shows it
    /// (`'--quantity'`, `<minutes>`).
    func value(of word: String, for display: String) throws(ParseError) -> any Sendable {
        guard let value = convert(word) else { throw .invalid(refusal(word, display)) }
        return value
    }
}
