import Foundation
import Testing
import TestSupport

/// `shelf` on a real pseudo-terminal (util-linux `script`, sized with `stty`) and on
/// pipes: tables fit the width, the pager runs only on a terminal, `--limit` / `--sort`
/// work end to end, and colour follows `--color`, `TERM` and `NO_COLOR`.
@Suite("shelf: output that fits the terminal")
struct TerminalOutputTests {
    let sandbox: ShelfSandbox

    init() throws {
        sandbox = try ShelfSandbox()
    }

    /// Imports `count` books (a Goodreads CSV) with long and wide titles.
    private func importBooks(_ count: Int) async throws {
        var csv = "Book Id,Title,Author,Exclusive Shelf\n"
        for index in 1...count {
            let title = index % 3 == 0 ? "ノルウェイの森 第\(index)巻 (Norwegian Wood)" :
                "The Dispossessed, an Ambiguous Utopia, Volume \(index)"
            csv += "\(index),\"\(title)\",\(index % 2 == 0 ? "Ursula K. Le Guin" : "Gabriel García Márquez"),\(index % 4 == 0 ? "read" : "to-read")\n"
        }
        let file = try sandbox.file("books.csv", contents: csv, mode: 0o600)
        let run = try await sandbox.run("-q", "import", file.path)
        try #require(run.status == 0, "\(run)")
    }

    /// `shelf arguments` in-process, on a console that says every stream is a terminal
    /// of `columns` × `rows`. What it prints on standard error follows its standard
    /// output, as on a terminal, unless `quietErrors` leaves it out (warnings are
    /// sentences, not tables, and are not fitted).
    private func onTerminal(
        _ arguments: String, columns: Int = 80, rows: Int = 200, environment: [String: String] = [:], quietErrors: Bool = false
    ) async throws -> ShelfRun {
        let words = arguments.split(separator: " ").map(String.init)
        let run = try await sandbox.run(
            words, environment: environment, terminals: [.input, .output, .error], size: (columns, rows))
        return ShelfRun(arguments: run.arguments, status: run.status,
                        stdout: run.stdout + (quietErrors ? "" : run.stderr), stderr: run.stderr)
    }

    /// `shelf arguments` as a process on a real terminal (`script`'s pseudo-terminal),
    /// its output without the terminal's carriage returns: the pager is a process of its
    /// own, and a pager that quits early breaks the pipe (SIGPIPE).
    private func onRealTerminal(_ arguments: String, rows: Int, environment: [String: String] = [:]) async throws -> ShelfRun {
        try #require(FileManager.default.isExecutableFile(atPath: "/usr/bin/script"), "util-linux script gives shelf a terminal")
        let command = "stty cols 80 rows \(rows); exec \(ShelfBinary.url.path) \(arguments)"
        let run = try sandbox.runProgram("/usr/bin/script", ["-qec", command, "/dev/null"], environment: environment)
        return ShelfRun(arguments: run.arguments, status: run.status,
                        stdout: run.stdout.replacingOccurrences(of: "\r\n", with: "\n"), stderr: run.stderr)
    }

    // MARK: Width

    @Test(arguments: [40, 80, 200])
    func noLineIsWiderThanTheTerminal(_ columns: Int) async throws {
        try await importBooks(12)
        for arguments in ["books", "--color always books", "books --search ursula", "notes", "tasks", "status"] {
            let run = try await onTerminal(arguments, columns: columns, quietErrors: true)
            #expect(run.status == 0, "\(run)")
            let lines = run.stdout.split(separator: "\n").map { Self.strippingEscapes(String($0)) }
            #expect(!lines.isEmpty)
            for line in lines {
                #expect(Self.terminalColumns(line) <= columns, "\(arguments) at \(columns): '\(line)' takes \(Self.terminalColumns(line))")
            }
        }
        let wide = try await onTerminal("books", columns: columns)
        #expect(wide.stdout.contains("…") == (columns < 100), "cells are cut only when the table does not fit")
    }

    @Test func columnsSetsTheWidthOffATerminalAndNothingLimitsAPipe() async throws {
        try await importBooks(3)
        let fitted = try await sandbox.run("books", environment: ["COLUMNS": "50"])
        #expect(fitted.stdout.split(separator: "\n").allSatisfy { Self.terminalColumns(String($0)) <= 50 }, "\(fitted)")
        let piped = try await sandbox.run("books")
        #expect(piped.stdout.split(separator: "\n").contains { Self.terminalColumns(String($0)) > 50 }, "a pipe gets whole cells")
        #expect(!piped.stdout.contains("…"))
        #expect(fitted.stdout.contains("…"))
    }

    // MARK: Pager

    /// A pager that records that it ran and what it read.
    private func recordingPager() async throws -> (command: String, ran: URL, read: URL) {
        let ran = sandbox.root.appendingPathComponent("pager-ran"), read = sandbox.root.appendingPathComponent("pager-read")
        let script = try sandbox.file("pager.sh", contents: "#!/bin/sh\necho ran >> '\(ran.path)'\ncat > '\(read.path)'\n", mode: 0o700)
        return (script.path, ran, read)
    }

    @Test func thePagerRunsOnlyOnATerminalWhenTheOutputIsLonger() async throws {
        try await importBooks(30)
        let pager = try await recordingPager()
        let environment = ["PAGER": pager.command]

        let paged = try await onRealTerminal("books", rows: 10, environment: environment)
        #expect(paged.status == 0, "\(paged)")
        #expect(FileManager.default.fileExists(atPath: pager.ran.path), "30 books on 10 lines: paged")
        let read = try String(contentsOf: pager.read, encoding: .utf8)
        #expect(read.contains("30 books"), "the pager read the whole list")

        try FileManager.default.removeItem(at: pager.ran)
        for (arguments, rows, why) in [("books", 100, "the list fits"), ("--no-pager books", 10, "--no-pager"),
                                       ("--json books", 10, "--json")] {
            let run = try await onRealTerminal(arguments, rows: rows, environment: environment)
            #expect(run.status == 0, "\(run)")
            #expect(!FileManager.default.fileExists(atPath: pager.ran.path), "no pager: \(why)")
            #expect(run.stdout.contains(arguments.contains("json") ? "\"books\"" : "30 books"), "printed straight: \(why)")
        }
        let piped = try await sandbox.run("books", environment: environment.merging(["LINES": "5"]) { $1 })
        #expect(piped.stdout.contains("30 books"))
        #expect(!FileManager.default.fileExists(atPath: pager.ran.path), "never into a pipe")
    }

    @Test func aPagerThatQuitsEarlyIsNoError() async throws {
        // 1,500 books are ~150 KB, more than a pipe holds: the pager's exit breaks the pipe.
        try await importBooks(1_500)
        let quitter = try sandbox.file("quit.sh", contents: "#!/bin/sh\nhead -c 10 > /dev/null\nexit 0\n", mode: 0o700)
        let run = try await onRealTerminal("books", rows: 20, environment: ["PAGER": quitter.path])
        #expect(run.status == 0, "\(run)")
        #expect(!run.stdout.contains("Error"), "\(run.stdout.suffix(300))")

        let head = try sandbox.runProgram("/bin/bash", ["-c", "set -o pipefail; '\(ShelfBinary.url.path)' books | head -n 1"])
        #expect(head.status == 0, "a reader that stops reading is no failure: \(head)")
        #expect(head.stderr.isEmpty, "\(head)")
    }

    @Test func aMissingPagerFallsBackToPrinting() async throws {
        try await importBooks(30)
        let run = try await onRealTerminal("books", rows: 10, environment: ["PAGER": "no-such-pager-here"])
        #expect(run.status == 0, "\(run)")
        #expect(run.stdout.contains("30 books"))
    }

    // MARK: --limit and --sort

    @Test func limitAndSortShapeTheList() async throws {
        try await importBooks(9)
        let json = try await sandbox.run("--json", "books", "--limit", "2", "--sort", "-title")
        #expect(json.status == 0, "\(json)")
        let books = try #require(try json.json()["books"] as? [[String: Any]])
        // Titles fold to "the dispossessed…, volume N" and "ノルウェイの森 第N巻…" (after ASCII).
        #expect(books.compactMap { $0["id"] as? String } == ["gr-9", "gr-6"], "\(json.stdout)")

        let reversed = try await sandbox.run("--json", "books", "--limit", "2", "--sort", "title", "--reverse")
        let reversedIDs = try #require(try reversed.json()["books"] as? [[String: Any]]).compactMap { $0["id"] as? String }
        #expect(reversedIDs == ["gr-9", "gr-6"], "--reverse is a leading '-'")
        let ascending = try await sandbox.run("--json", "books", "--limit", "2")
        let ascendingIDs = try #require(try ascending.json()["books"] as? [[String: Any]]).compactMap { $0["id"] as? String }
        #expect(ascendingIDs == ["gr-1", "gr-2"])

        let text = try await sandbox.run("books", "--search", "ursula", "--limit", "2", "--sort", "author")
        #expect(text.stdout.hasSuffix("2 books shown (matching \"ursula\"; more match than --limit 2 shows)\n"), "\(text)")
        let all = try await sandbox.run("books", "--search", "ursula", "--limit", "10")
        #expect(all.stdout.hasSuffix("4 books shown (matching \"ursula\")\n"), "nothing more to say: \(all)")
        #expect(try json.json()["totalCount"] is NSNull, "a limited list does not count the library")
        let byID = try await sandbox.run("books", "--sort", "id", "--limit", "3")
        #expect(byID.stdout.split(separator: "\n").dropFirst().prefix(3).map { String($0.prefix(4)) } == ["gr-1", "gr-2", "gr-3"], "\(byID)")
    }

    @Test func tasksAreSortedAndCutToo() async throws {
        for title in ["Read chapter 3", "Annotate the map", "Write to Ann", "Buy the sequel"] {
            #expect(try await sandbox.run("-q", "task", "add", title).status == 0)
        }
        let first = try #require(try await sandbox.run("--json", "tasks").json()["tasks"] as? [[String: Any]])
        let done = try #require(first.first { $0["title"] as? String == "Buy the sequel" }?["id"] as? String)
        #expect(try await sandbox.run("-q", "task", "done", done).status == 0)

        func titles(_ arguments: String...) async throws -> [String] {
            let run = try await sandbox.run(["--json", "tasks"] + arguments)
            #expect(run.status == 0, "\(run)")
            return try #require(try run.json()["tasks"] as? [[String: Any]]).compactMap { $0["title"] as? String }
        }
        #expect(try await titles("--limit", "2") == ["Annotate the map", "Buy the sequel"])
        #expect(try await titles("--sort", "-title", "--limit", "1") == ["Write to Ann"])
        #expect(try await titles("--sort", "done", "--reverse", "--limit", "1") == ["Buy the sequel"], "done first, descending")
        #expect(try await titles("--sort", "done", "--limit", "3") == ["Annotate the map", "Read chapter 3", "Write to Ann"])
        let typo = try await sandbox.run("tasks", "--sort", "dnoe")
        #expect(typo.status == 64)
        #expect(typo.stderr.contains("Did you mean 'done'? Fields: title, done, id"), "\(typo)")
    }

    @Test func notesAreFilteredSortedAndCutByTheStore() async throws {
        func added(_ arguments: String...) async throws -> String {
            let run = try await sandbox.run(["--json"] + arguments)
            #expect(run.status == 0, "\(run)")
            return try #require(try run.json()["id"] as? String)
        }
        let dune = try await added("book", "add", "--title", "Dune", "--author", "Frank Herbert")
        let odo = try await added("book", "add", "--title", "The Dispossessed", "--author", "Ursula K. Le Guin")
        for (title, book) in [("Spice", dune), ("Walls", odo), ("Arrakis", dune), ("Odo", odo)] {
            _ = try await added("note", "add", "--title", title, "--body", "About \(title).", "--book", book)
        }
        _ = try await added("note", "add", "--title", "Anarchy", "--body", "Walls.")

        func titles(_ arguments: String...) async throws -> (titles: [String], total: Any?) {
            let run = try await sandbox.run(["--json", "notes"] + arguments)
            #expect(run.status == 0, "\(run)")
            let json = try run.json()
            return (try #require(json["notes"] as? [[String: Any]]).compactMap { $0["title"] as? String }, json["totalCount"])
        }
        #expect(try await titles("--book", dune).titles == ["Arrakis", "Spice"])
        #expect(try await titles("--book", odo, "--sort", "-title", "--limit", "1").titles == ["Walls"])
        #expect(try await titles("--sort", "book").titles.first == "Anarchy", "notes about no book first")
        let all = try #require(try await sandbox.run("--json", "notes").json()["notes"] as? [[String: Any]])
        let lastTwoByID = all.compactMap { note in (note["id"] as? String).map { ($0, note["title"] as? String ?? "") } }
            .sorted { $0.0 > $1.0 }.prefix(2).map(\.1)
        #expect(try await titles("--sort", "id", "--reverse", "--limit", "2").titles == lastTwoByID)
        #expect(try await titles("--limit", "2").total is NSNull, "a limited list counts nothing")
        #expect(try await titles("--search", "a").total as? Int == 5, "an unlimited one says how many notes there are")

        let limited = try await sandbox.run("notes", "--book", dune, "--limit", "1")
        #expect(limited.stdout.contains("1 note shown (about book \(dune); more match than --limit 1 shows)"), "\(limited)")
        let typo = try await sandbox.run("notes", "--sort", "bok")
        #expect(typo.status == 64)
        #expect(typo.stderr.contains("Did you mean 'book'? Fields: title, book, id"), "\(typo)")
    }

    @Test func favoritesAreFoundSortedAndCutByTheStore() async throws {
        func added(_ title: String, _ author: String) async throws -> String {
            let run = try await sandbox.run("--json", "book", "add", "--title", title, "--author", author)
            #expect(run.status == 0, "\(run)")
            return try #require(try run.json()["id"] as? String)
        }
        let dune = try await added("Dune", "Frank Herbert")
        let odo = try await added("The Dispossessed", "Ursula K. Le Guin")
        _ = try await added("Beloved", "Toni Morrison")
        let lem = try await added("Solaris", "Stanisław Lem")
        for id in [dune, odo, lem] { #expect(try await sandbox.run("-q", "favorite", id).status == 0) }

        func entries(_ arguments: String...) async throws -> [String] {
            let run = try await sandbox.run(["--json", "favorites"] + arguments)
            #expect(run.status == 0, "\(run)")
            return try #require(try run.json()["favorites"] as? [[String: Any]]).map { entry in
                ((entry["book"] as? [String: Any])?["title"] as? String) ?? "missing \(entry["id"] as? String ?? "")"
            }
        }
        #expect(try await entries() == ["Dune", "Solaris", "The Dispossessed"], "Beloved is no favorite")
        #expect(try await entries("--sort", "-author") == ["The Dispossessed", "Solaris", "Dune"])
        #expect(try await entries("--sort", "author", "--reverse", "--limit", "1") == ["The Dispossessed"])
        let cut = try await sandbox.run("favorites", "--limit", "2")
        #expect(cut.stdout.contains("2 favorites shown (more than --limit 2)"), "\(cut)")
        #expect(try await sandbox.run("favorites", "--sort", "titel").stderr.contains("Did you mean 'title'?"))
    }

    @Test func aBadSortOrLimitIsAUsageErrorThatSuggests() async throws {
        let typo = try await sandbox.run("books", "--sort", "autor")
        #expect(typo.status == 64)
        #expect(typo.stderr.hasPrefix("Error: Unknown field 'autor' for '--sort'. Did you mean 'author'? Fields: title, author, finished, id"), "\(typo)")
        #expect(try await sandbox.run("books", "--sort", "-colour").stderr.contains("Fields: title, author, finished, id"))
        for limit in ["0", "-3", "many"] {
            let run = try await sandbox.run("books", "--limit", limit)
            #expect(run.status == 64, "\(run)")
            #expect(run.stderr.contains("expected a whole number from 1 to 1000000"))
        }
    }

    // MARK: Colour

    @Test func colourFollowsColorTermAndNoColor() async throws {
        try await importBooks(2)
        #expect(try await onTerminal("books").stdout.contains("\u{1B}[1mID"))
        #expect(!(try await onTerminal("books", environment: ["TERM": "dumb"]).stdout.contains("\u{1B}")), "TERM=dumb")
        #expect(!(try await onTerminal("--color never books").stdout.contains("\u{1B}")))
        #expect(try await onTerminal("--color always books", environment: ["TERM": "dumb", "NO_COLOR": "1"]).stdout.contains("\u{1B}[1mID"))
        #expect(try await sandbox.run("--color", "always", "books").stdout.contains("\u{1B}[1mID"), "always: even into a pipe")
        #expect(!(try await sandbox.run("--color", "auto", "books").stdout.contains("\u{1B}")))
        let both = try await sandbox.run("--no-color", "--color", "always", "books")
        #expect(both.status == 64)
        #expect(both.stderr.hasPrefix("Error: Give --no-color or --color always, not both"), "\(both)")
        let bad = try await sandbox.run("--color", "sometimes", "books")
        #expect(bad.status == 64)
        #expect(bad.stderr.contains("auto, always, never"), "\(bad)")
    }

    // MARK: Helpers

    static func terminalColumns(_ text: String) -> Int {
        TerminalColumns.of(text) ?? Int.max
    }

    static func strippingEscapes(_ text: String) -> String {
        TerminalColumns.strippingEscapes(text)
    }
}
