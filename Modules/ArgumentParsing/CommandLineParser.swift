// MARK: - CommandLineParser

/// Matches argv against the tree of command declarations and makes the commands it
/// names, every parameter typed.
///
/// Rules, in the manner of swift-argument-parser: subcommand names come first;
/// options may appear anywhere after their command, as `--name value`, `--name=value`
/// or `-n value`; options of a command that shares them are accepted by every command
/// below it; `--` ends options; `-h`/`--help` anywhere asks for help.
/// `help <command…>` at the root is the same as `<command…> --help`.
public struct CommandLineParser: Sendable {
    public let root: CommandSpec

    public init(root: any ParsableCommand.Type) {
        self.root = CommandSpec(root)
    }

    public func parse(_ argv: [String]) throws(ParseError) -> ParsedCommandLine {
        var words = argv[...]
        if words.first == "help" {
            return try helpRequest(for: Array(words.dropFirst()))
        }
        var command = root
        var chain = [root]
        var given = [GivenWords()]
        var positionals: [String] = []
        var optionsEnded = false
        var wantsHelp = false

        while let word = words.popFirst() {
            if !optionsEnded, word == "--" {
                optionsEnded = true
            } else if !optionsEnded, word == "-h" || word == "--help" {
                wantsHelp = true
            } else if !optionsEnded, word.hasPrefix("-"), word != "-" {
                let (name, inlineValue) = split(word)
                guard let (depth, spec) = lookUp(name, in: chain) else {
                    // NB: in a group, a word before the option that names no subcommand
                    // is the mistake (`book ad --title …`): the option may be its.
                    if command.arguments.isEmpty, command.hasSubcommands, let first = positionals.first {
                        throw .unknownSubcommand(first, available: command.visibleSubcommands.map(\.name))
                    }
                    throw .unknownOption(name, available: optionNames(in: chain))
                }
                if spec.isFlag {
                    guard inlineValue == nil else { throw .unexpectedValue(option: spec.long) }
                    given[depth].options[spec.binding.property, default: []].append(word)
                    if spec.isStandalone, !wantsHelp {
                        return try standalone(chain: Array(chain[...depth]), given: Array(given[...depth]))
                    }
                } else {
                    guard let value = inlineValue ?? words.popFirst() else { throw .missingValue(option: spec.long) }
                    if inlineValue == nil, value.hasPrefix("--") { throw .missingValue(option: spec.long) }
                    if let allowed = spec.allowedValues, !allowed.contains(value) {
                        throw .invalidValue(option: spec.long, value: value, allowed: allowed)
                    }
                    given[depth].options[spec.binding.property, default: []].append(value)
                }
            } else if positionals.isEmpty, let child = command.subcommand(named: word) {
                command = child
                chain.append(child)
                given.append(GivenWords())
            } else {
                positionals.append(word)
            }
        }

        if wantsHelp { return ParsedCommandLine(path: chain.map(\.name), wantsHelp: true, commands: []) }
        if positionals.isEmpty, let name = command.defaultSubcommand, let child = command.subcommand(named: name) {
            command = child
            chain.append(child)
            given.append(GivenWords())
        }
        if command.hasSubcommands, command.arguments.isEmpty {
            if let first = positionals.first {
                throw .unknownSubcommand(first, available: command.visibleSubcommands.map(\.name))
            }
            throw .missingSubcommand(available: command.visibleSubcommands.map(\.name))
        }
        for (index, spec) in command.arguments.enumerated() {
            if index < positionals.count {
                if let allowed = spec.allowedValues, !allowed.contains(positionals[index]) {
                    throw .invalid("Invalid value '\(positionals[index])' for <\(spec.name)>; expected one of: \(allowed.joined(separator: ", "))")
                }
                given[given.count - 1].arguments[spec.binding.property] = positionals[index]
            } else if !spec.isOptional {
                throw .missingArgument(spec.name)
            }
        }
        if positionals.count > command.arguments.count {
            throw .unexpectedArgument(positionals[command.arguments.count])
        }
        for spec in command.options where spec.isRequired && given[given.count - 1].options[spec.binding.property] == nil {
            throw .missingOption(spec.long)
        }

        var commands: [any ParsableCommand] = []
        for (spec, words) in zip(chain, given).reversed() {
            commands.insert(try make(spec, from: words), at: 0)
        }
        for made in commands { try made.validate() }
        return ParsedCommandLine(path: chain.map(\.name), wantsHelp: false, commands: commands)
    }

    /// The commands `argv` names, from the root, as far as they can be matched — the
    /// command a usage error is about, so its usage line and `--help` hint fit. Never
    /// throws: words it cannot place are skipped, as `parse` would refuse them.
    public func commandPath(for argv: [String]) -> [String] {
        var words = argv[...]
        var command = root
        var chain = [root]
        if words.first == "help" { words = words.dropFirst() }
        while let word = words.popFirst() {
            if word == "--" { break }
            if word.hasPrefix("-"), word != "-" {
                let (name, inlineValue) = split(word)
                if let (_, spec) = lookUp(name, in: chain), !spec.isFlag, inlineValue == nil { _ = words.popFirst() }
            } else if let child = command.subcommand(named: word) {
                command = child
                chain.append(child)
            } else {
                break
            }
        }
        return chain.map(\.name)
    }

    /// The command spec a path of names from the root names.
    public func spec(for path: [String]) -> CommandSpec {
        var command = root
        for name in path.dropFirst() {
            guard let child = command.subcommand(named: name) else { break }
            command = child
        }
        return command
    }

    // MARK: Making commands

    /// The words given to one command of the chain, by property.
    private struct GivenWords {
        var options: [String: [String]] = [:]
        var arguments: [String: String] = [:]
    }

    /// The command `spec` declares, with the values of `words` and the defaults of
    /// what was not given.
    private func make(_ spec: CommandSpec, from words: GivenWords) throws(ParseError) -> any ParsableCommand {
        var values: [String: any Sendable] = [:]
        for option in spec.options {
            let given = words.options[option.binding.property] ?? []
            values[option.binding.property] = try value(option.binding, given, display: "'--\(option.long)'", missing: .missingOption(option.long))
        }
        for argument in spec.arguments {
            let word = words.arguments[argument.binding.property]
            values[argument.binding.property] = try value(
                argument.binding, word.map { [$0] } ?? [], display: "<\(argument.name)>", missing: .missingArgument(argument.name))
        }
        return try ParameterDecoder.command(spec.type, values: values)
    }

    /// - Parameter missing: the error when a required parameter has no words; already
    ///   thrown by `parse` for the command that runs, so met only by an ancestor's.
    private func value(_ binding: ValueBinding, _ words: [String], display: String, missing: ParseError) throws(ParseError) -> any Sendable {
        if !words.isEmpty { return try binding.make(words, display) }
        guard let absent = binding.absentValue else { throw missing }
        return absent
    }

    /// A standalone flag (`--version`) ends parsing: the commands down to the one that
    /// declares it are made from what was given so far, and nothing else is checked.
    private func standalone(chain: [CommandSpec], given: [GivenWords]) throws(ParseError) -> ParsedCommandLine {
        var commands: [any ParsableCommand] = []
        for (spec, words) in zip(chain, given) { commands.append(try make(spec, from: words)) }
        return ParsedCommandLine(path: chain.map(\.name), wantsHelp: false, commands: commands)
    }

    private func helpRequest(for words: [String]) throws(ParseError) -> ParsedCommandLine {
        var command = root
        var path = [root.name]
        for word in words {
            guard let child = command.subcommand(named: word) else {
                throw .unknownSubcommand(word, available: command.visibleSubcommands.map(\.name))
            }
            command = child
            path.append(word)
        }
        return ParsedCommandLine(path: path, wantsHelp: true, commands: [])
    }

    // MARK: Helpers

    private func split(_ word: String) -> (name: String, value: String?) {
        guard word.hasPrefix("--"), let equals = word.firstIndex(of: "=") else { return (word, nil) }
        return (String(word[..<equals]), String(word[word.index(after: equals)...]))
    }

    /// The option named `name` on the current command or an ancestor that shares its
    /// options, with the depth of the command that declares it.
    private func lookUp(_ name: String, in chain: [CommandSpec]) -> (Int, OptionSpec)? {
        for (depth, command) in chain.enumerated().reversed() {
            guard depth == chain.count - 1 || command.inheritedByChildren else { continue }
            if let found = command.options.first(where: { matches($0, name) }) { return (depth, found) }
        }
        return nil
    }

    /// The long names a reader may use at the end of `chain` (its own options, the
    /// shared ones of its ancestors, `--help`): the candidates of a suggestion.
    private func optionNames(in chain: [CommandSpec]) -> [String] {
        var names: [String] = []
        for (depth, command) in chain.enumerated().reversed() where depth == chain.count - 1 || command.inheritedByChildren {
            names += command.visibleOptions.map { "--\($0.long)" }
        }
        return names + ["--help"]
    }

    private func matches(_ spec: OptionSpec, _ name: String) -> Bool {
        if name == "--\(spec.long)" { return true }
        if let short = spec.short, name == "-\(short)" { return true }
        return false
    }
}

// MARK: - ParsedCommandLine

/// A command line that matched the declarations: which commands, with which values.
public struct ParsedCommandLine: Sendable {
    /// Command names from the root, e.g. `["shelf", "book", "add"]`.
    public var path: [String]
    /// `-h`/`--help` was given (or `help <command>` at the root): show help for `path`;
    /// nothing was made or checked then.
    public var wantsHelp: Bool
    /// The command of each name of `path`, from the root, each with its own options
    /// (the root's shared ones in the root). Empty when `wantsHelp`. After a standalone
    /// flag (`--version`), only the commands down to the one that declares it.
    public var commands: [any ParsableCommand]

    /// The command the line names: the one to run.
    public var command: (any ParsableCommand)? { commands.last }

    /// The command of type `type` on the path, e.g. the root with the shared options.
    public func command<Command: ParsableCommand>(_ type: Command.Type) -> Command? {
        commands.lazy.compactMap { $0 as? Command }.first
    }
}
