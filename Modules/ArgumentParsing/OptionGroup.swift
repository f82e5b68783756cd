// MARK: - ParsableArguments

/// A group of parameters declared once and used by several commands (`--limit`,
/// `--sort`, `--reverse` on every list), as swift-argument-parser's `ParsableArguments`.
///
/// Its `@Option`, `@Flag` and `@Argument` properties are read like a command's: through
/// `Mirror` from the value the command's declaration holds, so a group can be declared
/// with words of its own (`ListOptions(noun: "books")`) and each command's help still
/// says what its list holds. The group's parameters share one namespace with the
/// command's own: a property name used twice is a declaration error.
public protocol ParsableArguments: Decodable, Sendable {
    /// The declaration of a group that says nothing of its own; a command's declaration
    /// usually makes one with its words instead.
    init()
}

// MARK: - OptionGroup

/// A command's property that holds a `ParsableArguments` group: its parameters are the
/// command's, listed in help where the property is declared.
///
/// ```swift
/// struct Books: ParsableCommand {
///     @OptionGroup var list = ListOptions<BookSortField>(noun: "books")
/// }
/// ```
@propertyWrapper
public struct OptionGroup<Group: ParsableArguments>: Sendable, Decodable {
    public var wrappedValue: Group

    public init(wrappedValue: Group) {
        self.wrappedValue = wrappedValue
    }

    public init(from decoder: any Decoder) throws { throw NotFromCommandLine() }
}

// MARK: - Reading and making a group

/// What `CommandSpec` and `ParameterDecoder` need of any `OptionGroup`.
protocol DeclaredGroup: Sendable {
    /// The group's declaration, whose parameters `CommandSpec` reads.
    var declaredGroup: any Sendable { get }
    /// The group holding the parsed values of its parameters (keyed by property name,
    /// with the command's own).
    init(parsedValues: [String: any Sendable]) throws(ParseError)
}

extension OptionGroup: DeclaredGroup {
    var declaredGroup: any Sendable { wrappedValue }

    init(parsedValues: [String: any Sendable]) throws(ParseError) {
        do {
            wrappedValue = try Group(from: ParameterDecoder(values: parsedValues))
        } catch let error as ParseError {
            throw error
        } catch {
            // NB: a group whose stored properties are all parameters always decodes.
            throw .invalid("Internal error: \(Group.self) cannot be made from its parameters: \(error)")
        }
    }
}
