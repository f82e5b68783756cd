// MARK: - Argument

/// A positional argument (`<id>`), bound in the order the properties are written.
/// Its name in help and errors is the property's name in kebab case (`bookID` →
/// `<book-id>`) unless `name` says otherwise.
@propertyWrapper
public struct Argument<Value: Sendable>: Sendable, Decodable, DeclaredParameter {
    private let storage: ParameterStorage<Value>

    public var wrappedValue: Value { storage.value }

    public init(from decoder: any Decoder) throws { throw NotFromCommandLine() }

    init(parsedValue: any Sendable) throws(ParseError) { storage = try ParameterStorage(parsedValue: parsedValue) }

    func declaration(property: String) -> ParameterDeclaration { storage.declaration(property: property) }

    /// A required argument.
    public init(name: String? = nil, help: String, completion: CompletionKind? = nil) where Value: ExpressibleByArgument {
        self.init(name: name, help: help, completion: completion, conversion: ValueConversion(Value.self), absent: nil) { value in
            value as? Value
        }
    }

    /// An optional argument: nil when not given.
    public init<T: ExpressibleByArgument>(name: String? = nil, help: String, completion: CompletionKind? = nil) where Value == T? {
        self.init(name: name, help: help, completion: completion, conversion: ValueConversion(T.self), absent: .some(nil)) { value in
            .some(value as? T)
        }
    }

    private init(
        name: String?, help: String, completion: CompletionKind?, conversion: ValueConversion, absent: Value?,
        typed: @escaping @Sendable (any Sendable) -> Value?
    ) {
        storage = .declared({ property in
            let binding = ValueBinding(
                property: property, conversion: conversion, absentValue: absent,
                make: { words, display throws(ParseError) in
                    // NB: the parser binds one word to an argument, and only when there is one.
                    let value = try conversion.value(of: words[0], for: display)
                    guard let typedValue = typed(value) else { throw .invalid("Internal error: \(display) converted to \(type(of: value))") }
                    return typedValue
                })
            return .argument(ArgumentSpec(
                name: name ?? ParameterName.kebabCased(property), help: help, isOptional: absent != nil,
                completion: completion, binding: binding))
        }, fallback: absent)
    }
}
