import Foundation
import Testing
import TestSupport

/// Judging a conflict and taking back an unsynced change through the `shelf` binary,
/// two devices of one reader against a real Kinto: `conflicts show`, `resolve` per
/// field, with a written value and in a scripted `$EDITOR`; `pending` and `undo`, for a
/// change a sync already sent and for one another device changed since.
@Suite("shelf: conflicts judged per field, pending changes and undo (real Kinto)")
struct ConflictAndUndoCLITests {
    /// Two devices of one new reader, with a book both hold as synced.
    struct Devices {
        let laptop: ShelfSandbox
        let phone: ShelfSandbox
        let bookID: String
    }

    private func devices(server: String, user: TestUser) async throws -> Devices {
        let laptop = try ShelfSandbox(), phone = try ShelfSandbox()
        for device in [laptop, phone] {
            let added = try await device.run(
                ["account", "add", "reader", "--server", server, "--user", user.name], environment: ["SHELF_PASSWORD": user.password])
            #expect(added.status == 0, "\(added)")
        }
        let book = try await laptop.run("--json", "book", "add", "--title", "Dispossessed", "--author", "Ursula Le Guin")
        let bookID = try #require(try book.json()["id"] as? String)
        #expect(try await laptop.run("sync").status == 0)
        #expect(try await phone.run("sync").status == 0)
        return Devices(laptop: laptop, phone: phone, bookID: bookID)
    }

    /// The laptop changes title and author, the phone title and finished: after both
    /// sync, the phone holds a conflict on the title.
    private func titleClash() async throws -> Devices {
        let kinto = try KintoServer.shared()
        let devices = try await devices(server: kinto.baseURL, user: try await kinto.newUser(prefix: "judge-cli"))
        let id = devices.bookID
        #expect(try await devices.laptop.run("book", "edit", id, "--title", "The Dispossessed", "--author", "Ursula K. Le Guin").status == 0)
        #expect(try await devices.phone.run("book", "edit", id, "--title", "The Dispossessed: An Ambiguous Utopia").status == 0)
        #expect(try await devices.phone.run("book", "finish", id).status == 0)
        #expect(try await devices.laptop.run("sync").status == 0)
        let clash = try await devices.phone.run("sync")
        #expect(clash.status == 1, "\(clash)")
        return devices
    }

    private func book(_ device: ShelfSandbox, _ id: String) async throws -> [String: Any] {
        let shown = try await device.run("--json", "book", "show", id)
        #expect(shown.status == 0, "\(shown)")
        return try #require(try shown.json()["book"] as? [String: Any])
    }

    // MARK: Conflicts

    @Test func aConflictIsShownFieldByFieldAndResolvedWithAWrittenTitle() async throws {
        let devices = try await titleClash()
        let (laptop, phone, id) = (devices.laptop, devices.phone, devices.bookID)

        let shown = try await phone.run("conflicts", "show", id)
        #expect(shown.status == 0, "\(shown)")
        let lines = shown.stdout.split(separator: "\n").map { $0.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ") }
        #expect(lines.contains(#"author_name "Ursula Le Guin" "Ursula Le Guin" "Ursula K. Le Guin" keeps server"#), "\(shown)")
        #expect(lines.contains(#"finished false true false keeps local"#), "\(shown)")
        #expect(lines.contains(#"title "Dispossessed" "The Dispossessed: An Ambiguous Utopia" "The Dispossessed" clash"#), "\(shown)")

        let json = try await phone.run("--json", "conflicts", "show", "books/\(id)").json()
        #expect(json["clashing"] as? [String] == ["title"])
        let fields = try #require(json["fields"] as? [[String: Any]])
        let title = try #require(fields.first { $0["name"] as? String == "title" })
        #expect(title["base"] as? String == "Dispossessed")
        #expect(title["local"] as? String == "The Dispossessed: An Ambiguous Utopia")
        #expect(title["server"] as? String == "The Dispossessed")
        #expect(title["outcome"] as? String == "clash")

        // Decisions that do not fit are refused, and change nothing.
        let refusals: [([String], Int32, String)] = [
            (["--field", "author_name=local"], 65, "Error: field 'author_name' is not in conflict (only 'title' is)"),
            (["--field", "colour=local"], 65, "Error: the record has no field 'colour' (its fields: author_name, finished, title)"),
            (["--field", "title=local", "--set", "title=Mine"], 64, "Error: Field 'title' is given twice"),
            (["--field", "title=mine"], 64, "Error: Invalid value 'title=mine' for '--field'"),
            (["--set", "title="], 65, "Error: the resolved record would break a rule"),
            ([], 64, "Error: Nothing chosen"),
        ]
        for (options, status, message) in refusals {
            let refused = try await phone.run(["resolve", id] + options)
            #expect(refused.status == status, "\(refused)")
            #expect(refused.stderr.hasPrefix(message), "\(refused)")
        }
        #expect((try await phone.run("--json", "conflicts").json()["conflicts"] as? [Any])?.count == 1)

        let resolved = try await phone.run("--json", "resolve", id, "--set", "title=The Dispossessed (1974)")
        #expect(resolved.status == 0, "\(resolved)")
        #expect(try resolved.json()["fields"] as? [String: String] == ["title": "written"])
        #expect(try await phone.run("sync").status == 0)
        #expect(try await laptop.run("sync").status == 0)

        for device in [laptop, phone] {
            let book = try await book(device, id)
            #expect(book["title"] as? String == "The Dispossessed (1974)")
            #expect(book["author"] as? String == "Ursula K. Le Guin", "the laptop's change of another field stays")
            #expect(book["isFinished"] as? Bool == true, "the phone's change of another field stays")
            #expect((try await device.run("--json", "conflicts").json()["conflicts"] as? [Any])?.isEmpty == true)
        }
    }

    @Test func aConflictIsResolvedPerFieldByName() async throws {
        let devices = try await titleClash()
        // The table shows the id's short form; completion offers the conflict as
        // COLLECTION/ID, or the id itself while one is being typed.
        let table = try await devices.phone.run("conflicts").stdout
        #expect(table.contains("books/\(devices.bookID.prefix(8)) ") && !table.contains(devices.bookID), "\(table)")
        #expect(try await devices.phone.run("__complete", "conflicts", "--", "").stdout == "books/\(devices.bookID)\n")
        #expect(try await devices.phone.run("__complete", "conflicts", "--", String(devices.bookID.prefix(5))).stdout == "\(devices.bookID)\n")
        #expect(try await devices.phone.run("__complete", "conflicts", "--", "notes/").stdout.isEmpty)
        // A unique prefix of the id names the conflict, as everywhere on the command line.
        let resolved = try await devices.phone.run("resolve", String(devices.bookID.prefix(8)), "--field", "title=remote")
        #expect(resolved.status == 0, "\(resolved)")
        #expect(resolved.stdout.hasPrefix("Resolved books/\(devices.bookID): title ← server\n"), "\(resolved)")
        #expect(try await devices.phone.run("sync").status == 0)
        #expect(try await devices.laptop.run("sync").status == 0)
        for device in [devices.laptop, devices.phone] {
            let book = try await book(device, devices.bookID)
            #expect(book["title"] as? String == "The Dispossessed")
            #expect(book["isFinished"] as? Bool == true)
        }
    }

    @Test func aConflictIsMergedInAScriptedEditor() async throws {
        let devices = try await titleClash()
        let phone = devices.phone, id = devices.bookID
        let copyForm = try phone.file("copy-form.sh", contents: "#!/bin/sh\ncat \"$1\" > \"$(dirname \"$0\")/form.txt\"\n", mode: 0o755)
        let breakForm = try phone.file("break-form.sh", contents: "#!/bin/sh\necho 'colour: red' >> \"$1\"\n", mode: 0o755)
        let mergeTitle = try phone.file(
            "merge-title.sh", contents: "#!/bin/sh\nsed -i 's/^title: .*/title: The Dispossessed, merged/' \"$1\"\n", mode: 0o755)

        // Saved unchanged: refused, nothing changes.
        let unchanged = try await phone.run(["resolve", id, "--edit"], environment: ["EDITOR": copyForm.path])
        #expect(unchanged.status == 65, "\(unchanged)")
        #expect(unchanged.stderr.hasPrefix("Error: the form was saved with no value changed (or emptied); the conflict is left as it was"), "\(unchanged)")
        let form = try String(contentsOf: phone.root.appendingPathComponent("form.txt"), encoding: .utf8)
        #expect(form.contains("\ntitle: \"The Dispossessed: An Ambiguous Utopia\"\n#   base:   \"Dispossessed\"\n"), "\(form)")
        #expect(form.contains("#   server: \"The Dispossessed\"\n"), "\(form)")

        // A line that is not a clashing field: refused naming it, the text kept.
        let broken = try await phone.run(["resolve", id, "--edit"], environment: ["VISUAL": breakForm.path, "EDITOR": mergeTitle.path])
        #expect(broken.status == 65, "\(broken)")
        #expect(broken.stderr.contains("'colour' is not a clashing field (clashing: title); nothing was changed, and your text is kept in "), "\(broken)")
        let kept = try #require(broken.stderr.split(separator: " ").last.map { String($0.dropLast()) })
        #expect(FileManager.default.fileExists(atPath: kept))
        try? FileManager.default.removeItem(atPath: kept)
        #expect((try await phone.run("--json", "conflicts").json()["conflicts"] as? [Any])?.count == 1)

        // An editor that cannot start: unavailable, nothing changed.
        let missing = try await phone.run(["resolve", id, "--edit"], environment: ["VISUAL": "/nonexistent/editor"])
        #expect(missing.status == 69, "\(missing)")
        #expect((try await phone.run("--json", "conflicts").json()["conflicts"] as? [Any])?.count == 1)

        let merged = try await phone.run(["resolve", id, "--edit"], environment: ["EDITOR": mergeTitle.path])
        #expect(merged.status == 0, "\(merged)")
        #expect(try await phone.run("sync").status == 0)
        #expect(try await devices.laptop.run("sync").status == 0)
        #expect(try await book(devices.laptop, id)["title"] as? String == "The Dispossessed, merged")
    }

    // MARK: Pending and undo

    @Test func pendingChangesAreListedAndUndoneOneByOne() async throws {
        let sandbox = try ShelfSandbox()
        let added = try await sandbox.run("--json", "book", "add", "--title", "Kindred", "--author", "Octavia E. Butler")
        let id = try #require(try added.json()["id"] as? String)
        #expect(try await sandbox.run("task", "add", "Read chapter 1").status == 0)

        let pending = try await sandbox.run("--json", "pending").json()
        let changes = try #require(pending["changes"] as? [[String: Any]])
        #expect(changes.map { $0["change"] as? String } == ["create", "create"])
        #expect(changes.map { $0["title"] as? String } == ["Kindred", "Read chapter 1"])
        #expect(changes.map { $0["state"] as? String } == ["waiting", "waiting"])
        #expect(changes.first?["id"] as? String == id)
        let operations = try #require(pending["operations"] as? [[String: Any]])
        #expect(operations.map { $0["origin"] as? String } == ["book add", "task add"])
        // The table shows the shortest unique prefix (8 characters here), as every table does.
        let table = try await sandbox.run("pending").stdout
        #expect(table.contains("added book \(id.prefix(8)) (\"Kindred\")") && !table.contains(id), "\(table)")

        // Taking back an addition removes a record: off a terminal it needs --yes.
        let asked = try await sandbox.run("undo")
        #expect(asked.status == 64, "\(asked)")
        #expect(asked.stderr.hasPrefix("Error: this undo removes task "), "\(asked)")
        #expect(asked.stderr.contains("run it on a terminal to be asked, or add --yes; nothing was changed"), "\(asked)")
        let undone = try await sandbox.run("undo", "--yes")
        #expect(undone.status == 0, "\(undone)")
        #expect(undone.stdout.hasPrefix("Undid #2 (task add): added task "), "\(undone)")
        let byID = try await sandbox.run("--json", "undo", "--yes", id)
        #expect(try (byID.json()["records"] as? [[String: Any]])?.first?["outcome"] as? String == "removed", "\(byID)")
        #expect(try await sandbox.run("pending").stdout == "No unsynced changes.\n")
        #expect((try await sandbox.run("--json", "books").json()["books"] as? [Any])?.isEmpty == true)
        let nothing = try await sandbox.run("undo")
        #expect(nothing.status == 1)
        #expect(nothing.stderr == "Error: nothing to undo: the history holds no operation in effect and nothing waits\n")
    }

    /// An undo of a change in flight is a change of its own, queued behind it: the server
    /// gets the edit (it may have it already) and then its undoing.
    @Test func aChangeASyncAlreadySentIsTakenBackByAChangeQueuedBehindIt() async throws {
        let kinto = try KintoServer.shared()
        let proxy = try FaultProxy.start(upstream: kinto)
        defer { proxy.stop() }
        let user = try await kinto.newUser(prefix: "undo-cli")
        let devices = try await devices(server: proxy.baseURL, user: user)
        let laptop = devices.laptop, id = devices.bookID

        // The edit reaches the server but its reply is lost: it stays sent, answer unknown.
        #expect(try await laptop.run("book", "edit", id, "--title", "The Dispossessed").status == 0)
        try await proxy.add(.init(.loseReply, method: .post, path: "/v1/batch", bodyContains: "/records/\(id)", count: -1))
        let lost = try await laptop.run("sync")
        #expect(lost.status == 75, "\(lost)")
        try await proxy.clear()
        let changes = try #require(try await laptop.run("--json", "pending").json()["changes"] as? [[String: Any]])
        #expect(changes.map { $0["state"] as? String } == ["sent"])

        let undone = try await laptop.run("undo")
        #expect(undone.status == 0, "\(undone)")
        #expect(undone.stdout.contains("title") && undone.stdout.contains("set back"), "\(undone)")
        #expect(try await book(laptop, id)["title"] as? String == "Dispossessed")

        #expect(try await laptop.run("sync").status == 0)
        #expect(try await laptop.run("pending").stdout == "No unsynced changes.\n")
        #expect(try await devices.phone.run("sync").status == 0)
        #expect(try await book(devices.phone, id)["title"] as? String == "Dispossessed")
    }

    /// Another device renamed the book after this one edited it: the undo names that
    /// change, and takes it over only with a yes.
    @Test func anUndoOfAnEditAnotherDeviceChangedSinceSaysSoAndNeedsAYes() async throws {
        let kinto = try KintoServer.shared()
        let devices = try await devices(server: kinto.baseURL, user: try await kinto.newUser(prefix: "undo-later"))
        let laptop = devices.laptop, phone = devices.phone, id = devices.bookID
        #expect(try await laptop.run("book", "edit", id, "--title", "The Dispossessed").status == 0)
        #expect(try await laptop.run("sync").status == 0)
        #expect(try await phone.run("sync").status == 0)
        #expect(try await phone.run("book", "edit", id, "--title", "The Dispossessed: An Ambiguous Utopia").status == 0)
        #expect(try await phone.run("sync").status == 0)
        #expect(try await laptop.run("sync").status == 0)

        let asked = try await laptop.run("undo")
        #expect(asked.status == 64, "\(asked)")
        #expect(asked.stderr.contains(
            "title back to \"Dispossessed\": it was changed since by a sync (or a settled conflict), to \"The Dispossessed: An Ambiguous Utopia\""),
            "\(asked)")
        #expect(try await book(laptop, id)["title"] as? String == "The Dispossessed: An Ambiguous Utopia", "nothing changed")

        #expect(try await laptop.run("undo", "--yes").status == 0)
        #expect(try await laptop.run("sync").status == 0)
        #expect(try await phone.run("sync").status == 0)
        #expect(try await book(phone, id)["title"] as? String == "Dispossessed")
    }
}
