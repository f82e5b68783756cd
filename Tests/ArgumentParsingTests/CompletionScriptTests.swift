import ArgumentParsing
import Foundation
import Testing
import TestSupport

// MARK: - A tree with every kind of completion

private enum Format: String, CaseIterable, ExpressibleByArgument {
    case json, csv
}

private struct Lib: ParsableCommand {
    static let configuration = CommandConfiguration(
        name: "lib", abstract: "A library: books and a 'quoted' thing.",
        discussion: "Everything is local.\n\n.A line that starts with a dot, and a \\backslash.",
        examples: [Example("Show a book", "lib --account work book show b-1")],
        subcommands: [Book.self, Export.self, Words.self], sharesOptionsWithSubcommands: true,
        sections: [
            .exitCodes([.init("0", "fine"), .init("64", "usage")]),
            .environment([.init("LIB_HOME", "where it lives")]),
            .files([.init("~/.lib/store", "the store")]),
            HelpSection(title: "CRON", lines: ["*/5 * * * * lib sync --every 5m"]),
        ])
    @Option(value: "name", help: "The account.", completion: .dynamic(["accounts"])) var account: String?
    @Flag(help: "Print JSON.") var json = false
    @Flag(help: "Show the version.", standalone: true) var version = false
    @Flag(help: "Internal.", standalone: true, hidden: true) var generateMan = false
}

private struct Book: ParsableCommand {
    static let configuration = CommandConfiguration(name: "book", abstract: "One book.", subcommands: [Show.self, Borrow.self])
    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(
            name: "show", abstract: "Show a book.", examples: [Example("One book", "lib book show b-1")])
        @Argument(help: "The book's id.", completion: .dynamic(["ids", "books"])) var id: String
    }
    struct Borrow: ParsableCommand {
        static let configuration = CommandConfiguration(name: "borrow", abstract: "Borrow a book.")
        @Argument(help: "The book's id.", completion: .dynamic(["ids", "books"])) var id: String
        @Option(value: "days", help: "For how long.") var days = 14
    }
}

private struct Export: ParsableCommand {
    static let configuration = CommandConfiguration(name: "export", abstract: "Export everything.")
    @Option(value: "json|csv", help: "The format.") var format = Format.json
    @Option(value: "file", help: "Where to write.", completion: .file) var output: String?
}

private struct Words: ParsableCommand {
    static let configuration = CommandConfiguration(name: "__complete", abstract: "Words.", isHidden: true)
}

private let parser = CommandLineParser(root: Lib.self)

// MARK: - Shells

/// Runs a shell script in a folder of its own, with a fake `lib` that answers the
/// dynamic completions and records how it was asked.
private final class ShellBench {
    let folder: URL

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("completion-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        // The program the scripts call back: it logs its argv and lists two books.
        let program = """
            #!/bin/sh
            printf '%s\\n' "$*" >> "\(folder.path)/calls"
            if [ "$1 $2" = "--account work" ]; then shift 2; fi
            case "$1 $2" in
              "__complete ids") printf 'b-1\\tDune\\nb-2\\tEmma\\nc-3\\tKindred\\n' ;;
              "__complete accounts") printf 'home\\nwork\\n' ;;
            esac
            """
        try Data(program.utf8).write(to: folder.appendingPathComponent("lib"))
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: folder.appendingPathComponent("lib").path)
        try Data().write(to: folder.appendingPathComponent("library.csv"))
    }

    deinit { try? FileManager.default.removeItem(at: folder) }

    var calls: [String] {
        (try? String(contentsOf: folder.appendingPathComponent("calls"), encoding: .utf8))?.split(separator: "\n").map(String.init) ?? []
    }

    func run(_ shell: String, _ arguments: [String]) throws -> ProcessResult {
        try ProcessRunner.run(
            URL(fileURLWithPath: shell), arguments,
            environment: ["PATH": "\(folder.path):/usr/bin:/bin", "HOME": folder.path, "LANG": "C.UTF-8"])
    }

    /// What bash's completion function offers for the words typed (the last is the
    /// word under the cursor), as `complete -F` would call it.
    func bash(_ words: [String]) throws -> [String] {
        let script = folder.appendingPathComponent("lib.bash")
        try Data(CompletionScript(parser: parser).render(for: .bash).utf8).write(to: script)
        let quoted = words.map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }.joined(separator: " ")
        let driver = """
            cd '\(folder.path)' || exit 1
            source '\(script.path)' || exit 1
            COMP_WORDS=(\(quoted)); COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 )); COMPREPLY=()
            _lib
            printf '%s\\n' "${COMPREPLY[@]}"
            """
        let run = try self.run("/bin/bash", ["--norc", "--noprofile", "-c", driver])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.isEmpty, "\(run.stderr)")
        return run.stdout.split(separator: "\n").map(String.init)
    }

    /// What fish offers for a command line, through its own `complete -C`.
    func fish(_ line: String) throws -> [String] {
        let script = folder.appendingPathComponent("lib.fish")
        try Data(CompletionScript(parser: parser).render(for: .fish).utf8).write(to: script)
        let run = try self.run("/usr/bin/fish", ["--no-config", "-c", "cd '\(folder.path)'; source '\(script.path)'; complete -C '\(line)'"])
        #expect(run.status == 0, "\(run.stderr)")
        return run.stdout.split(separator: "\n").map { String($0.split(separator: "\t", omittingEmptySubsequences: false)[0]) }
    }
}

@Suite("Completion scripts from the declarations")
struct CompletionScriptTests {
    @Test func bashCompletesCommandsSubcommandsAndOptions() throws {
        let bench = try ShellBench()
        #expect(try bench.bash(["lib", ""]) == ["book", "export", "help"])
        // `help COMMAND…` names commands only, the hidden one never.
        #expect(try bench.bash(["lib", "help", ""]) == ["book", "export"])
        #expect(try bench.bash(["lib", "help", "book", ""]) == ["show", "borrow"])
        #expect(try bench.bash(["lib", "help", "book", "show", ""]).isEmpty)
        #expect(try bench.bash(["lib", "b"]) == ["book"])
        #expect(try bench.bash(["lib", "book", ""]) == ["show", "borrow"])
        #expect(try bench.bash(["lib", "--json", "book", "bo"]) == ["borrow"])
        // Its own options, then the shared ones (never the hidden or the standalone ones
        // the root alone takes), then help.
        #expect(try bench.bash(["lib", "book", "borrow", "--"]) == ["--days", "--account", "--json", "--help"])
        #expect(try bench.bash(["lib", "-"]) == ["--account", "--json", "--version", "--help", "-h"])
    }

    @Test func bashCompletesValuesFromTheirKind() throws {
        let bench = try ShellBench()
        #expect(try bench.bash(["lib", "export", "--format", ""]) == ["json", "csv"])
        // bash splits `--format=c` at the `=`.
        #expect(try bench.bash(["lib", "export", "--format", "=", "c"]) == ["csv"])
        #expect(try bench.bash(["lib", "export", "--format", "="]) == ["json", "csv"])
        #expect(try bench.bash(["lib", "export", "--output", "lib"]).sorted() == ["lib", "lib.bash", "library.csv"])
        // An option's value is not taken for a subcommand or an argument.
        #expect(try bench.bash(["lib", "--account", "book", "book", ""]) == ["show", "borrow"])
    }

    @Test func bashAsksTheProgramForIdsAndPassesTheAccountOn() throws {
        let bench = try ShellBench()
        #expect(try bench.bash(["lib", "book", "show", "b"]) == ["b-1", "b-2", "c-3"])
        #expect(bench.calls.last == "__complete ids books -- b")
        // The program as typed, `~` included.
        #expect(try bench.bash(["~/lib", "book", "show", "c"]) == ["b-1", "b-2", "c-3"])
        #expect(bench.calls.count == 2)
        #expect(try bench.bash(["lib", "--account", "work", "book", "borrow", "--days", "3", ""]) == ["b-1", "b-2", "c-3"])
        #expect(bench.calls.last == "--account work __complete ids books -- ")
        #expect(try bench.bash(["lib", "--account", ""]) == ["home", "work"])
        // A second argument has nothing to complete; after `--`, a word is an argument.
        #expect(try bench.bash(["lib", "book", "show", "b-1", ""]).isEmpty)
        #expect(try bench.bash(["lib", "book", "show", "--", "-"]) == ["b-1", "b-2", "c-3"])
    }

    @Test func fishCompletesThroughItsOwnMachinery() throws {
        let bench = try ShellBench()
        #expect(try bench.fish("lib b") == ["book"])
        #expect(try bench.fish("lib help ") == ["book", "export"])
        #expect(try bench.fish("lib help book s") == ["show"])
        #expect(try bench.fish("lib book ") == ["borrow", "show"])
        #expect(try bench.fish("lib export --format ") == ["csv", "json"])
        #expect(try bench.fish("lib export --format=c") == ["--format=csv"])
        #expect(try bench.fish("lib book show b-") == ["b-1", "b-2"])
        #expect(bench.calls.last == "__complete ids books -- b-")
        #expect(try bench.fish("lib --account work book show ").count == 3)
        #expect(bench.calls.last == "--account work __complete ids books -- ")
        #expect(try bench.fish("lib book borrow --d") == ["--days"])
    }

    @Test func everyScriptIsValidInItsShell() throws {
        let bench = try ShellBench()
        for (shell, path, flags) in [(Shell.bash, "/bin/bash", ["-n"]), (.zsh, "/usr/bin/zsh", ["-n"]), (.fish, "/usr/bin/fish", ["--no-execute"])] {
            let script = bench.folder.appendingPathComponent("script.\(shell.rawValue)")
            let text = CompletionScript(parser: parser).render(for: shell)
            try Data(text.utf8).write(to: script)
            let run = try bench.run(path, flags + [script.path])
            #expect(run.status == 0 && run.stderr.isEmpty, "\(shell): \(run.stderr)")
            #expect(!text.contains("__complete)"), "the hidden command is offered by the \(shell) script")
            #expect(!text.contains("generate-man"))
        }
    }

    /// zsh loads the script as a completion function, and the function registers itself.
    @Test func zshLoadsTheScriptAndRegistersTheFunction() throws {
        let bench = try ShellBench()
        let script = bench.folder.appendingPathComponent("_lib")
        try Data(CompletionScript(parser: parser).render(for: .zsh).utf8).write(to: script)
        let run = try bench.run("/usr/bin/zsh", ["-f", "-c", """
            autoload -Uz compinit && compinit -u -d '\(bench.folder.path)/zcompdump'
            source '\(script.path)'
            print -r -- "${_comps[lib]}"
            _lib_child '' book && _lib_child 'book' borrow && ! _lib_child '' __complete && print children
            _lib_takes_value 'book borrow' --days && _lib_takes_value 'export' --account && ! _lib_takes_value '' --json && print values
            """])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout == "_lib\nchildren\nvalues\n", "\(run.stderr)")
    }
}

// MARK: - Man pages

@Suite("Man pages from the declarations")
struct ManPageTests {
    private let page = ManPage(parser: parser, source: "lib 1.0", date: "2026-12-01", seeAlso: ["lib-sync(1)"]).render()

    @Test func thePageHasEveryStandardSectionInOrder() throws {
        let headings = page.split(separator: "\n").filter { $0.hasPrefix(".SH ") }.map { String($0.dropFirst(4)) }
        #expect(headings == [
            "NAME", "SYNOPSIS", "DESCRIPTION", "OPTIONS", "COMMANDS", "EXIT STATUS", "ENVIRONMENT", "FILES", "CRON",
            "EXAMPLES", "SEE ALSO",
        ])
        #expect(page.hasPrefix(".\\\" Written from lib's command declarations"))
        #expect(page.contains(".TH \"LIB\" 1 \"2026\\-12\\-01\" \"lib 1.0\" \"User Commands\"\n"))
        #expect(page.contains(".SH NAME\nlib \\- A library: books and a 'quoted' thing\n"))
    }

    @Test func everyVisibleCommandHasItsSubsectionWithItsOptions() {
        for command in ["book", "book show", "book borrow", "export"] {
            #expect(page.contains(".SS \"\(command)\"\n"), "\(command)")
        }
        #expect(!page.contains("__complete"))
        #expect(!page.contains("generate"))
        #expect(page.contains("\\fB\\-\\-days\\fR \\fIdays\\fR\nFor how long.\n"))
        #expect(page.contains("lib book borrow [<options>] <id>"))
        #expect(page.contains("\\fB\\-\\-format\\fR \\fIjson|csv\\fR"))
        #expect(page.contains(".TP\n\\fB0\\fR\nfine\n"))
        #expect(page.contains("\\fBlib book show b\\-1\\fR"))
    }

    @Test func textIsEscapedForRoff() {
        #expect(page.contains("\n\\&.A line that starts with a dot, and a \\ebackslash.\n"))
        #expect(!page.split(separator: "\n").contains { $0.hasPrefix("'") })
    }

    /// groff reads the page without a single warning, at 80 columns.
    @Test func groffRendersThePageWithoutWarnings() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("man-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("lib.1")
        try Data(page.utf8).write(to: file)
        let run = try ProcessRunner.run(
            URL(fileURLWithPath: "/usr/bin/man"), ["--warnings", "-l", file.path],
            environment: ["PATH": "/usr/bin:/bin", "MANWIDTH": "80", "HOME": folder.path, "LANG": "C.UTF-8"])
        #expect(run.status == 0)
        #expect(run.stderr.isEmpty, "\(run.stderr)")
        #expect(run.stdout.contains("EXIT STATUS"))
        #expect(run.stdout.contains("--days days"))
    }

    @Test func theDateComesFromSourceDateEpochWhenSet() {
        #expect(ManPage.date(environment: ["SOURCE_DATE_EPOCH": "0"], now: 1_000_000_000) == "1970-01-01")
        #expect(ManPage.date(environment: [:], now: 1_764_547_200) == "2025-12-01")
        #expect(ManPage.date(environment: ["SOURCE_DATE_EPOCH": "951782400"], now: 0) == "2000-02-29")
        #expect(ManPage.date(environment: ["SOURCE_DATE_EPOCH": "soon"], now: 86_400 * 365) == "1971-01-01")
    }
}
