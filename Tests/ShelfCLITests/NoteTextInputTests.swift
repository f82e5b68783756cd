import Foundation
import Testing

/// A note's body from standard input (`--body -`) and from the person's editor
/// (`--edit`): bounded, refused when empty (or unchanged), and never lost.
@Suite("shelf: note bodies from standard input and the editor")
struct NoteTextInputTests {
    let sandbox: ShelfSandbox
    /// Where the editor scripts leave what they saw.
    let log: URL

    init() throws {
        sandbox = try ShelfSandbox()
        log = sandbox.root.appendingPathComponent("editor.log")
        // Temporary files go to the sandbox, so a leftover one is seen.
        sandbox.environment["TMPDIR"] = sandbox.root.path
    }

    /// An executable editor script; it logs its arguments, the file's mode and content.
    /// - Returns: the command for `$EDITOR`: its path in quotes, as it has a space.
    private func editor(_ name: String, _ body: String) async throws -> String {
        let script = """
            #!/bin/sh
            printf 'args:%s\\n' "$*" >> '\(log.path)'
            printf 'mode:%s\\n' "$(stat -c %a "$1")" >> '\(log.path)'
            printf 'before:%s\\n' "$(cat "$1")" >> '\(log.path)'
            \(body)
            """
        let folder = sandbox.root.appendingPathComponent("my editors")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let url = folder.appendingPathComponent(name)
        try Data(script.utf8).write(to: url)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: url.path)
        return "'\(url.path)'"
    }

    private var logged: [String] {
        ((try? String(contentsOf: log, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
    }

    /// Files the editor was given that are still there.
    private var leftovers: [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: sandbox.root.path)) ?? []).filter { $0.hasPrefix("shelf-note-") }
    }

    private func notes() async throws -> [[String: Any]] {
        try #require(try await sandbox.run("--json", "notes").json()["notes"] as? [[String: Any]])
    }

    // MARK: Standard input

    @Test func aBodyIsReadFromStandardInputWithoutItsFinalLineBreak() async throws {
        let run = try await sandbox.run(["--json", "note", "add", "--title", "Odo", "--body", "-"], input: "First line\n\nThird line, ünïcödé\n")
        #expect(run.status == 0, "\(run)")
        #expect(try run.json()["body"] as? String == "First line\n\nThird line, ünïcödé")
        let id = try #require(try run.json()["id"] as? String)

        let edit = try await sandbox.run(["note", "edit", id, "--body", "-"], input: "Rewritten\n")
        #expect(edit.status == 0, "\(edit)")
        #expect(try await notes().first?["body"] as? String == "Rewritten")
    }

    @Test func anEmptyOrOversizedBodyFromStandardInputIsRefusedAndNothingIsWritten() async throws {
        let empty = try await sandbox.run(["note", "add", "--title", "Odo", "--body", "-"], input: " \n\t\n")
        #expect(empty.status == 65, "\(empty)")
        #expect(empty.stderr == "Error: the note's body from standard input is empty; nothing was written\n")
        let large = try await sandbox.run(["note", "add", "--title", "Odo", "--body", "-"], input: String(repeating: "x", count: 256 * 1024 + 1))
        #expect(large.status == 65, "\(large)")
        #expect(large.stderr == "Error: the text from standard input is longer than 256 KiB; nothing was written\n")
        #expect(try await notes().isEmpty)
        // Exactly the bound is accepted.
        let bound = try await sandbox.run(["note", "add", "--title", "Odo", "--body", "-"], input: String(repeating: "x", count: 256 * 1024))
        #expect(bound.status == 0, "\(bound)")
    }

    // MARK: The editor

    @Test func theEditorWritesTheBodyOnAPrivateFileThatIsRemovedAfter() async throws {
        let editor = try await editor("write.sh", "printf 'Written in the editor\\n' > \"$1\"")
        let run = try await sandbox.run(["--json", "note", "add", "--title", "Shevek", "--edit"], environment: ["EDITOR": editor])
        #expect(run.status == 0, "\(run)")
        #expect(try run.json()["body"] as? String == "Written in the editor")
        #expect(logged.contains("mode:600"), "\(logged)")
        #expect(logged.first?.hasPrefix("args:\(sandbox.root.path)/shelf-note-") == true, "\(logged)")
        #expect(leftovers.isEmpty)
    }

    /// `$VISUAL` comes before `$EDITOR`; a command with arguments (and a path with a
    /// space, quoted) is split by the shell, as git does.
    @Test func visualWinsAndTheCommandIsSplitAsGitSplitsIt() async throws {
        let visual = try await editor("visual.sh", "printf 'From VISUAL\\n' > \"$2\"")
        let plain = try await editor("plain.sh", "printf 'From EDITOR\\n' > \"$1\"")
        let run = try await sandbox.run(
            ["--json", "note", "add", "--title", "T", "--edit"], environment: ["VISUAL": "\(visual) --wait", "EDITOR": plain])
        #expect(run.status == 0, "\(run)")
        #expect(try run.json()["body"] as? String == "From VISUAL")
        #expect(logged.first?.hasPrefix("args:--wait \(sandbox.root.path)/shelf-note-") == true, "\(logged)")
    }

    @Test func editingStartsFromTheBodyAndRefusesAnUnchangedOrEmptyResult() async throws {
        let add = try await sandbox.run("--json", "note", "add", "--title", "Takver", "--body", "Fish")
        let id = try #require(try add.json()["id"] as? String)

        let revise = try await editor("revise.sh", "printf 'Fish, and the sea\\n' > \"$1\"")
        #expect(try await sandbox.run(["note", "edit", id, "--edit"], environment: ["EDITOR": revise]).status == 0)
        #expect(logged.contains("before:Fish"), "\(logged)")
        #expect(try await notes().first?["body"] as? String == "Fish, and the sea")

        let keep = try await editor("keep.sh", "true")
        let unchanged = try await sandbox.run(["note", "edit", id, "--edit"], environment: ["EDITOR": keep])
        #expect(unchanged.status == 65, "\(unchanged)")
        #expect(unchanged.stderr == "Error: the note's body is unchanged; nothing was written\n")

        let clear = try await editor("clear.sh", ": > \"$1\"")
        let empty = try await sandbox.run(["note", "edit", id, "--edit", "--title", "Renamed"], environment: ["EDITOR": clear])
        #expect(empty.status == 65, "\(empty)")
        #expect(empty.stderr == "Error: the note's body is empty; nothing was written\n")
        let note = try #require(try await notes().first)
        #expect(note["body"] as? String == "Fish, and the sea")
        #expect(note["title"] as? String == "Takver")
        #expect(leftovers.isEmpty)

        let newEmpty = try await sandbox.run(["note", "add", "--title", "Nothing", "--edit"], environment: ["EDITOR": clear])
        #expect(newEmpty.status == 65)
        #expect(try await notes().count == 1)
    }

    /// An editor that fails after the person wrote something: nothing is written to the
    /// store, and the words are kept in the file the message names.
    @Test func whatAFailingEditorHoldsIsKeptAndNamed() async throws {
        let failing = try await editor("fail.sh", "printf 'Half a thought\\n' > \"$1\"; exit 3")
        let run = try await sandbox.run(["note", "add", "--title", "T", "--edit"], environment: ["EDITOR": failing])
        #expect(run.status == 1, "\(run)")
        let kept = try #require(run.stderr.firstMatch(of: /what you wrote is kept in (\S+)\n$/)?.1).description
        #expect(run.stderr.hasPrefix("Error: the editor '\(failing)' exited with status 3; nothing was written;"))
        #expect(try String(contentsOfFile: kept, encoding: .utf8) == "Half a thought\n")
        #expect(try await notes().isEmpty)

        // One that fails without a word written leaves nothing behind.
        try FileManager.default.removeItem(atPath: kept)
        #expect(try await sandbox.run(["note", "add", "--title", "T", "--edit"], environment: ["EDITOR": "false"]).status == 1)
        #expect(leftovers.isEmpty)
        let missing = try await sandbox.run(["note", "add", "--title", "T", "--edit"], environment: ["EDITOR": "no-such-editor-here"])
        #expect(missing.status == 69, "\(missing)")
        #expect(missing.stderr.hasPrefix("Error: could not start the editor 'no-such-editor-here'"))
    }

    @Test func theTitleIsCheckedBeforeTheEditorOpens() async throws {
        let write = try await editor("write.sh", "printf 'Words\\n' > \"$1\"")
        let run = try await sandbox.run(["note", "add", "--title", "  ", "--edit"], environment: ["EDITOR": write])
        #expect(run.status == 65, "\(run)")
        #expect(logged.isEmpty, "the editor was opened for a note that could not be written")
        let both = try await sandbox.run("note", "add", "--title", "T", "--body", "x", "--edit")
        #expect(both.status == 64)
        #expect(both.stderr.hasPrefix("Error: Use either '--body' or '--edit', not both"))
    }
}
