// MARK: - HelpRenderer

/// Renders help for a command in the familiar layout, from its declaration:
/// `OVERVIEW / USAGE / ARGUMENTS / OPTIONS / SUBCOMMANDS / EXAMPLES`, then the
/// command's own sections (the root's exit codes and environment). Hidden commands and
/// options are accepted but never listed.
public struct HelpRenderer: Sendable {
    public let parser: CommandLineParser

    public init(parser: CommandLineParser) {
        self.parser = parser
    }

    public func help(for path: [String]) -> String {
        let command = parser.spec(for: path)
        var out = "OVERVIEW: \(command.abstract)\n"
        if let discussion = command.discussion { out += "\n\(discussion)\n" }
        out += "\nUSAGE: \(usage(for: path))\n"

        if !command.arguments.isEmpty {
            out += "\nARGUMENTS:\n"
            for argument in command.arguments { out += row("<\(argument.name)>", argument.help) }
        }
        out += "\nOPTIONS:\n"
        for option in command.visibleOptions { out += row(option.label, option.help) }
        for option in inheritedOptions(for: path) { out += row(option.label, option.help) }
        out += row("-h, --help", "Show help information.")

        if !command.visibleSubcommands.isEmpty {
            out += "\nSUBCOMMANDS:\n"
            for sub in command.visibleSubcommands {
                out += row(sub.name, sub.abstract + (sub.aliases.isEmpty ? "" : " (also: \(sub.aliases.joined(separator: ", ")))"))
            }
            let name = ([path[0], "help"] + path.dropFirst()).joined(separator: " ")
            out += "\n  See '\(name) <subcommand>' for detailed help.\n"
        }
        if !command.examples.isEmpty {
            out += "\nEXAMPLES:\n"
            for example in command.examples { out += "  \(example.summary):\n    \(example.commandLine)\n" }
        }
        for section in command.sections { out += "\n" + render(section) }
        return out
    }

    /// What a program with subcommands prints when run with no arguments at all: what it
    /// is, its usage line, the names of its commands and where to read more — a screenful,
    /// not the whole help (git's, gh's habit).
    public func shortHelp() -> String {
        let root = parser.root
        var out = "\(root.name): \(root.abstract)\n\nUSAGE: \(usage(for: [root.name]))\n\nCOMMANDS:\n"
        let names = root.visibleSubcommands.map(\.name).joined(separator: ", ")
        for line in TextWrapping.lines(names, width: Self.width - 2) { out += "  \(line)\n" }
        out += "\n  See '\(root.name) --help' for what each does, and '\(root.name) help <subcommand>' for one.\n"
        return out
    }

    /// `shelf [<options>] book add --title <title> --author <author>`
    public func usage(for path: [String]) -> String {
        let command = parser.spec(for: path)
        var parts = [path.joined(separator: " ")]
        if command.hasSubcommands && command.arguments.isEmpty {
            let sub = command.defaultSubcommand == nil ? "<subcommand>" : "[<subcommand>]"
            parts.append(command.options.isEmpty ? sub : "[<options>] \(sub)")
        } else if command.hasSubcommands {
            // A group that runs itself with its arguments, or one of its subcommands.
            parts += command.arguments.map(\.usage)
            parts.append("| <subcommand>")
        } else {
            parts += command.options.filter(\.isRequired).map(\.usage)
            if command.options.contains(where: { !$0.isRequired }) { parts.append("[<options>]") }
            parts += command.arguments.map(\.usage)
        }
        return parts.joined(separator: " ")
    }

    /// The text of a usage error: the message, the usage line and where to look.
    public func usageError(_ error: ParseError, path: [String]) -> String {
        let command = path.joined(separator: " ")
        return "Error: \(error)\nUsage: \(usage(for: path))\n  See '\(command) --help'.\n"
    }

    // MARK: Helpers

    private func inheritedOptions(for path: [String]) -> [OptionSpec] {
        guard path.count > 1 else { return [] }
        var command = parser.root
        var inherited: [OptionSpec] = []
        for name in path.dropFirst() {
            if command.inheritedByChildren { inherited += command.visibleOptions.filter { !$0.isStandalone } }
            guard let child = command.subcommand(named: name) else { break }
            command = child
        }
        return inherited
    }

    /// `TITLE:`, then each entry with its text wrapped beside the term (under it when
    /// the term is long), then the section's lines as written.
    private func render(_ section: HelpSection) -> String {
        var out = "\(section.title):\n"
        let widest = section.entries.map(\.term.count).max() ?? 0
        let column = 2 + min(widest, Self.termColumnLimit) + 2
        for entry in section.entries {
            let lines = TextWrapping.lines(entry.text, width: Self.width - column)
            let indent = String(repeating: " ", count: column)
            if entry.term.count <= Self.termColumnLimit {
                out += "  " + entry.term + String(repeating: " ", count: column - 2 - entry.term.count) + (lines.first ?? "") + "\n"
                for line in lines.dropFirst() { out += indent + line + "\n" }
            } else {
                out += "  \(entry.term)\n"
                for line in lines { out += indent + line + "\n" }
            }
        }
        for line in section.lines { out += line.isEmpty ? "\n" : "  \(line)\n" }
        return out
    }

    /// Help is laid out for an 80-column terminal.
    static let width = 80
    /// A longer term (a list of variables) goes on its own line.
    static let termColumnLimit = 16

    private func row(_ label: String, _ help: String) -> String {
        let pad = 26
        if label.count + 2 < pad {
            return "  " + label + String(repeating: " ", count: pad - label.count - 2) + help + "\n"
        }
        return "  \(label)\n" + String(repeating: " ", count: pad) + help + "\n"
    }
}
