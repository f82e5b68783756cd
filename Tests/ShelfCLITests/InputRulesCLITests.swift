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

    // MARK: A passphrase weaker than the rule

    private func device(_ kinto: KintoServer, _ user: TestUser) async throws -> ShelfSandbox {
        let device = try ShelfSandbox()
        let added = try await device.run(
            ["account", "add", "reader", "--server", kinto.baseURL, "--user", user.name], environment: ["SHELF_PASSWORD": user.password])
        #expect(added.status == 0, "\(added)")
        return device
    }

    private func passphraseFile(_ device: ShelfSandbox, _ passphrase: String, name: String = "passphrase") throws -> String {
        let file = device.root.appendingPathComponent(name)
        try Data((passphrase + "\n").utf8).write(to: file)
        #expect(chmod(file.path, 0o600) == 0)
        return file.path
    }

    @Test func aPassphraseWeakerThanTheRuleIsRefusedUnlessTheReaderSaysSo() async throws {
        let kinto = try KintoServer.shared()
        let laptop = try await device(kinto, try await kinto.newUser(prefix: "weak"))
        let weak = try passphraseFile(laptop, "hunter2")

        let refused = try await laptop.run(["encryption", "enable"], environment: ["SHELF_PASSPHRASE_FILE": weak])
        #expect(refused.status == 65, "\(refused)")
        #expect(refused.stderr == """
            Error: the new passphrase is too weak: it has 7 characters, fewer than 12; Shelf's rule is at least 12 characters, \
            at least 6 of them different; choose a longer one (four words will do), or give --weak-passphrase-ok to use it \
            anyway; nothing was changed

            """, "\(refused)")
        #expect(!refused.stderr.contains("hunter2"), "the passphrase never reaches an error")
        #expect(try await laptop.run(["--json", "encryption", "status"]).json()["enabled"] as? Bool == false)
        let repeated = try passphraseFile(laptop, "aaaaaaaaaaaaaaaa", name: "repeated")
        let same = try await laptop.run(["encryption", "enable"], environment: ["SHELF_PASSPHRASE_FILE": repeated])
        #expect(same.status == 65 && same.stderr.contains("it uses 1 different characters, fewer than 6"), "\(same)")

        // On a terminal it is said to be weak even when the reader goes ahead.
        let captured = CapturedConsole(terminals: [.error])
        var environment = laptop.environment
        environment["SHELF_PASSPHRASE_FILE"] = weak
        let context = ProgramContext(
            arguments: ["encryption", "enable", "--weak-passphrase-ok"], environment: environment,
            workingDirectory: laptop.root.path, console: captured.console)
        #expect(await ShelfProgram.run(context) == .success, "\(captured.standardError)")
        #expect(captured.standardError.contains("this passphrase is weak: it has 7 characters, fewer than 12"), "\(captured.standardError)")
        #expect(try await laptop.run(["--json", "encryption", "status"]).json()["enabled"] as? Bool == true)
    }

    @Test func theRuleIsInTheHelp() async throws {
        for command in [["encryption", "--help"], ["encryption", "enable", "--help"], ["encryption", "change-passphrase", "--help"],
                        ["account", "add", "--help"]] {
            let help = try await sandbox.run(command)
            #expect(help.stdout.contains("at least 12 characters, at least 6 of them different"), "\(help)")
        }
    }

    // MARK: Writes on a device without the key

    /// `book add` and `import` on a device that holds no key of an encrypted account are
    /// refused the same way, with the reason and the way out; reading still works, and
    /// after `join` both are allowed.
    @Test func writesAndImportsOnADeviceWithoutTheKeyAreRefusedTheSameWay() async throws {
        let kinto = try KintoServer.shared()
        let user = try await kinto.newUser(prefix: "keyless")
        let laptop = try await device(kinto, user)
        let secret = try passphraseFile(laptop, "winter on Gethen, again")
        #expect(try await laptop.run(["encryption", "enable"], environment: ["SHELF_PASSPHRASE_FILE": secret]).status == 0)
        #expect(try await laptop.run("book", "add", "--title", "Tehanu", "--author", "Ursula K. Le Guin").status == 0)
        #expect(try await laptop.run("sync").status == 0)

        let phone = try await device(kinto, user)
        #expect(try await phone.run("sync").status == 1, "it leaves the encrypted records alone")
        let csv = phone.root.appendingPathComponent("goodreads.csv")
        try Data("Book Id,Title,Author,Exclusive Shelf\n4981,A Wizard of Earthsea,Ursula K. Le Guin,read\n".utf8).write(to: csv)

        let add = try await phone.run("book", "add", "--title", "Kindred", "--author", "Octavia E. Butler")
        let imported = try await phone.run("import", csv.path)
        for refused in [add, imported] {
            #expect(refused.status == 78, "\(refused)")
            #expect(refused.stderr.contains("is encrypted end to end and this device holds no key"), "\(refused)")
            #expect(refused.stderr.contains("run 'shelf encryption join' first; nothing was written"), "\(refused)")
        }
        #expect(add.stderr == imported.stderr, "one rule, said the same way")
        #expect(try await phone.run("--offline", "books").status == 0, "reading still works")
        #expect(try await phone.run("pending").stdout == "No unsynced changes.\n")

        #expect(try await phone.run(["encryption", "join"], environment: ["SHELF_PASSPHRASE_FILE": try passphraseFile(phone, "winter on Gethen, again")]).status == 0)
        #expect(try await phone.run("book", "add", "--title", "Kindred", "--author", "Octavia E. Butler").status == 0)
        #expect(try await phone.run("import", csv.path).status == 0)
    }
}
