import Foundation
import Testing
import TestSupport

/// Help on every level, the version, and every kind of wrong command line.
@Suite("shelf: help, version and usage errors")
struct HelpAndUsageTests {
    let sandbox: ShelfSandbox

    init() throws {
        sandbox = try ShelfSandbox()
    }

    private func expected(_ name: String) throws -> String {
        String(decoding: try FixtureFiles.data("cli/\(name).txt"), as: UTF8.self)
    }

    // MARK: Help

    @Test func rootHelpListsEveryCommandAndTheExitCodes() throws {
        let run = try sandbox.runBinary("--help")
        #expect(run.status == 0, "\(run)")
        #expect(run.stdout == (try expected("help-root")))
        #expect(run.stderr.isEmpty)
        #expect(try sandbox.runBinary("-h").stdout == run.stdout)
        #expect(try sandbox.runBinary("help").stdout == run.stdout)
    }

    @Test func leafHelpShowsItsOptionsAndTheInheritedOnes() throws {
        let run = try sandbox.runBinary("book", "add", "--help")
        #expect(run.status == 0, "\(run)")
        #expect(run.stdout == (try expected("help-book-add")))
        #expect(try sandbox.runBinary("help", "book", "add").stdout == run.stdout)
        #expect(try sandbox.runBinary("book", "add", "--title", "Dune", "-h").stdout == run.stdout)
    }

    @Test func groupHelpListsItsSubcommands() throws {
        let run = try sandbox.runBinary("help", "account")
        #expect(run.status == 0)
        #expect(run.stdout.contains("USAGE: shelf account <subcommand>"))
        #expect(run.stdout.contains("  add                     Add an account."))
        #expect(run.stdout.contains("See 'shelf help account <subcommand>' for detailed help."))
        #expect(!run.stdout.contains("EXIT CODES"))
    }

    /// Every command, found by walking the help from the root, has examples; each one is a
    /// line of `shelf` naming that command, and is accepted (asked with `--help`, so
    /// nothing runs: an unknown command or option, a missing value or a value not
    /// allowed would be refused, 64). How every example's words convert is the parser's
    /// own test (ArgumentParsingTests).
    @Test func everyCommandHasExamplesThatNameItAndParse() throws {
        var pending: [[String]] = [[]]
        var examined = 0
        while let path = pending.popLast() {
            let help = try sandbox.runBinary(["help"] + path)
            #expect(help.status == 0, "\(help)")
            let sections = Self.sections(help.stdout)
            let children = (sections["SUBCOMMANDS"] ?? []).compactMap { line -> String? in
                let word = line.trimmingCharacters(in: .whitespaces).split(separator: " ").first.map(String.init)
                return word == "See" ? nil : word
            }
            pending += children.map { path + [$0] }
            guard children.isEmpty || path.isEmpty else { continue }
            let lines = (sections["EXAMPLES"] ?? []).map { $0.trimmingCharacters(in: .whitespaces) }
            let commandLines = lines.filter { !$0.hasSuffix(":") }
            #expect(!commandLines.isEmpty, "shelf \(path.joined(separator: " ")) has no examples")
            for line in commandLines {
                // Environment assignments before the program, as a shell takes them.
                let words = ShellWords.split(line).drop { $0.contains("=") && !$0.hasPrefix("-") }
                #expect(words.first == "shelf", "\(line)")
                let arguments = Array(words.dropFirst())
                #expect(path.allSatisfy(arguments.contains), "'\(line)' is not an example of shelf \(path.joined(separator: " "))")
                let run = try sandbox.runBinary(arguments + ["--help"])
                // NB: the root's examples show other commands at work.
                #expect(run.status == 0 && (path.isEmpty || run.stdout == help.stdout), "'\(line)' is refused or names another command: \(run)")
                examined += 1
            }
        }
        #expect(examined >= 45)
    }

    /// The lines of each `TITLE:` section of a help text.
    private static func sections(_ help: String) -> [String: [String]] {
        var sections: [String: [String]] = [:]
        var title: String?
        for line in help.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            let head = line.prefix { $0 != ":" }
            if head.count < line.count, !head.isEmpty, head.allSatisfy({ $0.isUppercase || $0 == " " }) {
                title = String(head)
                sections[title ?? "", default: []] = []
            } else if let title, !line.isEmpty {
                sections[title, default: []].append(line)
            }
        }
        return sections
    }

    @Test func theVersionAnswersAlone() throws {
        let run = try sandbox.runBinary("--version")
        #expect(run.status == 0)
        #expect(run.stdout == "shelf 0.1.0\n")
        #expect(try sandbox.runBinary("--json", "--version").stdout == "shelf 0.1.0\n")
        // NB: nothing was opened: no store, no config.
        #expect(!FileManager.default.fileExists(atPath: sandbox.dataHome.path))
    }

    // MARK: Usage errors

    /// Every kind of parse error exits 64 with the message, the usage line of the command
    /// it is about and where to read more, on standard error only.
    @Test(arguments: [
        (["books", "--nope"], "Error: Unknown option '--nope'", "Usage: shelf books [<options>] [<query>]", "See 'shelf books --help'."),
        (["book", "add", "--title"], "Error: Missing value for '--title'",
         "Usage: shelf book add --title <title> [<options>]", "See 'shelf book add --help'."),
        (["book", "add", "--author", "Frank Herbert"], "Error: Missing required option '--title'",
         "Usage: shelf book add --title <title> [<options>]", "See 'shelf book add --help'."),
        (["book", "show"], "Error: Missing expected argument '<id>'", "Usage: shelf book show <id>", "See 'shelf book show --help'."),
        (["books", "dune", "extra"], "Error: Unexpected argument 'extra'", "Usage: shelf books [<options>] [<query>]", "See 'shelf books --help'."),
        (["books", "dune", "--search", "dune"], "Error: Give the text once: as QUERY or with --search",
         "Usage: shelf books [<options>] [<query>]", "See 'shelf books --help'."),
        (["task", "add"], "Error: Missing required option '--title'", "Usage: shelf task add [<options>] [<title>]", "See 'shelf task add --help'."),
        (["boks"], "Error: Unknown command 'boks'; did you mean 'books'?", "Usage: shelf [<options>] <subcommand>", "See 'shelf --help'."),
        (["shelve"], "Error: Unknown command 'shelve'; expected one of: books, book,", "Usage: shelf [<options>] <subcommand>", "See 'shelf --help'."),
        (["book", "ad", "--title", "Dune"], "Error: Unknown command 'ad'; did you mean 'add'?", "Usage: shelf book <subcommand>",
         "See 'shelf book --help'."),
        (["books", "--serch", "dune"], "Error: Unknown option '--serch'; did you mean '--search'?", "Usage: shelf books [<options>] [<query>]",
         "See 'shelf books --help'."),
        (["--jsno", "books"], "Error: Unknown option '--jsno'; did you mean '--json'?", "Usage: shelf books [<options>] [<query>]",
         "See 'shelf books --help'."),
        (["book", "lend"], "Error: Unknown command 'lend'; expected one of: show, add, edit, finish, unfinish, rm",
         "Usage: shelf book <subcommand>", "See 'shelf book --help'."),
        (["book"], "Error: Missing command; expected one of: show, add", "Usage: shelf book <subcommand>", "See 'shelf book --help'."),
        (["settings", "--show-finished", "maybe"], "Error: Invalid value 'maybe' for '--show-finished'; expected one of: on, off",
         "Usage: shelf settings [<options>]", "See 'shelf settings --help'."),
        (["--json=yes", "books"], "Error: '--json' is a flag and takes no value", "Usage: shelf books [<options>] [<query>]", "See 'shelf books --help'."),
        (["settings", "--daily-goal", "soon"], "Error: Invalid value 'soon' for '--daily-goal': expected a whole number",
         "Usage: shelf settings [<options>]", "See 'shelf settings --help'."),
        (["retry", "abc"], "Error: Invalid failed-change id 'abc'", "Usage: shelf retry <id>", "See 'shelf retry --help'."),
        (["resolve", "shelves/b-1", "--keep", "local"], "Error: Invalid record 'shelves/b-1': expected ID or COLLECTION/ID",
         "Usage: shelf resolve [<options>] <id>", "See 'shelf resolve --help'."),
        (["book", "edit", "b-1"], "Error: Nothing to change: give --title, --author or both",
         "Usage: shelf book edit [<options>] <id>", "See 'shelf book edit --help'."),
    ])
    func aWrongLineIsAUsageError(arguments: [String], message: String, usage: String, hint: String) throws {
        let run = try sandbox.runBinary(arguments)
        #expect(run.status == 64, "\(run)")
        #expect(run.stdout.isEmpty, "\(run)")
        let lines = run.stderr.split(separator: "\n").map(String.init)
        #expect(lines.count == 3, "\(run)")
        #expect(lines.first?.hasPrefix(message) == true, "\(run)")
        #expect(lines.dropFirst().first == usage, "\(run)")
        #expect(lines.last?.trimmingCharacters(in: .whitespaces) == hint, "\(run)")
    }
}
