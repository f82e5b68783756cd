// MARK: - CompletionTable

/// The command tree flattened for a completion script: per visible command, its
/// subcommands, every option it accepts (its own, the shared ones of its ancestors and
/// `--help`) and what each positional argument completes to. Each shell's script is
/// this table written in that shell's words, plus a walker that finds the command the
/// words before the cursor name.
struct CompletionTable {
    struct Command {
        /// The words after the program's name, joined by spaces; "" for the root.
        let path: String
        let subcommands: [(name: String, abstract: String)]
        let options: [Option]
        /// What each positional argument completes to, in order (nil: nothing).
        let arguments: [CompletionKind?]
    }

    struct Option {
        /// `--long`, then `-s` when there is one.
        let names: [String]
        let help: String
        let takesValue: Bool
        let completion: CompletionKind?
    }

    let program: String
    let commands: [Command]
    /// Options of the root shared with every command that take a value (`--account`):
    /// given on the line, they are passed on to the program when it lists words, so it
    /// answers about the account the line is about.
    let passedOptions: [String]

    init(root: CommandSpec) {
        program = root.name
        var commands: [Command] = []
        func visit(_ command: CommandSpec, path: [String], inherited: [OptionSpec]) {
            var options = command.visibleOptions.map(Self.option)
            options += inherited.map(Self.option)
            options.append(Option(names: ["--help", "-h"], help: "Show help information.", takesValue: false, completion: nil))
            commands.append(Command(
                path: path.joined(separator: " "),
                subcommands: command.visibleSubcommands.map { ($0.name, $0.abstract) },
                options: options,
                arguments: command.arguments.map(\.valueCompletion)))
            let shared = command.inheritedByChildren ? command.visibleOptions.filter { !$0.isStandalone } : []
            for child in command.visibleSubcommands {
                visit(child, path: path + [child.name], inherited: shared + inherited)
            }
        }
        visit(root, path: [], inherited: [])
        self.commands = commands
        passedOptions = root.inheritedByChildren ? root.visibleOptions.filter { !$0.isFlag }.map { "--\($0.long)" } : []
    }

    private static func option(_ spec: OptionSpec) -> Option {
        Option(
            names: ["--\(spec.long)"] + (spec.short.map { ["-\($0)"] } ?? []), help: spec.help,
            takesValue: !spec.isFlag, completion: spec.valueCompletion)
    }

    // MARK: Queries the scripts are written from

    /// The subcommands offered at `command`: at the root, also `help` (`PROGRAM help
    /// COMMAND…` is the parser's own), which is never a step of a path.
    func offered(_ command: Command) -> [(name: String, abstract: String)] {
        guard command.path.isEmpty, !command.subcommands.isEmpty else { return command.subcommands }
        return command.subcommands + [(Self.helpWord, "Show help for a command.")]
    }

    static let helpWord = "help"

    /// `(path, option name)` of every option that takes a value, each name spelled.
    var valuedOptions: [(path: String, name: String)] {
        commands.flatMap { command in
            command.options.filter(\.takesValue).flatMap { option in option.names.map { (command.path, $0) } }
        }
    }

    /// `(path, option name, kind)` of every option whose value completes to something.
    var optionValues: [(path: String, name: String, kind: CompletionKind)] {
        commands.flatMap { command in
            command.options.flatMap { option -> [(String, String, CompletionKind)] in
                guard option.takesValue, let kind = option.completion else { return [] }
                return option.names.map { (command.path, $0, kind) }
            }
        }
    }

    /// `(path, argument index, kind)` of every positional argument that completes.
    var argumentValues: [(path: String, index: Int, kind: CompletionKind)] {
        commands.flatMap { command in
            command.arguments.enumerated().compactMap { index, kind in kind.map { (command.path, index, $0) } }
        }
    }
}

// MARK: - Shell

/// A shell `completion` writes a script for.
public enum Shell: String, CaseIterable, Sendable, ExpressibleByArgument {
    case bash, zsh, fish
}
