// MARK: - CompletionScript

/// A shell completion script for a program, written from its command declarations.
///
/// The script holds the tree as tables (which words are subcommands where, which
/// options each command takes and which of them take a value, what each value and
/// argument completes to) and a walker that reads the words before the cursor the way
/// the parser does: subcommands first, options anywhere, `--opt value` and
/// `--opt=value`, `--` ending options. It then offers subcommands, options, a closed
/// list of values, paths, or — for `CompletionKind.dynamic` — the lines the program
/// itself prints for `PROGRAM [--account NAME] <helper> <words…> -- PREFIX`.
public struct CompletionScript: Sendable {
    public let parser: CommandLineParser
    /// The hidden command that lists words for `.dynamic` completions.
    public let helperCommand: String

    public init(parser: CommandLineParser, helperCommand: String = "__complete") {
        self.parser = parser
        self.helperCommand = helperCommand
    }

    public func render(for shell: Shell) -> String {
        let table = CompletionTable(root: parser.root)
        switch shell {
        case .bash: return BashCompletion(table: table, helper: helperCommand).script
        case .zsh: return ZshCompletion(table: table, helper: helperCommand).script
        case .fish: return FishCompletion(table: table, helper: helperCommand).script
        }
    }
}

// MARK: - Shell words

enum ShellQuoting {
    /// `'text'` for sh, bash and zsh: a single quote is closed, escaped and reopened.
    static func posix(_ text: String) -> String {
        "'" + text.replacing("'", with: "'\\''") + "'"
    }

    /// `'text'` for fish, where a backslash and a single quote are escaped inside.
    static func fish(_ text: String) -> String {
        "'" + text.replacing("\\", with: "\\\\").replacing("'", with: "\\'") + "'"
    }

    /// A name usable in a shell function's name: `shelf-sync` → `shelf_sync`.
    static func identifier(_ program: String) -> String {
        String(program.map { $0.isLetter || $0.isNumber ? $0 : "_" })
    }

    /// One line of help text, as a description: no tabs or line breaks.
    static func oneLine(_ text: String) -> String {
        String(text.map { $0 == "\t" || $0 == "\n" || $0 == "\r" ? " " : $0 })
    }
}

// MARK: - Cases

extension CompletionTable {
    /// `'a'|'b'` patterns of a `case` (bash, zsh) for every `path|word` pair, or nil.
    static func alternatives(_ keys: [String], quote: (String) -> String, separator: String) -> String? {
        guard !keys.isEmpty else { return nil }
        return keys.map(quote).joined(separator: separator)
    }

    /// `path|name` keys of every (path, subcommand) pair.
    var childKeys: [String] {
        commands.flatMap { command in command.subcommands.map { "\(command.path)|\($0.name)" } }
    }

    /// Groups `(key, kind)` pairs by kind so each kind is written once with all its keys.
    static func grouped(_ pairs: [(key: String, kind: CompletionKind)]) -> [(keys: [String], kind: CompletionKind)] {
        var groups: [(keys: [String], kind: CompletionKind)] = []
        for pair in pairs {
            if let index = groups.firstIndex(where: { $0.kind == pair.kind }) {
                groups[index].keys.append(pair.key)
            } else {
                groups.append(([pair.key], pair.kind))
            }
        }
        return groups
    }
}

// MARK: - Functions bash and zsh share

extension CompletionTable {
    /// The three `case` functions bash and zsh scripts share word for word — whether an
    /// option takes a value, how to complete an option's value, how to complete a
    /// positional argument — differing only in how a pattern is written (`a|b)` in bash,
    /// `(a|b)` in zsh) and in each kind's action.
    /// - Parameters:
    ///   - function: the script's function prefix (`_shelf`).
    ///   - pattern: writes one `case` pattern from its quoted alternatives.
    ///   - action: the shell code that completes one kind of value.
    func sharedCaseFunctions(
        function f: String, quote q: (String) -> String, pattern: (String) -> String, action: (CompletionKind) -> String
    ) -> String {
        var out = """
        # Whether option $2 of the command at path $1 takes a value.
        \(f)_takes_value() {
            case "$1|$2" in

        """
        if let patterns = Self.alternatives(valuedOptions.map { "\($0.path)|\($0.name)" }, quote: q, separator: "|") {
            out += "        \(pattern(patterns)) return 0 ;;\n"
        }
        out += """
            esac
            return 1
        }

        # Completes the value of option $2 of the command at path $1.
        \(f)_value() {
            case "$1|$2" in

        """
        for group in Self.grouped(optionValues.map { ("\($0.path)|\($0.name)", $0.kind) }) {
            out += "        \(pattern(group.keys.map(q).joined(separator: "|"))) \(action(group.kind)) ;;\n"
        }
        out += """
            esac
        }

        # Completes positional argument $2 (from 0) of the command at path $1.
        \(f)_argument() {
            case "$1|$2" in

        """
        for group in Self.grouped(argumentValues.map { ("\($0.path)|\($0.index)", $0.kind) }) {
            out += "        \(pattern(group.keys.map(q).joined(separator: "|"))) \(action(group.kind)) ;;\n"
        }
        out += """
            esac
        }


        """
        return out
    }
}
