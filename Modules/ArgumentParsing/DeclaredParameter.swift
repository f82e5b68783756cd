// MARK: - DeclaredParameter

/// What `@Option`, `@Flag` and `@Argument` have in common: each is written with its
/// definition (read by `CommandSpec` through `Mirror`) and later made again by the
/// parser with its value (through `ParameterDecoder`).
protocol DeclaredParameter: Sendable {
    /// The parameter as declared on the property named `property`.
    func declaration(property: String) -> ParameterDeclaration
    /// The parameter holding a parsed value.
    init(parsedValue: any Sendable) throws(ParseError)
}

enum ParameterDeclaration {
    case option(OptionSpec)
    case argument(ArgumentSpec)
}

// MARK: - ParameterStorage

/// A parameter's declaration, until the parser replaces it with the value.
enum ParameterStorage<Value: Sendable>: Sendable {
    /// The declaration, and the value it stands for when it has one (a default, nil
    /// for an optional, false for a flag).
    case declared(@Sendable (String) -> ParameterDeclaration, fallback: Value?)
    case parsed(Value)

    init(parsedValue: any Sendable) throws(ParseError) {
        guard let value = parsedValue as? Value else {
            throw .invalid("Internal error: a value of type \(type(of: parsedValue)) for a parameter of type \(Value.self)")
        }
        self = .parsed(value)
    }

    var value: Value {
        switch self {
        case .parsed(let value): return value
        case .declared(_, let fallback?): return fallback
        case .declared:
            // NB: only the declaration made by `init()` is in this state, and it is read
            // through `Mirror` (by `CommandSpec`), never run: the parser makes every
            // value that runs, with each required parameter given or refused.
            preconditionFailure("a required parameter of a command declaration was read before the command line was parsed")
        }
    }

    func declaration(property: String) -> ParameterDeclaration {
        switch self {
        case .declared(let declare, _): return declare(property)
        // NB: a parsed value never reaches `CommandSpec`, which reads `init()`'s declaration.
        case .parsed: preconditionFailure("a parsed command was read as a declaration")
        }
    }
}

/// The error a parameter decoded by anything but the command-line parser throws.
struct NotFromCommandLine: Error, CustomStringConvertible {
    var description: String { "command parameters are made by the command-line parser only" }
}

// MARK: - Names

enum ParameterName {
    /// `showFinished` → `show-finished`, `bookID` → `book-id`: the long name a property
    /// stands for unless its declaration names it.
    static func kebabCased(_ property: String) -> String {
        var out = ""
        let characters = Array(property)
        for (index, character) in characters.enumerated() {
            if character.isUppercase, index > 0 {
                let previous = characters[index - 1]
                let next = index + 1 < characters.count ? characters[index + 1] : nil
                if previous.isLowercase || previous.isNumber || (previous.isUppercase && next?.isLowercase == true) {
                    out.append("-")
                }
            }
            out.append(contentsOf: character.lowercased())
        }
        return out
    }
}
