import Foundation
import Testing
import TestSupport

/// `shelf sync` against a real Kinto, and reads when the server is not there.
@Suite("shelf: sync with a real Kinto")
struct SyncRoundTripTests {
    /// An account for `user` on `server` in `sandbox`, password through the environment.
    /// `verify: false` for a server that is not there (`--no-verify`).
    private func addAccount(_ sandbox: ShelfSandbox, server: String, user: TestUser, verify: Bool = true) async throws {
        let arguments = ["account", "add", "reader", "--server", server, "--user", user.name] + (verify ? [] : ["--no-verify"])
        let run = try await sandbox.run(arguments, environment: ["SHELF_PASSWORD": user.password])
        #expect(run.status == 0, "\(run)")
    }

    /// NB: the one round trip through the built binaries, end to end; the others run
    /// the commands in-process.
    @Test func aBookAndANoteReachAnotherDevice() async throws {
        let kinto = try KintoServer.shared()
        let user = try await kinto.newUser(prefix: "cli")

        // GIVEN a book and a note written on one device and synced
        let laptop = try ShelfSandbox()
        try await addAccount(laptop, server: kinto.baseURL, user: user)
        let book = try laptop.runBinary("--json", "book", "add", "--title", "Cien años de soledad", "--author", "Gabriel García Márquez")
        let bookID = try #require(try book.json()["id"] as? String)
        #expect(try laptop.runBinary("note", "add", "--title", "Macondo", "--body", "Page 1", "--book", bookID).status == 0)
        let sync = try laptop.runBinary("--progress", "sync")
        #expect(sync.status == 0, "\(sync)")
        #expect(sync.stdout.contains("Synced account reader"), "\(sync)")
        #expect(!sync.stdout.contains("sync: "), "the result on standard output, progress on standard error: \(sync)")
        #expect(sync.stderr.contains("sync: books: pushed 1 change\n"), "\(sync)")
        #expect(!sync.stdout.contains("\u{1B}") && !sync.stderr.contains("\u{1B}"))
        let status = try laptop.runBinary("--json", "status").json()
        #expect((status["sync"] as? [String: Any])?["pendingChanges"] as? Int == 0, "\(status)")

        // WHEN another device of the same reader syncs
        let phone = try ShelfSandbox()
        try await addAccount(phone, server: kinto.baseURL, user: user)
        let pulled = try phone.runBinary("--json", "sync")
        #expect(pulled.status == 0, "\(pulled)")
        let report = try pulled.json()
        #expect(report["outcome"] as? String == "synced")
        #expect(((report["collections"] as? [String: Any])?["books"] as? [String: Any])?["pulled"] as? Int == 1)

        // THEN it lists the book and the note
        let books = try #require(try phone.runBinary("--json", "books").json()["books"] as? [[String: Any]])
        #expect(books.map { $0["id"] as? String } == [bookID])
        #expect(books.first?["title"] as? String == "Cien años de soledad")
        let notes = try #require(try phone.runBinary("--json", "notes").json()["notes"] as? [[String: Any]])
        #expect(notes.map { $0["title"] as? String } == ["Macondo"])
        #expect(notes.first?["bookID"] as? String == bookID)
        // AND the shared catalog came along
        #expect((try phone.runBinary("--json", "products").json()["totalCount"] as? Int ?? 0) > 0)
    }

    /// `cart add` adds to what the cart holds; `cart set` sets it. The catalog comes
    /// from a real Kinto's shared bucket.
    @Test func cartAddSumsAndCartSetSets() async throws {
        let kinto = try KintoServer.shared()
        let user = try await kinto.newUser(prefix: "cart")
        let sandbox = try ShelfSandbox()
        try await addAccount(sandbox, server: kinto.baseURL, user: user)
        #expect(try await sandbox.run("sync").status == 0)
        let products = try #require(try await sandbox.run("--json", "--offline", "products").json()["products"] as? [[String: Any]])
        let product = try #require(products.first?["id"] as? String)

        let first = try await sandbox.run("--offline", "cart", "add", product, "--quantity", "2")
        #expect(first.status == 0, "\(first)")
        #expect(first.stdout == "Put 2 × \(product) in the cart (queued for sync)\n")
        let second = try await sandbox.run("--offline", "--json", "cart", "add", product)
        #expect(second.status == 0, "\(second)")
        #expect(try second.json()["quantity"] as? Int == 3)
        let third = try await sandbox.run("--offline", "cart", "add", product, "--quantity", "4")
        #expect(third.stdout == "Added 4 × \(product) to the cart, 7 in all (queued for sync)\n")
        func quantity() async throws -> Int? {
            let lines = try await sandbox.run("--offline", "--json", "cart").json()["lines"] as? [[String: Any]]
            return lines?.first { $0["productID"] as? String == product }?["quantity"] as? Int
        }
        #expect(try await quantity() == 7)

        #expect(try await sandbox.run("--offline", "cart", "set", product, "--quantity", "1").status == 0)
        #expect(try await quantity() == 1)
        #expect(try await sandbox.run("--offline", "cart", "set", product).status == 64)
        #expect(try await sandbox.run("--offline", "cart", "add", product, "--quantity", "0").status == 65)
        #expect(try await quantity() == 1)

        // A product by its name; `edit` (the grammar's verb for `set`); quantity 0 takes the line out.
        let name = try #require(products.first?["name"] as? String)
        #expect(try await sandbox.run("--offline", "cart", "edit", name, "--quantity", "2").status == 0)
        #expect(try await quantity() == 2)
        let out = try await sandbox.run("--offline", "cart", "edit", name, "--quantity", "0")
        #expect(out.status == 0, "\(out)")
        #expect(out.stdout == "Took \(product) out of the cart (queued for sync)\n", "\(out)")
        #expect(try await quantity() == nil)
        #expect(try await sandbox.run("--offline", "cart", "add", name).status == 0)
        #expect(try await sandbox.run("--offline", "cart", "rm", name).status == 0, "a cart line by its product's name")
        #expect(try await quantity() == nil)
        #expect(try await sandbox.run("--offline", "cart", "edit", product, "--quantity", "-1").status == 65)
    }

    /// Two devices through the real binaries: a favorite on one and a goal on the other
    /// both survive on both, and the minutes both devices read add up in `today`.
    @Test func favoritesSettingsAndReadingReachEveryDevice() async throws {
        let kinto = try KintoServer.shared()
        let user = try await kinto.newUser(prefix: "cli")
        let laptop = try ShelfSandbox(), phone = try ShelfSandbox()
        try await addAccount(laptop, server: kinto.baseURL, user: user)
        try await addAccount(phone, server: kinto.baseURL, user: user)
        let book = try await laptop.run("--json", "book", "add", "--title", "Kindred", "--author", "Octavia E. Butler")
        let bookID = try #require(try book.json()["id"] as? String)
        #expect(try await laptop.run("sync").status == 0)
        #expect(try await phone.run("sync").status == 0)

        #expect(try await laptop.run("favorite", bookID).status == 0)
        #expect(try await laptop.run("read", "20", "--book", bookID).status == 0)
        #expect(try await phone.run("settings", "--daily-goal", "30").status == 0)
        #expect(try await phone.run("read", "15").status == 0)
        for device in [laptop, phone, laptop] {
            let run = try await device.run("--json", "sync")
            #expect(run.status == 0, "\(run)")
        }

        for device in [laptop, phone] {
            let favorites = try await device.run("--json", "favorites").json()["favorites"] as? [[String: Any]]
            #expect(favorites?.map { $0["id"] as? String } == [bookID])
            #expect(try await device.run("--json", "settings").json()["dailyGoalMinutes"] as? Int == 30)
            let today = try await device.run("--json", "today").json()
            #expect(today["minutesToday"] as? Int == 35)
            #expect(today["goalMet"] as? Bool == true)
        }
        #expect((try await laptop.run("--json", "conflicts").json()["conflicts"] as? [Any])?.isEmpty == true)
    }

    @Test func workDoneBeforeAnyAccountSyncsWithTheFirstOne() async throws {
        let kinto = try KintoServer.shared()
        let user = try await kinto.newUser(prefix: "cli")
        let sandbox = try ShelfSandbox()

        // GIVEN a book written with no account at all (the local-only store)
        let book = try await sandbox.run("--json", "book", "add", "--title", "Offline first", "--author", "Ana")
        let bookID = try #require(try book.json()["id"] as? String)

        // WHEN the first account is added, the offline work moves to it
        let added = try await sandbox.run("account", "add", "reader", "--server", kinto.baseURL, "--user", user.name,
                                    environment: ["SHELF_PASSWORD": user.password])
        #expect(added.status == 0, "\(added)")
        #expect(added.stdout.contains("Moved the local-only store (1 record, 1 unsynced change) to account reader"), "\(added)")

        // THEN the next sync pushes it, and another device sees it
        let sync = try await sandbox.run("--progress", "sync")
        #expect(sync.status == 0, "\(sync)")
        #expect(sync.stderr.contains("books: pushed 1 change"), "\(sync)")
        let phone = try ShelfSandbox()
        try await addAccount(phone, server: kinto.baseURL, user: user)
        #expect(try await phone.run("sync").status == 0)
        let books = try #require(try await phone.run("--json", "books").json()["books"] as? [[String: Any]])
        #expect(books.map { $0["id"] as? String } == [bookID])
    }

    @Test func aReadWithTheServerGoneShowsTheLocalDataAndWarns() async throws {
        let sandbox = try ShelfSandbox()
        try await addAccount(sandbox, server: try unreachableServer(), user: TestUser(prefix: "cli"), verify: false)
        #expect(try await sandbox.run("book", "add", "--title", "Dune", "--author", "Frank Herbert").status == 0)

        let run = try await sandbox.run("books")
        #expect(run.status == 0, "\(run)")
        #expect(run.stdout.contains("Dune"))
        let warnings = run.stderr.split(separator: "\n")
        #expect(warnings.count == 1, "\(run)")
        #expect(warnings.first?.hasPrefix("Warning: could not refresh books from the server (") == true, "\(run)")
        #expect(warnings.first?.hasSuffix("; showing the local data") == true, "\(run)")

        let notes = try await sandbox.run("--json", "notes")
        #expect(notes.status == 0, "\(notes)")
        #expect(try notes.json()["notes"] as? [Any] != nil)
        #expect(notes.stderr.hasPrefix("Warning: could not refresh notes"))
    }

    @Test func anEmptyPasswordFromTheEnvironmentIsAConfigurationError() async throws {
        let kinto = try KintoServer.shared()
        let sandbox = try ShelfSandbox()
        let run = try await sandbox.run("sync", environment: [
            "SHELF_SERVER": kinto.baseURL, "SHELF_USER": "reader", "SHELF_PASSWORD": "",
        ])
        #expect(run.status == 78, "\(run)")
        #expect(run.stderr == "Error: not synced: cannot sync without the account's password: SHELF_PASSWORD is empty; set SHELF_PASSWORD\n")
    }

    @Test func aSyncWhileAnotherRunsHasNothingToDo() async throws {
        let kinto = try KintoServer.shared()
        let sandbox = try ShelfSandbox()
        try await addAccount(sandbox, server: kinto.baseURL, user: try await kinto.newUser(prefix: "cli"))
        let lockFile = sandbox.dataHome.appendingPathComponent("shelf/reader.lock")
        try FileManager.default.createDirectory(at: lockFile.deletingLastPathComponent(), withIntermediateDirectories: true)

        // GIVEN another process holding the account's run lock
        let descriptor = open(lockFile.path, O_RDWR | O_CREAT, 0o600)
        try #require(descriptor >= 0)
        defer { close(descriptor) }
        try #require(flock(descriptor, LOCK_EX | LOCK_NB) == 0)

        // THEN this one did nothing and says so: its own status (75), and `Error:`
        let run = try await sandbox.run("sync")
        #expect(run.status == 75, "\(run)")
        #expect(run.stdout.isEmpty, "\(run)")
        #expect(run.stderr.hasPrefix("Error: another sync of account 'reader' is running"), "\(run)")
        #expect(run.stderr.contains("this one did nothing"), "\(run)")
        let json = try await sandbox.run("--json", "sync")
        #expect(json.status == 75)
        #expect(try json.json()["outcome"] as? String == "already_running")
    }

    /// On a terminal, `sync` draws one bar redrawn in place; with `NO_COLOR` it has no
    /// escape codes (a carriage return moves the cursor).
    @Test func onATerminalSyncDrawsAProgressBar() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: "/usr/bin/script"), "util-linux script runs shelf on a terminal")
        let kinto = try KintoServer.shared()
        let sandbox = try ShelfSandbox()
        try await addAccount(sandbox, server: kinto.baseURL, user: try await kinto.newUser(prefix: "cli"))

        let run = try sandbox.runProgram("/usr/bin/script", ["-qec", "\(ShelfBinary.url.path) sync", "/dev/null"], environment: ["NO_COLOR": "1"])
        #expect(run.status == 0, "\(run)")
        #expect(run.stdout.contains("\r[####################] 7/7 "), "\(run)")
        #expect(run.stdout.contains("Synced account reader"))
        #expect(!run.stdout.contains("sync: "), "no plain progress lines on a terminal")
        #expect(!run.stdout.contains("\u{1B}"), "\(run)")
    }
}
