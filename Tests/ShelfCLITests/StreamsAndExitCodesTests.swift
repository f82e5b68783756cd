import ArgumentParsing
import Foundation
import ShelfCommands
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// Every command, as scripts expect it (docs/cli.md, "Streams and exit codes"): results on
/// standard output; progress, warnings and errors on standard error; progress only on a
/// terminal unless `--progress`; every failure (a status other than 0) begins with
/// `Error:`; no escape code off a terminal.
///
/// The commands come from the declarations (`ShelfProgram.declarations`), never from a
/// list kept by hand: each one runs with `--help`, bare, with an option it does not know,
/// and as each of its help's examples, against an account on a real Kinto, as the built
/// binary — once with both streams on files, once with each on a pseudo-terminal of its
/// own (so they are still told apart).
/// NB: `.serialized`: the two runs of every command (some 270 processes each) one after
/// the other, so the machine's other tests are not starved while they run.
@Suite("shelf: streams and exit codes of every command", .serialized)
struct StreamsAndExitCodesTests {
    // MARK: The runs

    /// One command line and why it is run.
    struct Invocation: CustomStringConvertible {
        enum Kind: String { case help, bare, unknownOption = "unknown option", example }
        let kind: Kind
        let arguments: [String]
        var environment: [String: String] = [:]
        var description: String { "shelf \(arguments.joined(separator: " ")) (\(kind.rawValue))" }
    }

    /// Where the program's standard output and standard error go.
    enum Streams: String, CustomStringConvertible, CaseIterable {
        case files
        case terminals
        var description: String { rawValue }
    }

    /// Every command of the tree, and every group that runs a default subcommand.
    static func invocations() -> [Invocation] {
        var found: [Invocation] = []
        var pending: [(path: [String], spec: CommandSpec)] = ShelfProgram.declarations.subcommands.map { ([$0.name], $0) }
        while let (path, spec) = pending.popLast() {
            pending += spec.subcommands.map { (path + [$0.name], $0) }
            guard !spec.hasSubcommands || spec.defaultSubcommand != nil else { continue }
            found.append(Invocation(kind: .help, arguments: path + ["--help"]))
            found.append(Invocation(kind: .bare, arguments: path))
            found.append(Invocation(kind: .unknownOption, arguments: path + ["--no-such-option"]))
            for example in spec.examples { found.append(Self.invocation(of: example.commandLine)) }
        }
        return found
    }

    /// An example as a shell would run its first command: leading `NAME=value` words go
    /// to the environment, `~/` is the home folder, a redirection is left out (standard
    /// input is empty), and what follows `&&`, `|` or `;` is another command.
    static func invocation(of line: String) -> Invocation {
        var environment: [String: String] = [:]
        var arguments: [String] = []
        var words = ShellWords.split(line)[...]
        while let word = words.first, word.contains("="), !word.hasPrefix("-"), arguments.isEmpty {
            let parts = word.split(separator: "=", maxSplits: 1).map(String.init)
            environment[parts[0]] = parts.count > 1 ? parts[1] : ""
            words = words.dropFirst()
        }
        if words.first == "shelf" { words = words.dropFirst() }
        while let word = words.popFirst() {
            if ["&&", "|", ";", "||"].contains(word) { break }
            if word == "<" || word == ">" {
                _ = words.popFirst()
                continue
            }
            arguments.append(word)
        }
        return Invocation(kind: .example, arguments: arguments, environment: environment)
    }

    /// What one run printed and how it ended.
    struct Captured {
        let status: Int32
        let stdout: String
        let stderr: String
    }

    /// A reader with an account on a real Kinto, a book, a note and a task, synced.
    private static func reader(prefix: String) async throws -> ShelfSandbox {
        let kinto = try KintoServer.shared()
        let user = try await kinto.newUser(prefix: prefix)
        let sandbox = try ShelfSandbox()
        let added = try await sandbox.run(
            ["account", "add", "reader", "--server", kinto.baseURL, "--user", user.name], environment: ["SHELF_PASSWORD": user.password])
        try #require(added.status == 0, "\(added)")
        for command in [["book", "add", "--title", "The Dispossessed", "--author", "Ursula K. Le Guin"],
                        ["note", "add", "--title", "Walls", "--body", "On both sides."], ["task", "add", "Read chapter 1"]] {
            let run = try await sandbox.run(command)
            try #require(run.status == 0, "\(run)")
        }
        try #require(try await sandbox.run("sync").status == 0)
        // No pager, and an editor that fails at once: nothing waits for a person.
        sandbox.environment.merge(["PAGER": "cat", "VISUAL": "/bin/false", "EDITOR": "/bin/false", "TERM": "xterm-256color"]) { $1 }
        return sandbox
    }

    /// Runs the built `shelf` in a session of its own (`setsid`: no controlling terminal
    /// to prompt on), standard input empty, its two output streams as `streams` says.
    private static func run(_ invocation: Invocation, in sandbox: ShelfSandbox, _ streams: Streams) async throws -> Captured {
        let environment = sandbox.environment.merging(invocation.environment) { $1 }
            .mapValues { $0.hasPrefix("~/") ? sandbox.root.path + $0.dropFirst() : $0 }
        let arguments = ["--wait", ShelfBinary.url.path] + invocation.arguments.map { $0.hasPrefix("~/") ? sandbox.root.path + $0.dropFirst() : $0 }
        switch streams {
        case .files:
            let run = try await sandbox.runProgramInBackground("/usr/bin/setsid", arguments, environment: environment)
            return Captured(status: run.status, stdout: run.stdout, stderr: run.stderr)
        case .terminals:
            // NB: the wait happens on a thread of its own, not on Swift's cooperative pool
            // (`BlockingWait`).
            let root = sandbox.root
            return try await BlockingWait.run { try Self.runOnTerminals(arguments, environment: environment, in: root) }
        }
    }

    /// Runs `setsid arguments…` with standard output and standard error each on a
    /// pseudo-terminal of its own, reading both while it runs.
    private static func runOnTerminals(_ arguments: [String], environment: [String: String], in root: URL) throws -> Captured {
        let output = try PseudoTerminal(), error = try PseudoTerminal()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/setsid")
        process.arguments = arguments
        process.environment = environment
        process.currentDirectoryURL = root
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle(fileDescriptor: output.slave, closeOnDealloc: false)
        process.standardError = FileHandle(fileDescriptor: error.slave, closeOnDealloc: false)
        try process.run()
        var out: [UInt8] = [], err: [UInt8] = []
        let deadline = ContinuousClock.now + .seconds(120)
        while process.isRunning {
            out += output.outputBytes()
            err += error.outputBytes()
            if ContinuousClock.now > deadline { process.terminate() }
            usleep(5_000)
        }
        process.waitUntilExit()
        out += output.outputBytes()
        err += error.outputBytes()
        // NB: a terminal turns each line feed into CR LF (ONLCR); a carriage return of
        // the program's own stays.
        let text = { (bytes: [UInt8]) in String(decoding: bytes, as: UTF8.self).replacingOccurrences(of: "\r\n", with: "\n") }
        return Captured(status: process.terminationStatus, stdout: text(out), stderr: text(err))
    }

    // MARK: The rules

    /// `text` without escape sequences (colour), as a reader sees it.
    static func plain(_ text: String) -> String {
        text.replacing(/\x{1B}\[[0-9;?]*[A-Za-z]/, with: "")
    }

    /// Where `run` breaks the rules of docs/cli.md's stream and exit-code table.
    static func problems(_ run: Captured, _ invocation: Invocation, _ streams: Streams) -> [String] {
        var problems: [String] = []
        let stdoutLines = plain(run.stdout).split(separator: "\n").map(String.init)
        // On a terminal, a progress bar is redrawn after carriage returns: what stays of a
        // line is what follows the last one.
        let stderrLines = plain(run.stderr).split(separator: "\n")
            .map { String($0.split(separator: "\r", omittingEmptySubsequences: false).last ?? "") }
            .filter { !$0.trimmingCharacters(in: .whitespaces).isEmpty }

        if stdoutLines.contains(where: { $0.hasPrefix("Error:") || $0.hasPrefix("Warning:") }) {
            problems.append("a diagnostic on standard output")
        }
        if run.stdout.contains("\r") { problems.append("progress (a carriage return) on standard output") }
        if stdoutLines.contains(where: { $0.hasPrefix("sync: ") }) { problems.append("progress lines on standard output") }
        if streams == .files {
            if run.stderr.contains("\r") { problems.append("a progress bar off a terminal") }
            if stderrLines.contains(where: { $0.hasPrefix("sync: ") }) { problems.append("progress lines off a terminal without --progress") }
            if (run.stdout + run.stderr).contains("\u{1B}") { problems.append("an escape code off a terminal") }
        }
        switch invocation.kind {
        case .help:
            if run.status != 0 || stdoutLines.isEmpty || !run.stderr.isEmpty { problems.append("help is not on standard output alone, status 0") }
        case .unknownOption:
            if run.status != 64 { problems.append("an unknown option is not a usage error (64)") }
        case .bare, .example:
            break
        }
        if run.status == 0 {
            if stderrLines.contains(where: { $0.hasPrefix("Error:") }) { problems.append("an Error: line, yet status 0") }
            if stdoutLines.isEmpty { problems.append("a success with nothing on standard output") }
        } else {
            // Warnings may come first (a retry, a refresh that failed); the failure itself is `Error:`.
            let first = stderrLines.first { !$0.hasPrefix("Warning:") }
            if first?.hasPrefix("Error:") != true {
                problems.append("status \(run.status) without an Error: line first on standard error (\(first ?? "nothing"))")
            }
        }
        return problems
    }

    // MARK: Tests

    @Test(arguments: Streams.allCases)
    func everyCommandKeepsItsStreamsAndSaysErrorWhenItFails(_ streams: Streams) async throws {
        let sandbox = try await Self.reader(prefix: "streams-\(streams)")
        let invocations = Self.invocations()
        #expect(invocations.filter { $0.kind == .bare }.count >= 55, "every command: \(invocations.count) runs")
        var report: [String] = []
        var sawProgressBar = false
        var failures = 0, successes = 0
        for invocation in invocations {
            let run = try await Self.run(invocation, in: sandbox, streams)
            if run.status == 0 { successes += 1 } else { failures += 1 }
            if run.stderr.contains("\r[") { sawProgressBar = true }
            for problem in Self.problems(run, invocation, streams) {
                report.append("\(invocation) → \(run.status): \(problem)\n  stdout: \(run.stdout.prefix(300))\n  stderr: \(run.stderr.prefix(300))")
            }
        }
        #expect(report.isEmpty, "\(report.count) runs break the rules on \(streams):\n\(report.joined(separator: "\n"))")
        #expect(successes > 50 && failures > 50, "both kinds of run were seen: \(successes) successes, \(failures) failures")
        #expect(sawProgressBar == (streams == .terminals), "a progress bar on a terminal's standard error, and only there")
    }

    /// The rules catch what Shelf used to do (issue 30's fourth finding): progress lines
    /// on standard output off a terminal, a failed sync's table and `Not synced:` on
    /// standard error without `Error:`, escape codes in a pipe.
    @Test func theRulesCatchWhatShelfUsedToDo() {
        let sync = Invocation(kind: .example, arguments: ["sync"])
        let progressOnStdout = Captured(status: 0, stdout: "sync: sync started (books)\nSynced account home.\n", stderr: "")
        #expect(Self.problems(progressOnStdout, sync, .files) == ["progress lines on standard output"])
        let bar = Captured(status: 0, stdout: "\r[####] 1/7 books: pulling\rSynced.\n", stderr: "")
        #expect(Self.problems(bar, sync, .terminals) == ["progress (a carriage return) on standard output"])
        let linesOffATerminal = Captured(status: 0, stdout: "Synced.\n", stderr: "sync: books: pushed 1 change\n")
        #expect(Self.problems(linesOffATerminal, sync, .files) == ["progress lines off a terminal without --progress"])
        let notSynced = Captured(status: 75, stdout: "", stderr: "COLLECTION  PULLED\nbooks  0\nNot synced: GET …: HTTP 500\n")
        #expect(Self.problems(notSynced, sync, .files) == ["status 75 without an Error: line first on standard error (COLLECTION  PULLED)"])
        let coloured = Captured(status: 1, stdout: "", stderr: "\u{1B}[31mError:\u{1B}[0m not found\n")
        #expect(Self.problems(coloured, sync, .files) == ["an escape code off a terminal"])
        #expect(Self.problems(coloured, sync, .terminals) == [])
        let bareError = Captured(status: 64, stdout: "", stderr: "Error: Missing command\n")
        #expect(Self.problems(bareError, Invocation(kind: .help, arguments: []), .files) == ["help is not on standard output alone, status 0"])
        let silentSuccess = Captured(status: 0, stdout: "", stderr: "Error: nothing\n")
        #expect(Self.problems(silentSuccess, sync, .files) == ["an Error: line, yet status 0", "a success with nothing on standard output"])
        let warningFirst = Captured(status: 75, stdout: "", stderr: "Warning: retrying\nError: not synced\n")
        #expect(Self.problems(warningFirst, sync, .files) == [])
    }

    @Test func progressOffATerminalOnlyWithProgress() async throws {
        let sandbox = try await Self.reader(prefix: "streams-progress")
        #expect(try await sandbox.run("book", "add", "--title", "Kindred", "--author", "Octavia E. Butler").status == 0)
        let asked = try await sandbox.runBinaryInBackground(["--progress", "sync"])
        #expect(asked.status == 0, "\(asked)")
        #expect(asked.stderr.contains("sync: books: pushed 1 change\n"), "\(asked)")
        #expect(!asked.stdout.contains("sync: "), "\(asked)")
        #expect(asked.stdout.hasSuffix("requests).\n") && asked.stdout.contains("Synced account reader"), "\(asked)")
        let piped = try await sandbox.runBinaryInBackground(["sync"])
        #expect(piped.status == 0 && piped.stderr.isEmpty, "\(piped)")
    }

    @Test func bareShelfPrintsTheShortHelpAndExitsZero() throws {
        let sandbox = try ShelfSandbox()
        let run = try sandbox.runBinary()
        #expect(run.status == 0, "\(run)")
        #expect(run.stderr.isEmpty, "\(run)")
        #expect(run.stdout.hasPrefix("shelf: "), "\(run)")
        #expect(run.stdout.contains("USAGE: shelf [<options>] <subcommand>"))
        #expect(run.stdout.contains("See 'shelf --help'"))
        let names = ShelfProgram.declarations.visibleSubcommands.map(\.name)
        let listed = run.stdout.split(separator: "\n").filter { $0.hasPrefix("  ") }.joined(separator: " ")
        #expect(names.allSatisfy { listed.contains($0) }, "every command named: \(run.stdout)")
        #expect(run.stdout.split(separator: "\n").count < 15, "short: \(run.stdout)")
    }
}
