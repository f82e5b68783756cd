// MARK: - CommandSpec

/// The declaration of a command: what it is called, what it takes, what it contains.
///
/// Shelf's two apps describe their whole command tree with these values; the parser
/// validates argv against it before anything runs, and the help renderer prints
/// `OVERVIEW / USAGE / ARGUMENTS / OPTIONS / SUBCOMMANDS` from the same source, so
/// help can never disagree with what is accepted.
public struct CommandSpec: Sendable {
    public var name: String
    public var abstract: String
    public var discussion: String?
    public var arguments: [ArgumentSpec]
    public var options: [OptionSpec]
    public var subcommands: [CommandSpec]
    /// Options this command's subcommands accept too (e.g. the root's `--json`).
    public var inheritedByChildren: Bool
    /// The subcommand a group runs when none is named (`shelf cart` = `shelf cart show`).
    public var defaultSubcommand: String?

    public init(
        name: String, abstract: String, discussion: String? = nil,
        arguments: [ArgumentSpec] = [], options: [OptionSpec] = [],
        subcommands: [CommandSpec] = [], inheritedByChildren: Bool = false,
        defaultSubcommand: String? = nil
    ) {
        self.name = name
        self.abstract = abstract
        self.discussion = discussion
        self.arguments = arguments
        self.options = options
        self.subcommands = subcommands
        self.inheritedByChildren = inheritedByChildren
        self.defaultSubcommand = defaultSubcommand
    }

    public func subcommand(named name: String) -> CommandSpec? {
        subcommands.first { $0.name == name }
    }
}

// MARK: - ArgumentSpec

/// A positional argument.
public struct ArgumentSpec: Sendable {
    public var name: String
    public var help: String
    public var isOptional: Bool

    public init(_ name: String, help: String, isOptional: Bool = false) {
        self.name = name
        self.help = help
        self.isOptional = isOptional
    }

    var usage: String { isOptional ? "[<\(name)>]" : "<\(name)>" }
}

// MARK: - OptionSpec

/// A named option (`--title <title>`) or flag (`--json`).
public struct OptionSpec: Sendable {
    /// The long name without dashes; it is also the key of the parsed value.
    public var long: String
    public var short: Character?
    /// The placeholder of the value; nil for a flag.
    public var valueName: String?
    public var help: String
    public var isRequired: Bool
    /// When set, any other value is a usage error naming these.
    public var allowedValues: [String]?
    /// A flag that does its job alone (`--version`): the rest of the line is not validated.
    public var isStandalone: Bool = false

    public static func flag(_ long: String, short: Character? = nil, help: String, standalone: Bool = false) -> OptionSpec {
        var spec = OptionSpec(long: long, short: short, valueName: nil, help: help, isRequired: false, allowedValues: nil)
        spec.isStandalone = standalone
        return spec
    }

    public static func option(
        _ long: String, short: Character? = nil, value: String, help: String,
        required: Bool = false, allowed: [String]? = nil
    ) -> OptionSpec {
        OptionSpec(long: long, short: short, valueName: value, help: help, isRequired: required, allowedValues: allowed)
    }

    public var isFlag: Bool { valueName == nil }

    var label: String {
        let names = (short.map { "-\($0), " } ?? "") + "--\(long)"
        if let valueName { return "\(names) <\(valueName)>" }
        return names
    }

    var usage: String {
        let core = valueName.map { "--\(long) <\($0)>" } ?? "--\(long)"
        return isRequired ? core : "[\(core)]"
    }
}
