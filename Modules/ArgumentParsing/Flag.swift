// MARK: - Flag

/// An option without a value (`--json`, `-q`): true when given.
@propertyWrapper
public struct Flag: Sendable, Decodable, DeclaredParameter {
    private let storage: ParameterStorage<Bool>

    public var wrappedValue: Bool { storage.value }

    /// - Parameters:
    ///   - name: the long name, when it is not the property's name in kebab case.
    ///   - standalone: the flag does its job alone (`--version`): the rest of the line
    ///     is not validated.
    ///   - hidden: accepted but never shown (a flag for the program's own tools).
    public init(
        wrappedValue: Bool = false, name: String? = nil, short: Character? = nil, help: String, standalone: Bool = false,
        hidden: Bool = false
    ) {
        storage = .declared({ property in
            let binding = ValueBinding(
                property: property, conversion: nil, absentValue: wrappedValue,
                make: { words, _ throws(ParseError) in !words.isEmpty })
            return .option(OptionSpec(
                long: name ?? ParameterName.kebabCased(property), short: short, valueName: nil, help: help,
                isRequired: false, isStandalone: standalone, isRepeatable: false, isHidden: hidden, completion: nil,
                binding: binding))
        }, fallback: wrappedValue)
    }

    public init(from decoder: any Decoder) throws { throw NotFromCommandLine() }

    init(parsedValue: any Sendable) throws(ParseError) { storage = try ParameterStorage(parsedValue: parsedValue) }

    func declaration(property: String) -> ParameterDeclaration { storage.declaration(property: property) }
}
