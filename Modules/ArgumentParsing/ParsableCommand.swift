// MARK: - ParsableCommand

/// A command declared as a type: its configuration (name, help, examples, subcommands)
/// and its parameters, written as `@Option`, `@Flag` and `@Argument` properties.
///
/// The declaration is the only source: `CommandSpec` reads it to build the tree the
/// parser matches argv against and the help renderer prints, and the parser makes the
/// command's value with every property filled in, typed. A command body reads its
/// options as properties (`search`, `unfinished`), so a misspelt option does not build.
///
/// ```swift
/// struct Books: ParsableCommand {
///     static let configuration = CommandConfiguration(
///         name: "books", abstract: "List books.",
///         examples: [Example("Books not finished yet", "shelf books --unfinished")])
///     @Option(value: "text", help: "Only books whose title contains the text.") var search: String?
///     @Flag(help: "Only books not finished yet.") var unfinished = false
/// }
/// ```
///
/// - NB: `init()` makes the declaration itself, which `CommandSpec` reads through
///   `Mirror`; only values the parser made (`CommandLineParser.parse`) are meant to be
///   run. `Decodable` is how the parser fills the properties in (see `ParameterDecoder`);
///   the conformance is synthesized and needs nothing from the command.
public protocol ParsableCommand: ParsableArguments {
    static var configuration: CommandConfiguration { get }

    /// The declaration: every property keeps the definition it was written with.
    init()

    /// Checks values together once each has parsed on its own (e.g. two options that
    /// exclude each other); runs before the command does, so nothing has happened yet.
    /// - Throws: the usage error to print.
    func validate() throws(ParseError)
}

extension ParsableCommand {
    public func validate() throws(ParseError) {}
}

// MARK: - CommandConfiguration

/// What a command says about itself besides its parameters.
public struct CommandConfiguration: Sendable {
    /// The word that names the command on the command line.
    public var name: String
    /// One line: the first line of its help and its row in the parent's SUBCOMMANDS.
    public var abstract: String
    /// Paragraphs after the abstract: what the reader needs to know to use it well.
    public var discussion: String?
    /// Command lines that show it at work, printed under EXAMPLES.
    public var examples: [Example]
    public var subcommands: [any ParsableCommand.Type]
    /// The subcommand a group runs when none is named (`shelf cart` = `shelf cart show`).
    public var defaultSubcommand: (any ParsableCommand.Type)?
    /// This command's options are accepted by every command below it too (the root's
    /// `--json`); their values are decoded into this command's properties.
    public var sharesOptionsWithSubcommands: Bool
    /// Sections printed at the end of this command's help only (exit codes, environment),
    /// and filed under their standard headings in the man page.
    public var sections: [HelpSection]
    /// A command for the program's own tools (the completion scripts' helper): it runs,
    /// but help, suggestions, completions and man pages never mention it.
    public var isHidden: Bool
    /// Other words that name the command: forms an older release used, still accepted
    /// and said in help and the man page (`task done` for `task finish`), never offered by
    /// completions or suggestions.
    public var aliases: [String]

    public init(
        name: String, abstract: String, discussion: String? = nil, examples: [Example] = [],
        subcommands: [any ParsableCommand.Type] = [], defaultSubcommand: (any ParsableCommand.Type)? = nil,
        sharesOptionsWithSubcommands: Bool = false, sections: [HelpSection] = [], isHidden: Bool = false,
        aliases: [String] = []
    ) {
        self.aliases = aliases
        self.name = name
        self.abstract = abstract
        self.discussion = discussion
        self.examples = examples
        self.subcommands = subcommands
        self.defaultSubcommand = defaultSubcommand
        self.sharesOptionsWithSubcommands = sharesOptionsWithSubcommands
        self.sections = sections
        self.isHidden = isHidden
    }
}

// MARK: - Example

/// One command line under EXAMPLES, with what it does. The line is written in full,
/// from the program's name, as a reader would type it (a test parses every one).
public struct Example: Sendable, Equatable {
    public var summary: String
    public var commandLine: String

    public init(_ summary: String, _ commandLine: String) {
        self.summary = summary
        self.commandLine = commandLine
    }
}
