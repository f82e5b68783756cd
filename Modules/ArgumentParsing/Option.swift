// MARK: - Option

/// A named option with a value: `--title <title>`, `--quantity <n>`.
///
/// The property's type says what the option is: `String?` optional, `Int` with a
/// default (`= 1`) optional with that default, `String` without one required,
/// `[CollectionName]` repeatable. The long name is the property's name in kebab case
/// (`dailyGoal` → `--daily-goal`) unless `name` says otherwise.
@propertyWrapper
public struct Option<Value: Sendable>: Sendable, Decodable, DeclaredParameter {
    private let storage: ParameterStorage<Value>

    public var wrappedValue: Value { storage.value }

    public init(from decoder: any Decoder) throws { throw NotFromCommandLine() }

    init(parsedValue: any Sendable) throws(ParseError) { storage = try ParameterStorage(parsedValue: parsedValue) }

    func declaration(property: String) -> ParameterDeclaration { storage.declaration(property: property) }

    private init(
        name: String?, short: Character?, valueName: String, help: String, completion: CompletionKind?,
        conversion: ValueConversion, absent: Value?, isRequired: Bool, isRepeatable: Bool,
        make: @escaping @Sendable ([String], String, ValueConversion) throws(ParseError) -> Value
    ) {
        storage = .declared({ property in
            let long = name ?? ParameterName.kebabCased(property)
            let binding = ValueBinding(
                property: property, conversion: conversion, absentValue: absent,
                make: { words, display throws(ParseError) in try make(words, display, conversion) })
            return .option(OptionSpec(
                long: long, short: short, valueName: valueName, help: help, isRequired: isRequired,
                isStandalone: false, isRepeatable: isRepeatable, isHidden: false, completion: completion, binding: binding))
        }, fallback: absent)
    }
}

// MARK: - Declarations

extension Option {
    /// An optional option: nil when not given.
    public init<T: ExpressibleByArgument>(
        name: String? = nil, short: Character? = nil, value valueName: String, help: String,
        completion: CompletionKind? = nil
    ) where Value == T? {
        self.init(name: name, short: short, valueName: valueName, help: help, completion: completion, conversion: ValueConversion(T.self))
    }

    /// An optional option whose words convert with `transform`; `expecting` says what a
    /// refused word should have been ("a whole number from 1 to 10000").
    public init<T: Sendable>(
        name: String? = nil, short: Character? = nil, value valueName: String, help: String,
        completion: CompletionKind? = nil, expecting: String, transform: @escaping @Sendable (String) -> T?
    ) where Value == T? {
        self.init(
            name: name, short: short, valueName: valueName, help: help, completion: completion,
            conversion: ValueConversion(expecting: expecting, allowed: nil, transform))
    }

    private init<T>(
        name: String?, short: Character?, valueName: String, help: String, completion: CompletionKind?, conversion: ValueConversion
    ) where Value == T? {
        self.init(
            name: name, short: short, valueName: valueName, help: help, completion: completion, conversion: conversion,
            absent: .some(nil), isRequired: false, isRepeatable: false,
            make: { words, display, conversion throws(ParseError) in
                // A repeated option keeps its last value.
                try conversion.value(of: words[words.count - 1], for: display) as? T
            })
    }

    /// An option with a default: the default when not given.
    public init(
        wrappedValue: Value, name: String? = nil, short: Character? = nil, value valueName: String, help: String,
        completion: CompletionKind? = nil
    ) where Value: ExpressibleByArgument {
        self.init(
            name: name, short: short, valueName: valueName, help: help, completion: completion,
            conversion: ValueConversion(Value.self), absent: wrappedValue, isRequired: false, isRepeatable: false, make: Self.last)
    }

    /// A required option: a command line without it is refused.
    public init(
        name: String? = nil, short: Character? = nil, value valueName: String, help: String,
        completion: CompletionKind? = nil
    ) where Value: ExpressibleByArgument {
        self.init(
            name: name, short: short, valueName: valueName, help: help, completion: completion,
            conversion: ValueConversion(Value.self), absent: nil, isRequired: true, isRepeatable: false, make: Self.last)
    }

    /// A repeatable option: every value given, in order; empty when none is.
    public init<T: ExpressibleByArgument>(
        name: String? = nil, short: Character? = nil, value valueName: String, help: String,
        completion: CompletionKind? = nil
    ) where Value == [T] {
        self.init(name: name, short: short, valueName: valueName, help: help, completion: completion, repeating: ValueConversion(T.self))
    }

    /// A repeatable option that takes only `allowed` of its type's values, listed in
    /// that order in help and errors.
    public init<T: ExpressibleByArgument & RawRepresentable>(
        name: String? = nil, short: Character? = nil, value valueName: String, help: String, allowed: [T],
        completion: CompletionKind? = nil
    ) where Value == [T], T.RawValue == String {
        self.init(
            name: name, short: short, valueName: valueName, help: help, completion: completion,
            repeating: ValueConversion(T.self, allowed: allowed))
    }

    private init<T>(
        name: String?, short: Character?, valueName: String, help: String, completion: CompletionKind?,
        repeating conversion: ValueConversion
    ) where Value == [T] {
        self.init(
            name: name, short: short, valueName: valueName, help: help, completion: completion, conversion: conversion,
            absent: [], isRequired: false, isRepeatable: true,
            make: { words, display, conversion throws(ParseError) in
                var values: [T] = []
                for word in words {
                    if let value = try conversion.value(of: word, for: display) as? T { values.append(value) }
                }
                return values
            })
    }

    /// The last word's value (a repeated option keeps its last value).
    private static func last(_ words: [String], _ display: String, _ conversion: ValueConversion) throws(ParseError) -> Value {
        let value = try conversion.value(of: words[words.count - 1], for: display)
        guard let typed = value as? Value else { throw .invalid("Internal error: \(display) converted to \(type(of: value))") }
        return typed
    }
}
