import Foundation
import Testing
import TestSupport

/// The reader's data end to end through the `shelf` binary: the reading log, `book rm`
/// with what refers to the book, import and export.
@Suite("shelf: reading log, import, export and book removal")
struct ReaderDataCLITests {
    let sandbox: ShelfSandbox

    init() throws {
        sandbox = try ShelfSandbox()
    }

    private func addBook(_ title: String, author: String, in sandbox: ShelfSandbox? = nil) async throws -> String {
        let run = try await (sandbox ?? self.sandbox).run("--json", "book", "add", "--title", title, "--author", author)
        #expect(run.status == 0, "\(run)")
        return try #require(try run.json()["id"] as? String)
    }

    // MARK: Reading log

    @Test func readTodayAndLog() async throws {
        let book = try await addBook("Dune", author: "Frank Herbert")
        #expect(try await sandbox.run("settings", "--daily-goal", "30").status == 0)
        let yesterday = try #require(Calendar(identifier: .gregorian).date(byAdding: .day, value: -1, to: Date()))
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = "yyyy-MM-dd"
        let day = formatter.string(from: yesterday)

        let logged = try await sandbox.run("--json", "read", "25", "--book", book)
        #expect(logged.status == 0, "\(logged)")
        #expect(try logged.json()["minutes"] as? Int == 25)
        #expect(try await sandbox.run("read", "30", "--on", day).stdout == "Logged 30 minutes on \(day) (saved locally; no account to sync it with)\n")

        let today = try await sandbox.run("--json", "today").json()
        #expect(today["minutesToday"] as? Int == 25)
        #expect(today["goalMinutes"] as? Int == 30)
        #expect(today["goalMet"] as? Bool == false)
        #expect(today["streakDays"] as? Int == 1)
        #expect(try await sandbox.run("today").stdout.contains("25 of 30 minutes, 5 minutes to go"))

        let log = try await sandbox.run("--json", "log", "--days", "2").json()
        #expect((log["days"] as? [[String: Any]])?.map { $0["totalMinutes"] as? Int } == [25, 30])
        #expect(log["totalMinutes"] as? Int == 55)

        for (arguments, status) in [(["read", "0"], 65), (["read", "ten"], 64), (["read", "5", "--on", "2026-02-30"], 65), (["read", "5", "--on", "2999-01-01"], 65),
                                     (["read", "5", "--book", "b-404"], 1), (["log", "--days", "0"], 64)] {
            let run = try await sandbox.run(arguments)
            #expect(run.status == Int32(status), "\(run)")
        }
    }

    /// `log --sort/--reverse/--limit` order the days and cut them; an unknown field is
    /// refused with the closest one (64).
    @Test func theLogIsSortedAndCut() async throws {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = "yyyy-MM-dd"
        let days = try (0..<3).map { offset in
            formatter.string(from: try #require(Calendar(identifier: .gregorian).date(byAdding: .day, value: -offset, to: Date())))
        }
        // Today 25 minutes in one session, yesterday 40 in two, the day before 10.
        for (minutes, day) in [("25", days[0]), ("15", days[1]), ("25", days[1]), ("10", days[2])] {
            #expect(try await sandbox.run("read", minutes, "--on", day).status == 0)
        }
        func listed(_ arguments: String...) async throws -> [String] {
            let run = try await sandbox.run(["--json", "log", "--days", "3"] + arguments)
            #expect(run.status == 0, "\(run)")
            return try #require(try run.json()["days"] as? [[String: Any]]).compactMap { $0["day"] as? String }
        }
        #expect(try await listed() == days)
        #expect(try await listed("--reverse") == days.reversed())
        #expect(try await listed("--sort", "day") == days.reversed())
        #expect(try await listed("--sort", "-minutes") == [days[1], days[0], days[2]])
        #expect(try await listed("--sort", "minutes", "--limit", "2") == [days[2], days[0]])
        #expect(try await listed("--sort", "sessions", "--reverse", "--limit", "1") == [days[1]])
        let limited = try await sandbox.run("--json", "log", "--days", "3", "--limit", "1").json()
        #expect(limited["totalMinutes"] as? Int == 25)
        let cut = try await sandbox.run("log", "--days", "3", "--limit", "2").stdout
        #expect(cut.hasSuffix("65 minutes on the 2 days listed (of 3 with reading in the last 3 days)\n"), "\(cut)")

        let mistyped = try await sandbox.run("log", "--sort", "minuts")
        #expect(mistyped.status == 64)
        #expect(mistyped.stderr.contains("Did you mean 'minutes'?"), "\(mistyped)")
    }

    /// A session another client wrote that breaks a rule is left out of the totals, and
    /// said — never dropped in silence; the import keeps it as it was.
    @Test func aSessionShelfCannotShowIsCountedNotDropped() async throws {
        let file = try sandbox.file("sessions.json", contents: """
            {"format": "shelf-export", "version": 1, "collections": {"sessions": [
             {"id": "s-good", "minutes": 20, "day": "2026-11-30", "book_id": null},
             {"id": "s-bad", "minutes": 0, "day": "2026-11-30", "book_id": null}]}}
            """, mode: 0o600)
        #expect(try await sandbox.run("import", file.path).status == 0)

        let log = try await sandbox.run("--json", "log", "--days", "3660")
        #expect(log.status == 0)
        #expect(try log.json()["totalMinutes"] as? Int == 20)
        #expect((try log.json()["unreadable"] as? [[String: Any]])?.map { $0["id"] as? String } == ["s-bad"])
        #expect(log.stderr.contains("s-bad"), "\(log)")
    }

    // MARK: book rm

    @Test func removingABookWithNotesIsRefusedUnlessCascadeOrKeepNotesSaysWhatToDo() async throws {
        let dune = try await addBook("Dune", author: "Frank Herbert")
        let solaris = try await addBook("Solaris", author: "Stanisław Lem")
        for book in [dune, solaris] {
            #expect(try await sandbox.run("note", "add", "--title", "About it", "--body", "Worth it.", "--book", book).status == 0)
            #expect(try await sandbox.run("read", "10", "--book", book).status == 0)
            #expect(try await sandbox.run("favorite", book).status == 0)
        }

        let refused = try await sandbox.run("book", "rm", dune)
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("book '\(dune)' has 1 note, 1 reading session and a favorite; nothing was removed"), "\(refused)")
        #expect(refused.stderr.contains("--cascade"))
        #expect(try await sandbox.run("--json", "books").json()["totalCount"] as? Int == 2)

        let cascade = try await sandbox.run("--json", "book", "rm", dune, "--cascade").json()
        #expect(cascade["notesRemoved"] as? Int == 1 && cascade["sessionsRemoved"] as? Int == 1)
        #expect(cascade["favoriteRemoved"] as? Bool == true)

        let kept = try await sandbox.run("book", "rm", solaris, "--keep-notes")
        #expect(kept.stdout == "Removed book \(solaris); kept 1 note without a book, kept 1 reading session without a book, removed its favorite (saved locally; no account to sync it with)\n", "\(kept)")

        let notes = try await sandbox.run("--json", "notes").json()["notes"] as? [[String: Any]]
        #expect(notes?.count == 1)
        #expect(notes?.first?["bookID"] is NSNull)
        #expect((try await sandbox.run("--json", "favorites").json()["favorites"] as? [Any])?.isEmpty == true)
        #expect(try await sandbox.run("--json", "log").json()["totalMinutes"] as? Int == 10)
        #expect(try await sandbox.run("book", "rm", dune, "--cascade", "--keep-notes").status == 64)
    }

    // MARK: Import

    @Test func aGoodreadsExportImportedTwiceAddsItsBooksOnce() async throws {
        let file = FixtureFiles.url("import/goodreads_library_export.csv").path
        let first = try await sandbox.run("--json", "import", file)
        #expect(first.status == 0, "\(first)")
        #expect(try first.json()["added"] as? Int == 215 + 107)
        let again = try await sandbox.run("import", file)
        #expect(again.stdout.hasPrefix("Imported \(file) (goodreads, 220 rows): 0 added, 0 updated, 322 unchanged, 5 skipped\n"), "\(again)")
        #expect(again.stdout.contains("line 135: skipped: the same Book Id 1336 as line 68"))
        #expect(try await sandbox.run("--json", "books").json()["totalCount"] as? Int == 215)
    }

    @Test func aMalformedFileIsRefusedNamingTheLineAndNothingIsWritten() async throws {
        let run = try await sandbox.run("import", FixtureFiles.url("import/goodreads_malformed.csv").path)
        #expect(run.status == 65)
        #expect(run.stderr.contains("nothing was imported: line 5: a quoted field that starts here is not closed"), "\(run)")
        #expect(try await sandbox.run("--json", "books").json()["totalCount"] as? Int == 0)
        #expect(try await sandbox.run("import", "/nonexistent/file.csv").status == 66)
    }

    /// On a terminal a large import draws a bar on standard error; off one, nothing.
    @Test func aLargeImportDrawsAProgressBarOnATerminalOnly() async throws {
        var csv = "Book Id,Title,Author,Exclusive Shelf\n"
        for number in 1...2500 { csv += "\(number),Book \(number),Author \(number % 40),read\n" }
        let file = try sandbox.file("large.csv", contents: csv, mode: 0o600)

        let onTerminal = try await sandbox.run(
            ["import", file.path], environment: ["NO_COLOR": "1"], terminals: [.input, .output, .error], size: (80, 24))
        #expect(onTerminal.status == 0, "\(onTerminal)")
        #expect(onTerminal.stderr.contains("\r[####################] 2500/2500 records"), "\(onTerminal)")
        #expect(onTerminal.stdout.contains("2500 added"))

        let piped = try await sandbox.run("import", file.path)
        #expect(piped.stderr.isEmpty, "\(piped)")
        #expect(piped.stdout.contains("2500 unchanged"))
    }

    @Test func aDryRunSaysWhatWouldChangeAndWritesNothing() async throws {
        let run = try await sandbox.run("import", "--dry-run", FixtureFiles.url("import/calibre_list.json").path)
        #expect(run.stdout.hasPrefix("Would import"), "\(run)")
        #expect(run.stdout.contains("5 added"))
        #expect(try await sandbox.run("--json", "books").json()["totalCount"] as? Int == 0)
    }

    // MARK: Export

    @Test func anExportFileIsPrivateAndAnUnwritablePathIsSaid() async throws {
        _ = try await addBook("Dune", author: "Frank Herbert")
        let file = sandbox.root.appendingPathComponent("export.json")
        #expect(try await sandbox.run("-q", "export", "--output", file.path).stdout.isEmpty)
        let mode = try FileManager.default.attributesOfItem(atPath: file.path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        #expect(try await sandbox.run("export", "--output", file.path).status == 0, "an export replaces the file")

        let refused = try await sandbox.run("export", "--output", "/nonexistent-folder/export.json")
        #expect(refused.status == 73)
        #expect(refused.stderr.contains("cannot write /nonexistent-folder/export.json: No such file or directory"), "\(refused)")
    }

    /// Everything a reader keeps, exported and imported into a fresh store, lists the same.
    @Test(arguments: ["json", "csv"])
    func anExportImportedIntoAFreshStoreListsTheSame(format: String) async throws {
        #expect(try await sandbox.run("import", FixtureFiles.url("import/calibre_list.json").path).status == 0)
        let dune = try await addBook("Dune", author: "Frank Herbert")
        #expect(try await sandbox.run("note", "add", "--title", "Spice, \"the\" melange", "--body", "line one\nline two", "--book", dune).status == 0)
        #expect(try await sandbox.run("task", "add", "Reread chapter 3").status == 0)
        #expect(try await sandbox.run("favorite", dune).status == 0)
        #expect(try await sandbox.run("settings", "--daily-goal", "45", "--show-finished", "off").status == 0)
        #expect(try await sandbox.run("read", "25", "--book", dune).status == 0)
        #expect(try await sandbox.run("read", "40", "--on", "2026-01-15").status == 0)

        let file = sandbox.root.appendingPathComponent("export.\(format)").path
        let export = try await sandbox.run("--json", "export", "--format", format, "--output", file)
        #expect(export.status == 0, "\(export)")
        #expect(try export.json()["records"] as? Int == 5 + 1 + 1 + 1 + 1 + 2)

        let fresh = try ShelfSandbox()
        let imported = try await fresh.run("import", file)
        #expect(imported.status == 0, "\(imported)")
        let lists: [[String]] = [["books"], ["notes"], ["tasks"], ["favorites"], ["settings"], ["today"],
                                 ["log", "--days", "3660"], ["book", "show", dune]]
        for list in lists {
            let before = try await sandbox.run(["--json"] + list), after = try await fresh.run(["--json"] + list)
            #expect(before.status == 0 && after.status == 0)
            #expect(before.stdout == after.stdout, "\(list)")
        }
        let toStdout = try await sandbox.run("export", "--collection", "books", "--collection", "sessions")
        #expect(toStdout.stdout.hasPrefix("{\n  \"format\": \"shelf-export\",\n  \"version\": 1,\n"))
        #expect(toStdout.stdout.contains("\"sessions\": ["))
        #expect(!toStdout.stdout.contains("\"notes\": ["))
    }
}
