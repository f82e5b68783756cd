// MARK: - ManPage

/// A section 1 man page (roff, man(7) macros) written from a program's command
/// declarations: NAME, SYNOPSIS, DESCRIPTION, OPTIONS, COMMANDS (every visible command
/// with its usage, arguments, options and examples), the root's sections under their
/// standard headings (EXIT STATUS, ENVIRONMENT, FILES, then any other), EXAMPLES and
/// SEE ALSO. It says what `--help` says, from the same source.
public struct ManPage: Sendable {
    public let parser: CommandLineParser
    /// The version line in the footer, e.g. `shelf 0.1.0`.
    public let source: String
    /// The date in the footer (`YYYY-MM-DD`); the caller picks it, so builds can be
    /// reproducible (`SOURCE_DATE_EPOCH`).
    public let date: String
    /// Other pages, e.g. `shelf-sync(1)`.
    public let seeAlso: [String]

    public init(parser: CommandLineParser, source: String, date: String, seeAlso: [String] = []) {
        self.parser = parser
        self.source = source
        self.date = date
        self.seeAlso = seeAlso
    }

    private var help: HelpRenderer { HelpRenderer(parser: parser) }

    /// The footer's date for a moment in seconds since 1970 (UTC): `SOURCE_DATE_EPOCH`
    /// when the build sets it, so the same sources give the same page; else now.
    public static func date(environment: [String: String], now: Int64) -> String {
        let seconds = environment["SOURCE_DATE_EPOCH"].flatMap { Int64($0) }.flatMap { $0 >= 0 ? $0 : nil } ?? now
        // Days since 1970-01-01 to a civil date (H. Hinnant's algorithm).
        let days = seconds / 86_400 + 719_468
        let era = days / 146_097
        let dayOfEra = days - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        func two(_ value: Int64) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(year)-\(two(month))-\(two(day))"
    }

    public func render() -> String {
        let root = parser.root
        var out = ".\\\" Written from \(Roff.escape(root.name))'s command declarations; do not edit.\n"
        out += ".TH \(Roff.quoted(root.name.uppercased())) 1 \(Roff.quoted(date)) \(Roff.quoted(source)) \"User Commands\"\n"
        // No hyphenation: option names and variables stay whole.
        out += ".nh\n"
        out += ".SH NAME\n\(Roff.escape(root.name)) \\- \(Roff.escape(Self.sentence(root.abstract)))\n"

        out += ".SH SYNOPSIS\n"
        out += synopsis(root, path: [root.name])

        out += ".SH DESCRIPTION\n"
        out += Roff.paragraphs(root.abstract)
        if let discussion = root.discussion { out += ".PP\n" + Roff.paragraphs(discussion) }
        if !root.visibleSubcommands.isEmpty {
            out += ".PP\nEach command is described under COMMANDS; \\fB\(Roff.escape(root.name)) help\\fR \\fIcommand\\fR and \\fB\(Roff.escape(root.name))\\fR \\fIcommand\\fR \\fB\\-\\-help\\fR say the same at a terminal.\n"
        }

        out += ".SH OPTIONS\n"
        if root.inheritedByChildren, !root.visibleSubcommands.isEmpty {
            out += "These options are accepted by every command, before or after its name.\n"
        }
        for option in root.visibleOptions { out += Self.option(option) }
        out += ".TP\n\\fB\\-h\\fR, \\fB\\-\\-help\\fR\nShow help information.\n"

        if !root.visibleSubcommands.isEmpty {
            out += ".SH COMMANDS\n"
            for child in root.visibleSubcommands { out += commands(child, path: [root.name, child.name]) }
        }

        let standard: [HelpSection.Role] = [.exitStatus, .environment, .files]
        for role in standard {
            for section in root.sections where section.role == role { out += Self.section(section) }
        }
        for section in root.sections where section.role == .other { out += Self.section(section) }

        if !root.examples.isEmpty {
            out += ".SH EXAMPLES\n"
            out += Self.examples(root.examples)
        }
        if !seeAlso.isEmpty {
            out += ".SH SEE ALSO\n"
            out += seeAlso.map { reference -> String in
                guard let open = reference.firstIndex(of: "(") else { return "\\fB\(Roff.escape(reference))\\fR" }
                return "\\fB\(Roff.escape(String(reference[..<open])))\\fR\(Roff.escape(String(reference[open...])))"
            }.joined(separator: ",\n") + "\n"
        }
        return out
    }

    // MARK: Parts

    private func synopsis(_ command: CommandSpec, path: [String]) -> String {
        ".nf\n" + Roff.escape(help.usage(for: path)) + "\n.fi\n"
    }

    /// A command's subsection, then its subcommands'.
    private func commands(_ command: CommandSpec, path: [String]) -> String {
        var out = ".SS \(Roff.quoted(path.dropFirst().joined(separator: " ")))\n"
        out += Roff.paragraphs(command.abstract)
        if !command.aliases.isEmpty {
            let parent = path.dropFirst().dropLast().joined(separator: " ")
            let forms = command.aliases.map { "\\fB\(Roff.escape((parent.isEmpty ? "" : parent + " ") + $0))\\fR" }
            out += ".PP\nAlso accepted, as an older name: \(forms.joined(separator: ", ")).\n"
        }
        out += ".PP\n.RS 4\n" + synopsis(command, path: path) + ".RE\n"
        if let discussion = command.discussion { out += ".PP\n" + Roff.paragraphs(discussion) }
        if !command.arguments.isEmpty {
            out += ".PP\nArguments:\n.RS 4\n"
            for argument in command.arguments {
                out += ".TP\n\\fI<\(Roff.escape(argument.name))>\\fR\n\(Roff.escape(argument.help))\n"
            }
            out += ".RE\n"
        }
        if !command.visibleOptions.isEmpty {
            out += ".PP\nOptions:\n.RS 4\n"
            for option in command.visibleOptions { out += Self.option(option) }
            out += ".RE\n"
        }
        if !command.visibleSubcommands.isEmpty {
            let names = command.visibleSubcommands.map { sub in
                "\\fB\(Roff.escape(sub.name))\\fR"
                    + (sub.aliases.isEmpty ? "" : " (also \(sub.aliases.map { "\\fB\(Roff.escape($0))\\fR" }.joined(separator: ", ")))")
            }.joined(separator: ", ")
            out += ".PP\nSubcommands: \(names)"
            if let name = command.defaultSubcommand { out += " (\\fB\(Roff.escape(name))\\fR when none is named)" }
            out += ".\n"
        }
        if !command.examples.isEmpty {
            out += ".PP\nExamples:\n.RS 4\n" + Self.examples(command.examples) + ".RE\n"
        }
        for child in command.visibleSubcommands { out += commands(child, path: path + [child.name]) }
        return out
    }

    private static func option(_ option: OptionSpec) -> String {
        var term = option.short.map { "\\fB\\-\(Roff.escape(String($0)))\\fR, " } ?? ""
        term += "\\fB\\-\\-\(Roff.escape(option.long))\\fR"
        if let value = option.valueName { term += " \\fI\(Roff.escape(value))\\fR" }
        var text = Roff.escape(option.help)
        if option.isRequired { text += " Required." }
        if option.isRepeatable { text += " May be given more than once." }
        return ".TP\n\(term)\n\(text)\n"
    }

    private static func section(_ section: HelpSection) -> String {
        var out = ".SH \(Roff.escape(section.manTitle))\n"
        for entry in section.entries {
            out += ".TP\n\\fB\(Roff.escape(entry.term))\\fR\n\(Roff.escape(entry.text))\n"
        }
        let lines = section.lines.drop { $0.isEmpty }
        if !lines.isEmpty {
            out += ".PP\n.nf\n" + lines.map(Roff.escape).joined(separator: "\n") + "\n.fi\n"
        }
        return out
    }

    private static func examples(_ examples: [Example]) -> String {
        examples.map { example in
            ".PP\n\(Roff.escape(example.summary)):\n.RS 4\n.nf\n\\fB\(Roff.escape(example.commandLine))\\fR\n.fi\n.RE\n"
        }.joined()
    }

    /// NAME's description: the abstract without its final full stop.
    private static func sentence(_ abstract: String) -> String {
        abstract.hasSuffix(".") ? String(abstract.dropLast()) : abstract
    }
}

// MARK: - Roff

/// Text made safe for roff: backslashes and hyphens escaped (`\e`, `\-`, so options
/// stay searchable and copyable), and a line that would start with a control character
/// (`.` or `'`) protected with `\&`.
enum Roff {
    static func escape(_ text: String) -> String {
        var out = ""
        for character in text {
            switch character {
            case "\\": out += "\\e"
            case "-": out += "\\-"
            case "\n": out += "\n"
            default: out.append(character)
            }
        }
        return out.split(separator: "\n", omittingEmptySubsequences: false).map { line in
            line.hasPrefix(".") || line.hasPrefix("'") ? "\\&" + line : String(line)
        }.joined(separator: "\n")
    }

    /// An argument of a macro line, in double quotes (a quote inside is doubled).
    static func quoted(_ text: String) -> String {
        "\"" + escape(text).replacing("\"", with: "\"\"") + "\""
    }

    /// Text written with line breaks inside paragraphs and blank lines between them:
    /// each paragraph filled as one, `.PP` between them.
    static func paragraphs(_ text: String) -> String {
        var paragraphs: [[Substring]] = [[]]
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.allSatisfy(\.isWhitespace) {
                if !(paragraphs.last?.isEmpty ?? true) { paragraphs.append([]) }
            } else {
                paragraphs[paragraphs.count - 1].append(line)
            }
        }
        return paragraphs.filter { !$0.isEmpty }.map { lines in
            escape(lines.map { $0.trimmingWhitespace() }.joined(separator: " ")) + "\n"
        }.joined(separator: ".PP\n")
    }
}

extension Substring {
    fileprivate func trimmingWhitespace() -> String {
        String(drop { $0.isWhitespace }.reversed().drop { $0.isWhitespace }.reversed())
    }
}
