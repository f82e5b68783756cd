import Vocabulary

// MARK: - ProgramCommand

/// The root command of a program: besides its declaration, its version and the options
/// every program answers before running anything (`--version`, `--generate-man`).
public protocol ProgramCommand: ParsableCommand {
    /// The version `--version` prints after the program's name.
    static var version: String { get }
    /// The man pages the program's own names under SEE ALSO (`shelf-sync(1)`).
    static var relatedManPages: [String] { get }
    /// `--version` was given.
    var asksForVersion: Bool { get }
    /// `--generate-man` was given.
    var asksForManPage: Bool { get }
}

// MARK: - CommandLineProgram

/// The steps every Shelf program takes before its command runs, written once: print the
/// short help for a bare program of subcommands (status 0); parse the line, or print the
/// usage error (status 64); print help, the version or the man page when asked;
/// otherwise hand back the parsed line for the program to run.
public struct CommandLineProgram<Root: ProgramCommand>: Sendable {
    public let parser: CommandLineParser
    public let help: HelpRenderer

    public init() {
        parser = CommandLineParser(root: Root.self)
        help = HelpRenderer(parser: parser)
    }

    /// What `start` leaves to the program.
    public enum Start: Sendable {
        /// Answered already (help, version, man page, a usage error): exit with this status.
        case finished(ExitCode)
        /// Run the command the line names; `root` holds the options every command accepts.
        case run(ParsedCommandLine, root: Root)
    }

    /// Parses `context.arguments` and answers what needs no command.
    public func start(_ context: ProgramContext) -> Start {
        let console = context.console
        // NB: the version answers before anything else is read.
        if context.arguments == ["--version"] {
            console.standardOutput(versionLine)
            return .finished(.success)
        }
        if let position = context.undecodableArguments.first {
            // NB: before parsing: an option's value must not be stored repaired, and a
            // command name cannot be matched from bytes that are not text.
            console.standardError("Error: argument \(position) is not UTF-8 text; nothing was done\n")
            return .finished(.dataError)
        }
        // NB: a program of subcommands run bare is asked what it can do, not given a
        // usage error: the short help, status 0.
        let tree = parser.root
        if context.arguments.isEmpty, tree.hasSubcommands, tree.defaultSubcommand == nil {
            console.standardOutput(help.shortHelp())
            return .finished(.success)
        }
        let parsed: ParsedCommandLine
        do {
            parsed = try parser.parse(context.arguments)
        } catch {
            console.standardError(help.usageError(error, path: parser.commandPath(for: context.arguments)))
            return .finished(.usage)
        }
        if parsed.wantsHelp {
            console.standardOutput(help.help(for: parsed.path))
            return .finished(.success)
        }
        // NB: the parser makes the root for every line it accepts (it declares the shared options).
        let root = parsed.command(Root.self) ?? Root()
        if root.asksForVersion {
            console.standardOutput(versionLine)
            return .finished(.success)
        }
        if root.asksForManPage {
            let date = ManPage.date(environment: context.environment, now: Int64(context.clock.now().timeIntervalSince1970))
            let page = ManPage(parser: parser, source: "\(Root.configuration.name) \(Root.version)", date: date, seeAlso: Root.relatedManPages)
            console.standardOutput(page.render())
            return .finished(.success)
        }
        return .run(parsed, root: root)
    }

    private var versionLine: String { "\(Root.configuration.name) \(Root.version)\n" }
}
