// MARK: - CommandLineParser

/// Matches argv against a `CommandSpec` tree.
///
/// Rules, in the manner of swift-argument-parser: subcommand names come first;
/// options may appear anywhere after their command, as `--name value`, `--name=value`
/// or `-n value`; options of a command marked `inheritedByChildren` are accepted by
/// every command below it; `--` ends options; `-h`/`--help` anywhere asks for help.
/// `help <command…>` at the root is the same as `<command…> --help`.
public struct CommandLineParser: Sendable {
    public let root: CommandSpec

    public init(root: CommandSpec) {
        self.root = root
    }

    public func parse(_ argv: [String]) throws(ParseError) -> Invocation {
        var words = argv[...]
        if words.first == "help" {
            return try helpInvocation(for: Array(words.dropFirst()))
        }
        var command = root
        var chain = [root]
        var invocation = Invocation(path: [root.name])
        var positionals: [String] = []
        var optionsEnded = false

        while let word = words.popFirst() {
            if !optionsEnded, word == "--" {
                optionsEnded = true
            } else if !optionsEnded, word == "-h" || word == "--help" {
                invocation.wantsHelp = true
            } else if !optionsEnded, word.hasPrefix("-"), word != "-" {
                let (name, inlineValue) = split(word)
                guard let spec = lookUp(name, in: chain) else { throw .unknownOption(word) }
                if spec.isFlag {
                    guard inlineValue == nil else { throw .unexpectedValue(option: spec.long) }
                    invocation.flags.insert(spec.long)
                    if spec.isStandalone { return invocation }
                } else {
                    guard let value = inlineValue ?? words.popFirst() else { throw .missingValue(option: spec.long) }
                    if inlineValue == nil, value.hasPrefix("--") { throw .missingValue(option: spec.long) }
                    if let allowed = spec.allowedValues, !allowed.contains(value) {
                        throw .invalidValue(option: spec.long, value: value, allowed: allowed)
                    }
                    invocation.options[spec.long] = value
                    invocation.repeatedOptions[spec.long, default: []].append(value)
                }
            } else if positionals.isEmpty, let child = command.subcommand(named: word) {
                command = child
                chain.append(child)
                invocation.path.append(child.name)
            } else {
                positionals.append(word)
            }
        }

        if invocation.wantsHelp { return invocation }
        if positionals.isEmpty, let name = command.defaultSubcommand, let child = command.subcommand(named: name) {
            command = child
            invocation.path.append(child.name)
        }
        if !command.subcommands.isEmpty, command.arguments.isEmpty {
            if let first = positionals.first {
                throw .unknownSubcommand(first, available: command.subcommands.map(\.name))
            }
            throw .missingSubcommand(available: command.subcommands.map(\.name))
        }
        for (index, spec) in command.arguments.enumerated() {
            if index < positionals.count {
                invocation.arguments[spec.name] = positionals[index]
            } else if !spec.isOptional {
                throw .missingArgument(spec.name)
            }
        }
        if positionals.count > command.arguments.count {
            throw .unexpectedArgument(positionals[command.arguments.count])
        }
        for spec in command.options where spec.isRequired && invocation.options[spec.long] == nil {
            throw .missingOption(spec.long)
        }
        return invocation
    }

    /// The commands `argv` names, from the root, as far as they can be matched — the
    /// command a usage error is about, so its usage line and `--help` hint fit. Never
    /// throws: words it cannot place are skipped, as `parse` would refuse them.
    public func commandPath(for argv: [String]) -> [String] {
        var words = argv[...]
        var command = root
        var chain = [root]
        var path = [root.name]
        if words.first == "help" { words = words.dropFirst() }
        while let word = words.popFirst() {
            if word == "--" { break }
            if word.hasPrefix("-"), word != "-" {
                let (name, inlineValue) = split(word)
                if let spec = lookUp(name, in: chain), !spec.isFlag, inlineValue == nil { _ = words.popFirst() }
            } else if let child = command.subcommand(named: word) {
                command = child
                chain.append(child)
                path.append(child.name)
            } else {
                break
            }
        }
        return path
    }

    /// The command spec an invocation path names.
    public func spec(for path: [String]) -> CommandSpec {
        var command = root
        for name in path.dropFirst() {
            guard let child = command.subcommand(named: name) else { break }
            command = child
        }
        return command
    }

    // MARK: Helpers

    private func helpInvocation(for words: [String]) throws(ParseError) -> Invocation {
        var command = root
        var invocation = Invocation(path: [root.name], wantsHelp: true)
        for word in words {
            guard let child = command.subcommand(named: word) else {
                throw .unknownSubcommand(word, available: command.subcommands.map(\.name))
            }
            command = child
            invocation.path.append(word)
        }
        return invocation
    }

    private func split(_ word: String) -> (name: String, value: String?) {
        guard word.hasPrefix("--"), let equals = word.firstIndex(of: "=") else { return (word, nil) }
        return (String(word[..<equals]), String(word[word.index(after: equals)...]))
    }

    /// The option named `name` on the current command or an ancestor that shares its options.
    private func lookUp(_ name: String, in chain: [CommandSpec]) -> OptionSpec? {
        for (depth, command) in chain.enumerated().reversed() {
            guard depth == chain.count - 1 || command.inheritedByChildren else { continue }
            if let found = command.options.first(where: { matches($0, name) }) { return found }
        }
        return nil
    }

    private func matches(_ spec: OptionSpec, _ name: String) -> Bool {
        if name == "--\(spec.long)" { return true }
        if let short = spec.short, name == "-\(short)" { return true }
        return false
    }
}
