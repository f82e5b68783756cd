import Foundation
import Testing

/// Every local command on the local-only store: no account, no `SHELF_SERVER`.
@Suite("shelf: local commands without a server")
struct LocalStoreTests {
    let sandbox: ShelfSandbox

    init() throws {
        sandbox = try ShelfSandbox()
    }

    /// Adds a book and returns its id, read from the JSON the write prints.
    private func addBook(_ title: String, author: String) async throws -> String {
        let run = try await sandbox.run("--json", "book", "add", "--title", title, "--author", author)
        #expect(run.status == 0, "\(run)")
        return try #require(try run.json()["id"] as? String)
    }

    // MARK: Books

    @Test func aBookIsAddedListedShownEditedFinishedAndRemoved() async throws {
        let add = try await sandbox.run("book", "add", "--title", "Dune", "--author", "Frank Herbert")
        #expect(add.status == 0, "\(add)")
        let id = try #require(add.stdout.firstMatch(of: /^Added book (\S+) \(saved locally; no account to sync it with\)\n$/)?.1).description
        #expect(add.stderr.isEmpty)

        let list = try await sandbox.run("books")
        #expect(list.status == 0)
        // NB: the table shows the id's shortest unique prefix, 8 characters at least.
        #expect(list.stdout == """
            ID        TITLE  AUTHOR         FINISHED
            \(id.prefix(8))  Dune   Frank Herbert  no
            1 book

            """)

        let edit = try await sandbox.run("book", "edit", id, "--title", "Dune Messiah")
        #expect(edit.stdout == "Updated book \(id) (saved locally; no account to sync it with)\n")
        #expect(try await sandbox.run("book", "finish", id).stdout == "Marked book \(id) finished (saved locally; no account to sync it with)\n")

        let show = try await sandbox.run("book", "show", id)
        #expect(show.status == 0)
        #expect(show.stdout.contains("title     Dune Messiah\n"))
        #expect(show.stdout.contains("finished  yes\n"))

        #expect(try await sandbox.run("book", "rm", id).stdout == "Removed book \(id) (saved locally; no account to sync it with)\n")
        #expect(try await sandbox.run("books").stdout == "No books on the shelf yet.\n")
    }

    @Test func theBooksJSONHasTheDocumentedShape() async throws {
        let dune = try await addBook("Dune", author: "Frank Herbert")
        _ = try await addBook("L'Étranger", author: "Albert Camus")
        #expect(try await sandbox.run("book", "finish", dune).status == 0)

        let json = try await sandbox.run("--json", "books", "--search", "ETRANGER").json()
        #expect(Set(json.keys) == ["state", "books", "totalCount", "query", "showFinished", "error", "unreadable"])
        #expect(json["unreadable"] as? [Any] != nil)
        #expect(json["state"] as? String == "loaded")
        #expect(json["totalCount"] as? Int == 2)
        #expect(json["query"] as? String == "ETRANGER")
        let books = try #require(json["books"] as? [[String: Any]])
        #expect(books.count == 1)
        #expect(Set(books[0].keys) == ["id", "title", "author", "isFinished"])
        #expect(books[0]["title"] as? String == "L'Étranger")
        #expect(books[0]["isFinished"] as? Bool == false)
        #expect(json["error"] is NSNull)

        let unfinished = try await sandbox.run("--json", "books", "--unfinished").json()
        #expect((unfinished["books"] as? [[String: Any]])?.map { $0["id"] as? String } != [dune])
        #expect(unfinished["showFinished"] as? Bool == false)
    }

    @Test func aWriteWithJSONPrintsTheWrittenObjectAndQuietPrintsNothing() async throws {
        let json = try await sandbox.run("--json", "book", "add", "--title", "  Solaris ", "--author", "Stanisław Lem").json()
        #expect(json["title"] as? String == "Solaris")
        #expect(json["author"] as? String == "Stanisław Lem")
        #expect(json["isFinished"] as? Bool == false)

        let quiet = try await sandbox.run("-q", "book", "add", "--title", "Dune", "--author", "Frank Herbert")
        #expect(quiet.status == 0)
        #expect(quiet.stdout.isEmpty && quiet.stderr.isEmpty)
        #expect(try await sandbox.run("--json", "books").json()["totalCount"] as? Int == 2)
    }

    // MARK: Errors

    @Test func anUnknownIDIsNotFound() async throws {
        for arguments in [["book", "show", "b-404"], ["book", "finish", "b-404"], ["book", "rm", "b-404"],
                          ["note", "show", "n-404"], ["task", "done", "t-404"], ["favorite", "b-404"]] {
            let run = try await sandbox.run(arguments)
            #expect(run.status == 1, "\(run)")
            #expect(run.stderr.hasPrefix("Error: no "), "\(run)")
            #expect(run.stderr.contains("'\(arguments.last ?? "")'"), "\(run)")
            #expect(run.stdout.isEmpty)
        }
    }

    @Test func aDomainRuleViolationIsADataError() async throws {
        let empty = try await sandbox.run("book", "add", "--title", "   ", "--author", "Anon")
        #expect(empty.status == 65, "\(empty)")
        #expect(empty.stderr == "Error: title must not be empty\n")

        let task = try await sandbox.run("task", "add", "")
        #expect(task.status == 65)
        #expect(task.stderr == "Error: title must not be empty\n")

        let goal = try await sandbox.run("settings", "--show-finished", "off", "--daily-goal", "300")
        #expect(goal.status == 65, "\(goal)")
        #expect(goal.stderr == "Error: daily goal must be 5...120 minutes in steps of 5, got 300\n")
        // NB: nothing was saved, not even the valid half.
        #expect(try await sandbox.run("--json", "settings").json()["showFinished"] as? Bool == true)

        let link = try await sandbox.run("open", "http://example.org")
        #expect(link.status == 65)
        #expect(link.stderr.contains("unsupported scheme 'http'"))
    }

    // MARK: The other features

    @Test func notesTasksFavoritesSettingsAndNavigation() async throws {
        let book = try await addBook("Dune", author: "Frank Herbert")
        let note = try await sandbox.run("--json", "note", "add", "--title", "Spice", "--body", "must flow", "--book", book).json()
        #expect(note["bookID"] as? String == book)
        #expect(try await sandbox.run("note", "add", "--title", "Orphan", "--body", "Lost.", "--book", "b-404").status == 1)
        let notes = try await sandbox.run("--json", "notes", "--book", book).json()
        #expect((notes["notes"] as? [[String: Any]])?.map { $0["title"] as? String } == ["Spice"])
        #expect(notes["bookID"] as? String == book)

        let task = try await sandbox.run("--json", "task", "add", "Read chapter 3").json()
        let taskID = try #require(task["id"] as? String)
        #expect(try await sandbox.run("task", "done", taskID).stdout == "Marked task \(taskID) done (saved locally; no account to sync it with)\n")
        #expect(try await sandbox.run("tasks").stdout.contains("1 of 1 task done"))

        #expect(try await sandbox.run("favorite", book).stdout == "Book \(book) is now a favorite (saved locally; no account to sync it with)\n")
        #expect(try await sandbox.run("favorites").stdout.contains("\(book.prefix(8))  Dune   Frank Herbert"))
        #expect(try await sandbox.run("favorite", book).stdout == "Book \(book) is no longer a favorite (saved locally; no account to sync it with)\n")

        #expect(try await sandbox.run("settings", "--daily-goal", "45").stdout.contains("daily goal     45 minutes"))
        #expect(try await sandbox.run("settings").stdout.contains("daily goal     45 minutes"))

        #expect(try await sandbox.run("open", "shelf://book/\(book)").status == 0)
        #expect(try await sandbox.run("-q", "open", "shelf://author/Frank%20Herbert").stdout.isEmpty)
        let path = try await sandbox.run("--json", "where").json()
        #expect((path["path"] as? [[String: Any]])?.map { $0["kind"] as? String } == ["book", "author"])
        #expect(try await sandbox.run("back").stdout.contains("shelf://book/\(book)"))
        #expect(try await sandbox.run("back").stdout == "At the root: no screen open.\n")

        let status = try await sandbox.run("--json", "status").json()
        // The book, the note, the task, and the preferences record (favorites and settings sync).
        #expect((status["sync"] as? [String: Any])?["pendingChanges"] as? Int == 4)
    }

    @Test func theCartTakesOnlyCatalogProducts() async throws {
        // NB: without a server the catalog is empty.
        let run = try await sandbox.run("cart", "add", "prod-001", "--quantity", "2")
        #expect(run.status == 1, "\(run)")
        #expect(run.stderr.contains("product 'prod-001' is not in the catalog"))
        #expect(try await sandbox.run("cart", "add", "prod-001", "--quantity", "0").status == 65)
        #expect(try await sandbox.run("cart").stdout == "The cart is empty.\n")
        #expect(try await sandbox.run("cart", "rm", "prod-001").status == 1)
        #expect(try await sandbox.run("products").stdout == "The catalog is empty.\n")
    }

    // MARK: Sync

    @Test func syncSaysThereIsNoServer() async throws {
        _ = try await addBook("Dune", author: "Frank Herbert")
        let run = try await sandbox.run("sync")
        #expect(run.status == 69, "\(run)")
        #expect(run.stdout.isEmpty)
        #expect(run.stderr.hasPrefix("Error: no server configured: add an account ('shelf account add NAME --server URL --user USER')"))
        #expect(try await sandbox.run("conflicts").stdout == "No conflicts.\n")
        #expect(try await sandbox.run("failed").stdout == "No failed changes.\n")
        #expect(try await sandbox.run("retry", "1").status == 1)
        #expect(try await sandbox.run("resolve", "books/b-1", "--keep", "remote").status == 1)
    }

    // MARK: Output

    @Test func outputHoldsNoEscapeCodesOffATerminalOrWithNoColor() async throws {
        let id = try await addBook("Dune", author: "Frank Herbert")
        _ = try await sandbox.run("favorite", id)
        for environment in [[:], ["NO_COLOR": "1"]] {
            for arguments in [["books"], ["book", "show", id], ["favorites"], ["status"], ["tasks"], ["settings"],
                              ["book", "show", "nope"], ["boks"], ["--no-color", "books"]] {
                let run = try await sandbox.run(arguments, environment: environment)
                #expect(!run.stdout.contains("\u{1B}") && !run.stderr.contains("\u{1B}"), "\(run)")
            }
        }
    }

    /// On a terminal (a pseudo-terminal from `script`) tables are coloured — unless
    /// `NO_COLOR` or `--no-color` says no.
    @Test func aTerminalGetsColourUnlessNoColorSaysNo() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: "/usr/bin/script"), "util-linux script runs shelf on a terminal")
        _ = try await addBook("Dune", author: "Frank Herbert")
        func onTerminal(_ command: String, _ environment: [String: String] = [:]) async throws -> ShelfRun {
            let run = try sandbox.runProgram("/usr/bin/script", ["-qec", "\(ShelfBinary.url.path) \(command)", "/dev/null"], environment: environment)
            #expect(run.status == 0, "\(run)")
            return run
        }
        #expect(try await onTerminal("books").stdout.contains("\u{1B}[1mTITLE"))
        #expect(!(try await onTerminal("books", ["NO_COLOR": "1"]).stdout.contains("\u{1B}")))
        #expect(!(try await onTerminal("--no-color books").stdout.contains("\u{1B}")))
    }
}
