import Foundation
import Testing
import TestSupport

/// `shelf completion`, its helper reading the local store, and `shelf --generate-man`,
/// through the built binary.
@Suite("shelf: completion scripts and the man page")
struct CompletionCLITests {
    let sandbox: ShelfSandbox

    init() throws {
        sandbox = try ShelfSandbox()
    }

    /// What the bash script's function offers for the words typed (the last one is under
    /// the cursor), run the way bash's `complete -F` runs it, in the sandbox's environment
    /// with the built `shelf` first on the PATH.
    private func bashCompletions(_ words: [String]) async throws -> [String] {
        let script = try await sandbox.run("completion", "bash")
        #expect(script.status == 0, "\(script)")
        let file = try sandbox.file("shelf.bash", contents: script.stdout, mode: 0o644)
        let quoted = words.map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }.joined(separator: " ")
        let driver = """
            source '\(file.path)' || exit 1
            COMP_WORDS=(\(quoted)); COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 )); COMPREPLY=()
            _shelf
            printf '%s\\n' "${COMPREPLY[@]}"
            """
        let binaries = ShelfBinary.url.deletingLastPathComponent().path
        let run = try sandbox.runProgram("/bin/bash", ["--norc", "--noprofile", "-c", driver], environment: ["PATH": "\(binaries):/usr/bin:/bin"])
        #expect(run.status == 0 && run.stderr.isEmpty, "\(run)")
        return run.stdout.split(separator: "\n").map(String.init)
    }

    private func addBook(_ title: String) async throws -> String {
        let run = try await sandbox.run("--json", "book", "add", "--title", title, "--author", "Ursula K. Le Guin")
        #expect(run.status == 0, "\(run)")
        return try #require(try run.json()["id"] as? String)
    }

    @Test func bashCompletesCommandsAndSubcommandsFromTheTree() async throws {
        #expect(try await bashCompletions(["shelf", "bo"]) == ["books", "book"])
        #expect(try await bashCompletions(["shelf", "book", ""]) == ["show", "add", "edit", "finish", "unfinish", "rm"])
        #expect(try await bashCompletions(["shelf", "cart", "s"]) == ["show"], "an older name (set) is accepted, never offered")
        #expect(try await bashCompletions(["shelf", "books", "--s"]) == ["--search", "--sort"])
        #expect(try await bashCompletions(["shelf", "sync", "--policy", ""]) == ["manual", "server-wins", "client-wins"])
        #expect(try await bashCompletions(["shelf", "resolve", "books/b-1", "--keep", ""]) == ["local", "remote"])
        #expect(try await bashCompletions(["shelf", "export", "--collection", "s"]) == ["sessions"])
        #expect(try await bashCompletions(["shelf", "completion", ""]) == ["bash", "zsh", "fish"])
        #expect(try await bashCompletions(["shelf", "books", "--color", "a"]) == ["auto", "always"])
        #expect(try await bashCompletions(["shelf", "books", "--sort", "-a"]) == ["-author"])
        #expect(try await bashCompletions(["shelf", "tasks", "--sort", ""]) == ["title", "done", "id", "-title", "-done", "-id"])
        // The helper is never offered.
        #expect(try await bashCompletions(["shelf", "__"]).isEmpty)
    }

    /// Ids come from the local store by prefix (the helper never creates a store or
    /// asks a server); another collection's ids are not offered.
    @Test func bashCompletesIdsFromTheLocalStore() async throws {
        // NB: nothing is offered, and no store is made, before anything is written.
        #expect(try await bashCompletions(["shelf", "book", "show", ""]).isEmpty)
        #expect(!FileManager.default.fileExists(atPath: sandbox.dataHome.path))

        let first = try await addBook("The Dispossessed")
        let second = try await addBook("The Lathe of Heaven")
        let task = try #require(try await sandbox.run("--json", "task", "add", "Read Earthsea").json()["id"] as? String)
        #expect(Set(try await bashCompletions(["shelf", "book", "show", ""])) == [first, second])
        #expect(try await bashCompletions(["shelf", "book", "show", String(first.prefix(6))]) == [first])
        #expect(try await bashCompletions(["shelf", "--json", "favorite", "add", String(second.prefix(6))]) == [second])
        #expect(try await bashCompletions(["shelf", "notes", "--book", String(first.prefix(6))]) == [first])
        #expect(try await bashCompletions(["shelf", "task", "finish", ""]) == [task])
        #expect(try await bashCompletions(["shelf", "book", "show", "zz"]).isEmpty)

        // The helper itself: id, tab, title; at most 200 lines.
        let listed = try await sandbox.run("__complete", "ids", "books", "--", String(first.prefix(8)))
        #expect(listed.status == 0)
        #expect(listed.stdout == "\(first)\tThe Dispossessed\n")
    }

    /// `undo ID` is offered the records whose change is still waiting, with their
    /// titles; a record with nothing to take back is not offered.
    @Test func bashCompletesUndoWithPendingChanges() async throws {
        let book = try await addBook("Kindred")
        let task = try #require(try await sandbox.run("--json", "task", "add", "Read chapter 1").json()["id"] as? String)
        #expect(Set(try await bashCompletions(["shelf", "undo", ""])) == ["books/\(book)", "tasks/\(task)"])
        #expect(try await bashCompletions(["shelf", "undo", "ta"]) == ["tasks/\(task)"])
        #expect(try await bashCompletions(["shelf", "undo", String(book.prefix(6))]) == [book])
        let listed = try await sandbox.run("__complete", "pending", "--", "books/")
        #expect(listed.stdout == "books/\(book)\tKindred\n", "\(listed)")

        #expect(try await sandbox.run("undo", "--yes", "tasks/\(task)").status == 0)
        #expect(try await bashCompletions(["shelf", "undo", ""]) == ["books/\(book)"])
    }

    @Test func theAccountOnTheLineChoosesTheStore() async throws {
        // An unknown account lists nothing (the helper's error goes nowhere).
        _ = try await addBook("Always Coming Home")
        #expect(try await bashCompletions(["shelf", "--account", "nobody", "book", "show", ""]).isEmpty)
        #expect(try await bashCompletions(["shelf", "--account", ""]).isEmpty)
    }

    /// Walking the help from the root finds every command: each has its subsection in
    /// the man page, and each of its own options (those the root does not give every
    /// command) is described there.
    @Test func theManPageHasEveryCommandTheHelpHasWithItsOptions() async throws {
        let page = try await sandbox.run("--generate-man").stdout
        func optionNames(_ help: String) -> Set<String> {
            Set(help.split(separator: "\n").compactMap { line in
                line.firstMatch(of: /^  (?:-\w, )?--([a-z-]+)/).map { String($0.1) }
            })
        }
        let shared = optionNames(try await sandbox.run("--help").stdout)
        var pending: [[String]] = try await sandbox.run("--help").stdout
            .split(separator: "\n", omittingEmptySubsequences: false).drop { $0 != "SUBCOMMANDS:" }.dropFirst()
            .prefix { !$0.isEmpty }.compactMap { $0.split(separator: " ").first.map { [String($0)] } }
        var examined = 0
        while let path = pending.popLast() {
            let help = try await sandbox.run(["help"] + path).stdout
            let name = path.joined(separator: " ")
            // NB: roff writes a command's hyphens as `\-` (`change-passphrase`).
            let roffName = name.replacingOccurrences(of: "-", with: "\\-")
            let start = try #require(page.range(of: ".SS \"\(roffName)\"\n"), "no subsection for \(name)")
            let rest = page[start.upperBound...]
            let section = rest[..<(rest.range(of: "\n.SS ")?.lowerBound ?? rest.range(of: "\n.SH ")?.lowerBound ?? rest.endIndex)]
            for option in optionNames(help).subtracting(shared).subtracting(["help"]) {
                #expect(section.contains("\\-\\-" + option.replacingOccurrences(of: "-", with: "\\-")), "\(name): --\(option)")
            }
            pending += help.split(separator: "\n", omittingEmptySubsequences: false).drop { $0 != "SUBCOMMANDS:" }.dropFirst()
                .prefix { !$0.isEmpty }.compactMap { $0.split(separator: " ").first.map { path + [String($0)] } }
            examined += 1
        }
        #expect(examined >= 50)
    }

    @Test func theZshAndFishScriptsAreValid() async throws {
        for (shell, path, flag) in [("zsh", "/usr/bin/zsh", "-n"), ("fish", "/usr/bin/fish", "--no-execute")] {
            let script = try await sandbox.run("completion", shell)
            #expect(script.status == 0)
            let file = try sandbox.file("shelf.\(shell)", contents: script.stdout, mode: 0o644)
            let check = try sandbox.runProgram(path, [flag, file.path])
            #expect(check.status == 0 && check.stderr.isEmpty, "\(shell): \(check)")
        }
        let wrong = try await sandbox.run("completion", "tcsh")
        #expect(wrong.status == 64)
        #expect(wrong.stderr.hasPrefix("Error: Invalid value 'tcsh' for <shell>; expected one of: bash, zsh, fish"))
    }

    /// The page has a subsection for every command the help lists, each with its
    /// options, and renders at 80 columns without a warning.
    @Test func theManPageDescribesEveryCommandAndRendersCleanly() async throws {
        let run = try await sandbox.run("--generate-man", environment: ["SOURCE_DATE_EPOCH": "1764547200"])
        #expect(run.status == 0, "\(run)")
        let page = run.stdout
        #expect(page.contains(".TH \"SHELF\" 1 \"2025\\-12\\-01\" \"shelf 0.1.0\""))
        for heading in ["NAME", "SYNOPSIS", "DESCRIPTION", "OPTIONS", "COMMANDS", "EXIT STATUS", "ENVIRONMENT", "FILES", "EXAMPLES", "SEE ALSO"] {
            #expect(page.contains("\n.SH \(heading)\n"), "\(heading)")
        }
        for path in [["book", "add"], ["note", "edit"], ["cart", "edit"], ["account", "add"], ["completion"], ["sync"], ["history"], ["redo"]] {
            #expect(page.contains(".SS \"\(path.joined(separator: " "))\"\n"), "\(path)")
        }
        #expect(page.contains("\\fB\\-\\-password\\-file\\fR \\fIpath\\fR"))
        #expect(page.contains("Also accepted, as an older name: \\fBtask done\\fR."), "aliases are in the man page")
        #expect(!page.contains("__complete") && !page.contains("generate"))

        let file = try sandbox.file("shelf.1", contents: page, mode: 0o644)
        let rendered = try sandbox.runProgram("/usr/bin/man", ["--warnings", "-l", file.path], environment: ["MANWIDTH": "80"])
        #expect(rendered.status == 0)
        #expect(rendered.stderr.isEmpty, "\(rendered.stderr)")
    }
}
