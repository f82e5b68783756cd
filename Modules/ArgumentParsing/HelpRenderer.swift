// MARK: - HelpRenderer

/// Renders help for a command in the familiar layout, from its declaration:
/// `OVERVIEW / USAGE / ARGUMENTS / OPTIONS / SUBCOMMANDS / EXAMPLES`, then the
/// command's own epilogue (the root's exit codes and environment).
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
        for option in command.options { out += row(option.label, option.help) }
        for option in inheritedOptions(for: path) { out += row(option.label, option.help) }
        out += row("-h, --help", "Show help information.")

        if !command.subcommands.isEmpty {
            out += "\nSUBCOMMANDS:\n"
            for sub in command.subcommands { out += row(sub.name, sub.abstract) }
            let name = ([path[0], "help"] + path.dropFirst()).joined(separator: " ")
            out += "\n  See '\(name) <subcommand>' for detailed help.\n"
        }
        if !command.examples.isEmpty {
            out += "\nEXAMPLES:\n"
            for example in command.examples { out += "  \(example.summary):\n    \(example.commandLine)\n" }
        }
        if let epilogue = command.epilogue { out += "\n\(epilogue)\n" }
        return out
    }

    /// `shelf [<options>] book add --title <title> --author <author>`
    public func usage(for path: [String]) -> String {
        let command = parser.spec(for: path)
        var parts = [path.joined(separator: " ")]
        if !command.subcommands.isEmpty && command.arguments.isEmpty {
            let sub = command.defaultSubcommand == nil ? "<subcommand>" : "[<subcommand>]"
            parts.append(command.options.isEmpty ? sub : "[<options>] \(sub)")
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
            if command.inheritedByChildren { inherited += command.options.filter { !$0.isStandalone } }
            guard let child = command.subcommand(named: name) else { break }
            command = child
        }
        return inherited
    }

    private func row(_ label: String, _ help: String) -> String {
        let pad = 26
        if label.count + 2 < pad {
            return "  " + label + String(repeating: " ", count: pad - label.count - 2) + help + "\n"
        }
        return "  \(label)\n" + String(repeating: " ", count: pad) + help + "\n"
    }
}
