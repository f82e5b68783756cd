import ArgumentParsing
import Foundation
import ShelfCommands
import Testing
import TestSupport

/// Inputs are refused the same way on every path: text that is not UTF-8, and a note
/// that says nothing, exit 65 whether they come from an argument, standard input, the
/// editor or an import, and nothing is written.
@Suite("shelf: inputs refused the same way on every path")
struct InputRulesCLITests {
    let sandbox: ShelfSandbox

    init() throws {
        sandbox = try ShelfSandbox()
        sandbox.environment["TMPDIR"] = sandbox.root.path
    }

    private func count(_ list: String) async throws -> Int {
        let run = try await sandbox.run("--json", list)
        return try #require(try run.json()[list] as? [Any]).count
    }

    // MARK: Text that is not UTF-8

    /// The bytes reach the process as they were typed (`printf` through `/bin/sh`):
    /// `CommandLine.arguments` would repair them into U+FFFD and store `bad��utf`.
    @Test func anArgumentThatIsNotUTF8IsRefusedByTheProcessAndNothingIsWritten() async throws {
        let binary = ShelfBinary.url.path
        let run = try sandbox.runProgram("/bin/sh", ["-c", "\"$0\" book add --title \"$(printf 'bad\\377utf')\" --author X", binary])
        #expect(run.status == 65, "\(run)")
        #expect(run.stderr == "Error: argument 4 is not UTF-8 text; nothing was done\n", "\(run)")
        #expect(run.stdout.isEmpty)
        #expect(try await count("books") == 0)

        let body = try sandbox.runProgram(
            "/bin/sh", ["-c", "\"$0\" note add --title T --body \"$(printf '\\377\\376')\"", binary])
        #expect(body.status == 65, "\(body)")
        #expect(try await count("notes") == 0)
    }

    /// In-process, a test names the positions the process would have found.
    @Test func everyCommandRefusesAnUndecodableArgumentBeforeParsing() async throws {
        let captured = CapturedConsole(input: nil, terminals: [], size: nil)
        let context = ProgramContext(
            arguments: ["task", "add", "bad\u{FFFD}utf"], environment: sandbox.environment, workingDirectory: sandbox.root.path,
            console: captured.console, undecodableArguments: [3])
        #expect(await ShelfProgram.run(context) == .dataError)
        #expect(captured.standardError == "Error: argument 3 is not UTF-8 text; nothing was done\n")
        #expect(try await count("tasks") == 0)
    }

    @Test func standardInputThatIsNotUTF8IsRefused() async throws {
        let input = sandbox.root.appendingPathComponent("latin1.txt")
        try Data([0x63, 0x61, 0x66, 0xE9, 0x0A]).write(to: input)
        let run = try sandbox.runProgram(
            "/bin/sh", ["-c", "\"$0\" note add --title Café --body - < \"$1\"", ShelfBinary.url.path, input.path])
        #expect(run.status == 65, "\(run)")
        #expect(run.stderr.contains("not UTF-8; nothing was written"), "\(run)")
        #expect(try await count("notes") == 0)
    }

    @Test func anImportFileThatIsNotUTF8IsRefusedWhole() async throws {
        let file = sandbox.root.appendingPathComponent("latin1.csv")
        var bytes = Data("Book Id,Title,Author,Exclusive Shelf\n1,Dune,Frank Herbert,read\n2,Caf".utf8)
        bytes.append(contentsOf: [0xE9])
        bytes.append(contentsOf: Data(",Anon,to-read\n".utf8))
        try bytes.write(to: file)
        let run = try await sandbox.run("import", file.path)
        #expect(run.status == 65, "\(run)")
        #expect(run.stderr.contains("nothing was imported"), "\(run)")
        #expect(try await count("books") == 0)
    }

    // MARK: A note that says nothing

    @Test func anEmptyNoteBodyIsRefusedOnEveryPath() async throws {
        let cases: [(arguments: [String], input: String?)] = [
            (["note", "add", "--title", "Empty", "--body", ""], nil),
            (["note", "add", "--title", "Blank", "--body", " \n\t"], nil),
            (["note", "add", "--title", "None"], nil),
            (["note", "add", "--title", "Piped", "--body", "-"], "\n\n"),
        ]
        for (arguments, input) in cases {
            let run = try await sandbox.run(arguments, input: input)
            #expect(run.status == 65, "\(run)")
            #expect(run.stderr.hasPrefix("Error: ") && run.stderr.contains("nothing was written"), "\(run)")
        }
        let editor = sandbox.root.appendingPathComponent("blank-editor")
        try Data("#!/bin/sh\nprintf '   \\n' > \"$1\"\n".utf8).write(to: editor)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: editor.path)
        let edited = try await sandbox.run(["note", "add", "--title", "Edited", "--edit"], environment: ["EDITOR": editor.path])
        #expect(edited.status == 65, "\(edited)")
        #expect(try await count("notes") == 0)

        let note = try await sandbox.run("--json", "note", "add", "--title", "Kept", "--body", "Walls.")
        let id = try #require(try note.json()["id"] as? String)
        let emptied = try await sandbox.run("note", "edit", id, "--body", "")
        #expect(emptied.status == 65, "\(emptied)")
        #expect(try await sandbox.run("--json", "note", "show", id).json()["note"].flatMap { ($0 as? [String: Any])?["body"] as? String }
                == "Walls.", "the note stays as it was")
    }

    /// A Shelf export may hold a note another client wrote with no body: the import
    /// skips it with the reason, as it skips a row with no title.
    @Test func anImportedNoteWithAnEmptyBodyIsSkippedAndSaid() async throws {
        let file = sandbox.root.appendingPathComponent("export.json")
        try Data("""
            {"format": "shelf-export", "version": 1, "collections": {"notes": [
              {"id": "n-1", "title": "Said", "body": "Something."},
              {"id": "n-2", "title": "Unsaid", "body": "  "}
            ]}}
            """.utf8).write(to: file)
        let run = try await sandbox.run("--json", "import", file.path)
        #expect(run.status == 0, "\(run)")
        let issues = try #require(try run.json()["issues"] as? [[String: Any]])
        #expect(issues.map { $0["reason"] as? String } == ["note 'n-2' has an empty body, which Shelf does not write"])
        #expect(try await count("notes") == 1)
    }

    // MARK: What an import kept and dropped

    @Test func aGoodreadsImportSaysFieldByFieldWhatItKeptAndDroppedAndShortIDsNeverCutANumber() async throws {
        let file = sandbox.root.appendingPathComponent("goodreads.csv")
        try Data("""
            Book Id,Title,Author,My Rating,Bookshelves,Date Read,Exclusive Shelf,My Review
            234225,Dune,Frank Herbert,5,sf,2024/01/02,read,Spice.
            23422,Solaris,,0,,,to-read,

            """.utf8).write(to: file)
        let text = try await sandbox.run("import", file.path)
        #expect(text.status == 0, "\(text)")
        #expect(text.stdout.contains("3 fields Shelf does not keep were dropped"), "\(text)")
        #expect(text.stdout.contains("My Rating"), "\(text)")

        let json = try await sandbox.run("--json", "import", "--dry-run", file.path).json()
        let fields = try #require(json["fields"] as? [[String: Any]])
        let dropped = fields.filter { $0["keptAs"] is NSNull }
        #expect(dropped.map { $0["source"] as? String } == ["My Rating", "Bookshelves", "Date Read"])
        #expect(dropped.map { $0["rows"] as? Int } == [1, 1, 1], "a rating of 0 is none")
        #expect(fields.first { $0["source"] as? String == "Author" }?["rows"] as? Int == 1, "Solaris has no author, and keeps none")

        let books = try await sandbox.run("books", "--sort", "id")
        let shown = books.stdout.split(separator: "\n").dropFirst().map { String($0.prefix { $0 != " " }) }
        #expect(shown.prefix(2) == ["gr-23422", "gr-234225"], "gr-234225 is never cut to gr-23422: \(books)")
        #expect(try await sandbox.run("--json", "book", "show", "gr-23422").json()["book"].flatMap {
            ($0 as? [String: Any])?["title"] as? String } == "Solaris")
    }
}
