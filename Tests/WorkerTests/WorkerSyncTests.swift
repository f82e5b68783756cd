import Domain
import Foundation
import Records
import Services
import Storage
import TestSupport
import Testing

/// `shelf-sync` against a real Kinto: runs, idle runs, conflicts, throttling, overlap,
/// and runs killed with SIGKILL mid-pull and mid-push.
@Suite("shelf-sync against a real Kinto")
struct WorkerSyncTests {
    let server: KintoServer
    let user: TestUser

    init() async throws {
        server = try KintoServer.shared()
        user = try await server.newUser(prefix: "worker")
    }

    private var client: APIClient {
        server.setUpClient(for: user)
    }

    /// Creates books `b-000`… on the server through batches.
    private func seedBooks(_ count: Int) async throws {
        let path = KintoCollectionPath(.books)
        let operations = try (0..<count).map { index in
            try KintoRequest.create(
                in: path, id: String(format: "b-%03d", index),
                data: Data(#"{"title":"Book \#(index)","author_name":"Author \#(index % 7)","finished":false}"#.utf8))
        }
        _ = try await KintoBatchService(client: client).send(operations)
    }

    private func serverBooks() async throws -> [RawRecord] {
        try await KintoCollectionService(client: client, collection: .books).allRecords().page?.records ?? []
    }

    private func edit(_ store: ShelfStore, book id: String, title: String) async throws {
        let record = try #require(try store.record(.books, id: id))
        var fields = try JSONDecoder().decode([String: JSONValue].self, from: record.json)
        fields["title"] = .string(title)
        let data = try JSONEncoder().encode(fields)
        _ = try store.write { tx in try tx.saveLocal(.books, id: id, json: data) }
    }

    @Test func firstSyncThenAnIdleRunOfOneRequest() async throws {
        try await seedBooks(30)
        let home = try WorkerHome(server: server.baseURL, user: user)
        let first = try await home.run(["--report", home.reportPath])
        #expect(first.status == 0, "\(first.stderr)")
        #expect(try home.collectionReport("books")["pulled"] as? Int == 30)
        #expect(try home.report()["exit_reason"] as? String == "synced")
        #expect(try home.store().count(.books()) == 30)
        let modes = try FileManager.default.attributesOfItem(atPath: home.paths.dataDirectory.path)[.posixPermissions] as? NSNumber
        #expect(modes?.intValue == 0o700)

        let idle = try await home.run(["--report", home.reportPath, "--log-format", "json"])
        #expect(idle.status == 0)
        #expect(try home.accountReport()["requests"] as? Int == 1)
        #expect(idle.stderr.split(separator: "\n").allSatisfy { $0.hasPrefix(#"{"ts":""#) })
    }

    /// `--rest-when-idle`: after idle runs a tick rests (status 0, no request, one log
    /// line that says so, `rested` in the report, never "synced"), and a local edit is
    /// sent at the next tick whatever the rest.
    @Test func aWorkerToldToRestRestsAfterIdleRunsAndSendsALocalEditAtOnce() async throws {
        try await seedBooks(3)
        let home = try WorkerHome(server: server.baseURL, user: user)
        let resting = ["--rest-when-idle", "4", "--report", home.reportPath]
        for _ in 0..<3 {
            let run = try await home.run(resting)
            let reason = try home.report()["exit_reason"] as? String
            #expect(run.status == 0 && reason == "synced", "\(run.stderr)")
        }

        let rested = try await home.run(resting)

        #expect(rested.status == 0, "\(rested.stderr)")
        #expect(try home.report()["exit_reason"] as? String == "rested")
        #expect(try home.accountReport()["requests"] as? Int == 0)
        #expect(rested.stderr.contains("rested: the last 2 runs brought nothing from the server"), "\(rested.stderr)")
        #expect(!rested.stderr.contains(" synced"), "\(rested.stderr)")

        // WHEN a book is edited while the worker rests
        try await edit(try home.store(), book: "b-001", title: "Edited while resting")
        let next = try await home.run(resting)

        // THEN the next tick sends it
        #expect(next.status == 0, "\(next.stderr)")
        #expect(try home.collectionReport("books")["pushed"] as? Int == 1)
        let sent = try await serverBooks().first { $0.id == "b-001" }.map { String(decoding: $0.json, as: UTF8.self) }
        #expect(sent?.contains("Edited while resting") == true)
    }

    /// Favorites and settings kept on the machine before they synced are sent by the
    /// worker's first run, once.
    @Test func localPreferencesFromBeforeAreSentByTheFirstRun() async throws {
        let home = try WorkerHome(server: server.baseURL, user: user)
        do {
            let local = SQLitePreferencesStore(store: try home.store())
            try local.setFavorites(["b-001"])
            try local.setReadingSettings(ReadingSettings(showFinished: true, dailyGoal: try DailyGoal(minutes: 50)))
        }

        let run = try await home.run(["--report", home.reportPath])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try home.collectionReport("preferences")["pushed"] as? Int == 1)

        let record = try await KintoCollectionService(client: client, collection: .preferences).record(id: "reader").fields()
        #expect(record["favorite:b-001"] == .bool(true))
        #expect(record["daily_goal_minutes"]?.intValue == 50)
        #expect(try SQLitePreferencesStore(store: try home.store()).favorites().isEmpty, "handed over, not copied")
    }

    @Test func conflictsExitOneAndAreReported() async throws {
        try await seedBooks(1)
        let a = try WorkerHome(server: server.baseURL, user: user)
        let b = try WorkerHome(server: server.baseURL, user: user)
        #expect(try await a.run().status == 0)
        #expect(try await b.run().status == 0)
        try await edit(try a.store(), book: "b-000", title: "From A")
        try await edit(try b.store(), book: "b-000", title: "From B")
        #expect(try await a.run().status == 0)
        let result = try await b.run(["--report", b.reportPath])
        #expect(result.status == 1)
        #expect(try b.report()["exit_reason"] as? String == "needs_attention")
        #expect(try b.collectionReport("books")["conflicts"] as? Int == 1)
        #expect(result.stderr.contains("books/b-000: conflict (both changed title)"))
    }

    @Test func aPasswordTheServerRefusesExits77() async throws {
        // The accounts plugin checks passwords: a mistyped one is refused, not a new account.
        var home = try WorkerHome(server: server.baseURL, user: user)
        let typo = "typo-\(user.password)"
        home.environment["SHELF_PASSWORD"] = typo
        let run = try await home.run(["--report", home.reportPath])
        #expect(run.status == 77, "\(run.stderr)")
        #expect(try home.report()["exit_reason"] as? String == "authentication_failed")
        #expect(!run.stderr.contains(typo) && !run.stdout.contains(typo))
        #expect(!(try String(contentsOfFile: home.reportPath, encoding: .utf8)).contains(typo))
    }

    @Test func aServerBackoffIsStoredAndRespected() async throws {
        let throttled = try KintoServer.start(seedCatalog: false, settings: ["KINTO_BACKOFF": "300"])
        defer { throttled.stop() }
        try await throttled.signUp(user)
        let home = try WorkerHome(server: throttled.baseURL, user: user)
        let first = try await home.run(["--report", home.reportPath])
        #expect(first.status == 75)
        #expect(try home.report()["exit_reason"] as? String == "backoff")
        #expect(try home.accountReport()["backoff_until"] is String)

        let second = try await home.run(["--report", home.reportPath])
        #expect(second.status == 75)
        #expect(try home.accountReport()["requests"] as? Int == 0)
    }

    @Test func anOverlappingRunExits75SayingSo() async throws {
        // The first worker's requests are held until the second has come and gone: its
        // first one, and any retry of it. A request held past the worker's 10 s stall bound
        // is asked again, and under a loaded full run the second worker once took longer
        // than that to start: the retry was answered, the first run finished, and the
        // second found no lock to meet.
        let opened = DispatchSemaphore(value: 0)
        let gate = try ScriptedHTTPServer { _, _ in
            opened.wait()
            opened.signal()  // NB: open for good: each request that passes lets the next one through
            return .json(200, #"{"data":[]}"#, headers: [("ETag", "\"1\"")])
        }
        defer { gate.stop() }
        let home = try WorkerHome(server: gate.baseURL, user: user)
        let first = try home.start(["--log-format", "json", "--log-level", "debug"])
        _ = first.waitForStderrLine { $0.contains(#""event":"collection_started""#) }

        let second = try await home.run()
        #expect(second.status == 75, "this run did nothing: a temporary failure, as a cron job should hear it")
        #expect(second.stderr.contains("WARNING [default] another sync of account 'default' is running"), "\(second.stderr)")
        #expect(second.stderr.contains("this one did nothing"))
        #expect(second.stderr.split(separator: "\n").count == 1)

        opened.signal()
        let finished = first.finish()
        #expect(finished.status == 0, "\(finished.stderr)")
        // one per collection, one for the collection objects, and the server's capabilities
        // (GET /v1/, once for an account from the environment); a retry repeats its line
        #expect(Set(gate.requestLines).count == CollectionName.allCases.count + 2, "\(gate.requestLines)")
    }

    @Test func aPullKilledMidwayResumesWithoutRedownloading() async throws {
        try await seedBooks(300)
        let home = try WorkerHome(server: server.baseURL, user: user)
        let running = try home.start(["--page-size", "10", "--log-level", "debug"])
        _ = running.waitForStderrLine { $0.contains("books: applied") && $0.contains("(50 so far)") }
        running.kill9()

        let applied = try home.store().count(.books())
        #expect(applied >= 50 && applied < 300)
        #expect(try home.store().read { try $0.integrityCheck() } == ["ok"])

        let resumed = try await home.run(["--page-size", "100", "--report", home.reportPath])
        #expect(resumed.status == 0, "\(resumed.stderr)")
        #expect(try home.store().count(.books()) == 300)
        #expect(try home.collectionReport("books")["pulled"] as? Int == 300 - applied)
    }

    @Test func aPushKilledMidwayLosesNothingAndPushesNothingTwice() async throws {
        let home = try WorkerHome(server: server.baseURL, user: user)
        #expect(try await home.run().status == 0)  // an empty first sync
        let store = try home.store()
        _ = try store.write { tx in
            for index in 0..<200 {
                let id = String(format: "p-%03d", index)
                _ = try tx.saveLocal(.books, id: id, json: Data(#"{"id":"\#(id)","title":"Pushed \#(index)","author_name":"A","finished":false}"#.utf8))
            }
        }
        let running = try home.start()
        _ = running.waitForStderrLine { $0.contains("books: pushed 25 changes") }
        running.kill9()
        #expect(try store.pendingCount() < 200)

        let resumed = try await home.run(["--report", home.reportPath])
        #expect(resumed.status == 0, "\(resumed.stderr)")
        #expect(try store.pendingCount() == 0)
        #expect(try store.conflictCount() == 0)
        #expect(try store.deadLetterCount() == 0)

        let onServer = try await serverBooks()
        #expect(onServer.count == 200)
        for record in onServer {
            let fields = try record.fields()
            let local = try #require(try store.record(.books, id: record.id))
            #expect(local.lastModified == Int64(record.lastModified))
            #expect(fields["title"] == .string("Pushed \(Int(record.id.dropFirst(2)) ?? -1)"))
        }
    }
}
