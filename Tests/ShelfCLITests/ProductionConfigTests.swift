import Foundation
import Testing
import TestSupport

/// `Fixtures/kinto/production.ini` as the guide runs it — accounts plugin, PostgreSQL
/// for storage, permissions and cache, the shared catalog — exercised end to end.
@Suite("shelf: the production Kinto config")
struct ProductionConfigTests {
    @Test func itStartsOnPostgreSQLAReaderSignsUpAndTwoDevicesSync() async throws {
        try #require(
            FileManager.default.fileExists(atPath: "/usr/lib/postgresql"),
            "PostgreSQL's server is installed by 'make setup'")
        let kinto = try KintoServer.start(seedCatalog: true, ini: "Fixtures/kinto/production.ini", postgresql: true)
        defer { kinto.stop() }
        let user = TestUser(prefix: "prod")
        func add(_ sandbox: ShelfSandbox, _ extra: String...) async throws -> ShelfRun {
            try await sandbox.run(["account", "add", "reader", "--server", kinto.baseURL, "--user", user.name] + extra,
                            environment: ["SHELF_PASSWORD": user.password])
        }

        // A reader signs up from Shelf: no warning (passwords are checked).
        let laptop = try ShelfSandbox()
        let created = try await add(laptop, "--create")
        #expect(created.status == 0, "\(created)")
        #expect(created.stderr.isEmpty, "\(created)")

        // A book goes up, the catalog comes down.
        let book = try await laptop.run("--json", "book", "add", "--title", "The Left Hand of Darkness", "--author", "Ursula K. Le Guin")
        let bookID = try #require(try book.json()["id"] as? String)
        let sync = try await laptop.run("--json", "sync")
        #expect(sync.status == 0, "\(sync)")
        let report = try sync.json()
        #expect(report["outcome"] as? String == "synced", "\(report)")
        let collections = try #require(report["collections"] as? [String: [String: Any]])
        #expect(collections["books"]?["pushed"] as? Int == 1)
        #expect((collections["products"]?["pulled"] as? Int ?? 0) > 0, "the shared catalog is readable")

        // Another device of the reader gets the book, and an edit comes back.
        let phone = try ShelfSandbox()
        #expect(try await add(phone).status == 0)
        #expect(try await phone.run("sync").status == 0)
        let books = try #require(try await phone.run("--json", "books").json()["books"] as? [[String: Any]])
        #expect(books.map { $0["id"] as? String } == [bookID])
        #expect(try await phone.run("book", "finish", bookID).status == 0)
        #expect(try await phone.run("sync").status == 0)
        #expect(try await laptop.run("sync").status == 0)
        let shown = try await laptop.run("--json", "book", "show", bookID).json()
        #expect((shown["book"] as? [String: Any])?["isFinished"] as? Bool == true, "\(shown)")

        // The catalog is the operator's: a reader cannot write it (a refused change).
        #expect(try await laptop.run("--json", "products").json()["totalCount"] as? Int ?? 0 > 0)
    }
}
