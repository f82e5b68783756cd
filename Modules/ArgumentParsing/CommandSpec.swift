// MARK: - CommandSpec

/// A command as the parser and the help renderer see it, read from its declaration
/// (`ParsableCommand`): name, help, parameters and subcommands, as a tree.
///
/// The tree is public and can be walked from the root (`subcommands`), so everything
/// that describes the command line — help, shell completions (`CompletionScript`) and
/// man pages (`ManPage`) — comes from the same declarations and can never disagree with
/// what is accepted.
public struct CommandSpec: Sendable {
    /// The declaration this spec was read from.
    public let type: any ParsableCommand.Type
    public let name: String
    public let abstract: String
    public let discussion: String?
    public let examples: [Example]
    public let sections: [HelpSection]
    /// Runs, but is never shown: not in help, suggestions, completions or man pages.
    public let isHidden: Bool
    public let arguments: [ArgumentSpec]
    public let options: [OptionSpec]
    /// Options this command's subcommands accept too (e.g. the root's `--json`).
    public let inheritedByChildren: Bool
    /// The name of the subcommand a group runs when none is named.
    public let defaultSubcommand: String?
    /// Other words that name it (`CommandConfiguration.aliases`).
    public let aliases: [String]

    public init(_ type: any ParsableCommand.Type) {
        let configuration = type.configuration
        self.type = type
        name = configuration.name
        abstract = configuration.abstract
        discussion = configuration.discussion
        examples = configuration.examples
        sections = configuration.sections
        isHidden = configuration.isHidden
        inheritedByChildren = configuration.sharesOptionsWithSubcommands
        defaultSubcommand = configuration.defaultSubcommand?.configuration.name
        aliases = configuration.aliases

        var arguments: [ArgumentSpec] = []
        var options: [OptionSpec] = []
        Self.readParameters(of: type.init(), arguments: &arguments, options: &options)
        self.arguments = arguments
        self.options = options
    }

    /// The parameters a declaration holds, its option groups' included where the group
    /// is declared.
    ///
    /// NB: the declaration's properties in the order they are written: help lists
    /// options and binds positional arguments in that order.
    private static func readParameters(of declaration: Any, arguments: inout [ArgumentSpec], options: inout [OptionSpec]) {
        for child in Mirror(reflecting: declaration).children {
            if let group = child.value as? any DeclaredGroup {
                readParameters(of: group.declaredGroup, arguments: &arguments, options: &options)
                continue
            }
            guard let label = child.label, let parameter = child.value as? any DeclaredParameter else { continue }
            let property = label.hasPrefix("_") ? String(label.dropFirst()) : label
            switch parameter.declaration(property: property) {
            case .option(let option): options.append(option)
            case .argument(let argument): arguments.append(argument)
            }
        }
    }

    // MARK: - Subcommands

    /// The subcommands' specs, read from their declarations on each use.
    ///
    /// NB: not stored: reading a declaration reflects over a fresh instance of it, and
    /// the whole tree is ~50 commands, a sizeable part of the start-up of a run that
    /// needs one of them. Parsing walks down by `subcommand(named:)`; help, completions
    /// and man pages walk the whole tree once.
    public var subcommands: [CommandSpec] {
        type.configuration.subcommands.map(CommandSpec.init)
    }

    /// Whether the command is a group (it declares subcommands), without reading them.
    public var hasSubcommands: Bool { !type.configuration.subcommands.isEmpty }

    /// The subcommand called `name`, or one of its aliases; only its own declaration is read.
    public func subcommand(named name: String) -> CommandSpec? {
        let subcommands = type.configuration.subcommands
        return (subcommands.first { $0.configuration.name == name } ?? subcommands.first { $0.configuration.aliases.contains(name) })
            .map(CommandSpec.init)
    }

    /// The subcommands a reader is shown (help, completions, man pages, suggestions).
    public var visibleSubcommands: [CommandSpec] { subcommands.filter { !$0.isHidden } }

    /// The options a reader is shown.
    public var visibleOptions: [OptionSpec] { options.filter { !$0.isHidden } }
}

// MARK: - ArgumentSpec

/// A positional argument.
public struct ArgumentSpec: Sendable {
    public let name: String
    public let help: String
    public let isOptional: Bool
    /// What a shell may offer beyond a fixed list (see `valueCompletion`).
    public let completion: CompletionKind?
    /// The words it accepts, when there is a fixed list.
    public var allowedValues: [String]? { binding.conversion?.allowedValues }
    let binding: ValueBinding

    var usage: String { isOptional ? "[<\(name)>]" : "<\(name)>" }
}

// MARK: - OptionSpec

/// A named option (`--title <title>`) or flag (`--json`).
public struct OptionSpec: Sendable {
    /// The long name, without dashes.
    public let long: String
    public let short: Character?
    /// The placeholder of the value; nil for a flag.
    public let valueName: String?
    public let help: String
    public let isRequired: Bool
    /// A flag that does its job alone (`--version`): the rest of the line is not validated.
    public let isStandalone: Bool
    /// May be given more than once; every value is kept, in order.
    public let isRepeatable: Bool
    /// Accepted, but never shown (help, completions, man pages, suggestions).
    public let isHidden: Bool
    /// What a shell may offer for the value beyond a fixed list (see `valueCompletion`).
    public let completion: CompletionKind?
    let binding: ValueBinding

    public var isFlag: Bool { valueName == nil }
    /// When set, any other value is a usage error naming these.
    public var allowedValues: [String]? { binding.conversion?.allowedValues }

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

// MARK: - ValueBinding

/// Where a parameter's value goes and how its words become it.
struct ValueBinding: Sendable {
    /// The declaring property's name: the key the command's value is decoded from.
    let property: String
    /// nil for a flag, whose value is whether it was given.
    let conversion: ValueConversion?
    /// The value when the parameter is not given; nil when it must be.
    let absentValue: (any Sendable)?
    /// The words given (in order) to the property's value.
    let make: @Sendable ([String], _ displayName: String) throws(ParseError) -> any Sendable
}
