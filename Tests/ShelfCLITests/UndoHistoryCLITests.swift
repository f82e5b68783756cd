import ArgumentParsing
import Foundation
import ShelfCommands
import Testing
import TestSupport

/// `shelf undo` takes back one step, `shelf redo` puts it back, `shelf history` lists
/// them: the report (add, edit, finish, then one undo removed the book without a
/// word) replayed through the commands.
@Suite("shelf: undo, redo and history")
struct UndoHistoryCLITests {
    let sandbox: ShelfSandbox

    init() throws {
        sandbox = try ShelfSandbox()
    }

    private func book(_ id: String) async throws -> [String: Any]? {
        let shown = try await sandbox.run("--json", "book", "show", id)
        guard shown.status == 0 else { return nil }
        return try shown.json()["book"] as? [String: Any]
    }

    /// Runs `shelf arguments…` in-process on a terminal whose reader answers `answer`.
    private func onATerminal(_ arguments: [String], answer: String?) async -> (status: Int32, console: CapturedConsole) {
        let captured = CapturedConsole(terminals: [.input, .output, .error], answer: answer)
        let context = ProgramContext(
            arguments: arguments, environment: sandbox.environment, workingDirectory: sandbox.root.path, console: captured.console)
        return (await ShelfProgram.run(context).rawValue, captured)
    }

    @Test func eachUndoTakesBackOneCommandAndAskBeforeRemovingTheBook() async throws {
        let added = try await sandbox.run("--json", "book", "add", "--title", "Dune", "--author", "Frank Herbert")
        let id = try #require(try added.json()["id"] as? String)
        #expect(try await sandbox.run("book", "edit", "Dune", "--title", "Dune (1965)").status == 0)
        #expect(try await sandbox.run("book", "finish", id).status == 0)

        let finish = try await sandbox.run("undo")
        #expect(finish.status == 0, "\(finish)")
        #expect(finish.stdout.hasPrefix("Undid #3 (book finish): changed book "), "\(finish)")
        #expect(finish.stdout.contains("'shelf redo' puts it back."))
        #expect(try await book(id)?["isFinished"] as? Bool == false)
        #expect(try await book(id)?["title"] as? String == "Dune (1965)", "only the last command is taken back")

        #expect(try await sandbox.run("undo").status == 0)
        #expect(try await book(id)?["title"] as? String == "Dune")

        // The add: taking it back removes the book. Off a terminal: refused, nothing changed.
        let refused = try await sandbox.run("undo")
        #expect(refused.status == 64, "\(refused)")
        #expect(refused.stderr == "Error: this undo removes book \(id) (\"Dune\"); run it on a terminal to be asked, or add --yes; nothing was changed\n")
        #expect(try await book(id) != nil)

        // On a terminal: asked; "no" keeps it (1), "yes" removes it.
        let declined = await onATerminal(["undo"], answer: "n")
        #expect(declined.status == 1)
        #expect(declined.console.questions == ["Undo it? [y/N] "])
        #expect(declined.console.standardError.contains("This undo of #1 (book add): added book"), "\(declined.console.standardError)")
        #expect(declined.console.standardError.contains("  - removes book \(id) (\"Dune\")"), "\(declined.console.standardError)")
        #expect(declined.console.standardError.hasSuffix("nothing was changed\n"), "\(declined.console.standardError)")
        #expect(try await book(id) != nil)
        let confirmed = await onATerminal(["undo"], answer: "y")
        #expect(confirmed.status == 0, "\(confirmed.console.standardError)")
        #expect(try await book(id) == nil)

        // Redo walks forward again; the history says where each step stands.
        for _ in 0..<3 { #expect(try await sandbox.run("redo").status == 0) }
        #expect(try await book(id)?["title"] as? String == "Dune (1965)")
        #expect(try await book(id)?["isFinished"] as? Bool == true)
        let nothing = try await sandbox.run("redo")
        #expect(nothing.status == 1)
        #expect(nothing.stderr == "Error: nothing to redo: no operation was undone since the last one was made\n")

        let history = try await sandbox.run("--json", "history").json()
        let operations = try #require(history["operations"] as? [[String: Any]])
        #expect(operations.map { $0["origin"] as? String } == ["book add", "book edit", "book finish"])
        #expect(operations.map { $0["state"] as? String } == ["done", "done", "done"])
        #expect(operations.map { $0["delivery"] as? String } == ["waiting", "waiting", "waiting"])
        #expect((operations[1]["records"] as? [[String: Any]])?.first?["fields"] as? [String] == ["title"])
        #expect(history["undo"] as? Int == 3 && history["redo"] is NSNull)
    }

    @Test func scriptsSayYesWithAFlagAndTheHistoryListsWhatUndoAndRedoWouldTake() async throws {
        #expect(try await sandbox.run("task", "add", "Read chapter 1").status == 0)
        #expect(try await sandbox.run("-q", "undo", "--yes").status == 0)
        #expect(try await sandbox.run("--json", "tasks").json()["tasks"].flatMap { $0 as? [Any] }?.isEmpty == true)
        let table = try await sandbox.run("history")
        #expect(table.stdout.contains("task add"), "\(table)")
        #expect(table.stdout.contains("undone"), "\(table)")
        #expect(table.stdout.contains("'shelf redo' puts back #1"), "\(table)")
        #expect(try await sandbox.run("redo").status == 0)
        #expect(try await sandbox.run("--json", "tasks").json()["tasks"].flatMap { $0 as? [Any] }?.count == 1)
    }

    @Test func anOlderOperationIsTakenBackByNumberWithANewOne() async throws {
        let added = try await sandbox.run("--json", "book", "add", "--title", "Dune", "--author", "Frank Herbert")
        let id = try #require(try added.json()["id"] as? String)
        #expect(try await sandbox.run("book", "edit", id, "--author", "F. Herbert").status == 0)
        #expect(try await sandbox.run("book", "edit", id, "--title", "Dune (1965)").status == 0)

        let undone = try await sandbox.run("--json", "undo", "--operation", "2")
        #expect(undone.status == 0, "\(undone)")
        #expect(try undone.json()["revertedBy"] as? Int == 4)
        #expect(try await book(id)?["author"] as? String == "Frank Herbert")
        #expect(try await book(id)?["title"] as? String == "Dune (1965)", "the later edit of another field stays")
        let history = try #require(try await sandbox.run("--json", "history").json()["operations"] as? [[String: Any]])
        #expect(history.last?["reverts"] as? Int == 2 && history.last?["origin"] as? String == "undo")
    }

    @Test func undoAndRedoAreInTheManAndHelp() async throws {
        let help = try await sandbox.run("undo", "--help")
        #expect(help.stdout.contains("--yes") && help.stdout.contains("--operation"), "\(help)")
        #expect(try await sandbox.run("help", "redo").status == 0)
        #expect(try await sandbox.run("history", "--help").stdout.contains("200"))
    }
}
