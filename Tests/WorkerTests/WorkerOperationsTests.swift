import Domain
import Foundation
import Services
import Storage
import TestSupport
import Testing

/// `shelf-sync` as operations see it: accounts that fail alone, the report through a
/// planted symlink, a damaged store, logs for journald, and stopping on a signal.
@Suite("shelf-sync: operations")
struct WorkerOperationsTests {
    let server: KintoServer
    let user: TestUser

    init() async throws {
        server = try KintoServer.shared()
        user = try await server.newUser(prefix: "ops")
    }

    private func client(_ user: TestUser) -> APIClient {
        server.setUpClient(for: user)
    }

    private func seedBooks(_ count: Int, for user: TestUser) async throws {
        let operations = try (0..<count).map { index in
            try KintoRequest.create(
                in: KintoCollectionPath(.books), id: String(format: "b-%03d", index),
                data: Data(#"{"title":"Book \#(index)","author_name":"Author \#(index % 7)","finished":false}"#.utf8))
        }
        for chunk in stride(from: 0, to: operations.count, by: 25) {
            _ = try await KintoBatchService(client: client(user)).send(Array(operations[chunk..<min(chunk + 25, operations.count)]))
        }
    }

    private func lines(_ text: String) -> [Substring] { text.split(separator: "\n") }

    // MARK: Accounts fail alone

    @Test func oneBrokenAccountOfThreeFailsAlone() async throws {
        let home = try WorkerHome(server: server.baseURL, user: user)
        var env = home
        env.environment = env.environment.filter { !$0.key.hasPrefix("SHELF_") }
        let accounts = AccountStore(paths: env.paths)
        let users = [try await server.newUser(prefix: "ops-a"), try await server.newUser(prefix: "ops-b"), try await server.newUser(prefix: "ops-c")]
        for (index, account) in users.enumerated() {
            try await seedBooks(index + 1, for: account)
            let secret = env.root.appendingPathComponent("password-\(index)")
            try Data(account.password.utf8).write(to: secret)
            // The second account's password file is readable by others: refused.
            try FileManager.default.setAttributes([.posixPermissions: index == 1 ? 0o644 : 0o600], ofItemAtPath: secret.path)
            try accounts.add(try AccountName("acct-\(index)"),
                             try AccountConfig(server: server.baseURL, user: account.name, passwordFile: secret.path))
        }

        let result = try await env.run(["--all-accounts", "--report", env.reportPath])
        #expect(result.status == 78, "\(result.stderr)")
        let reports = try #require(try env.report()["accounts"] as? [[String: Any]])
        #expect(reports.map { $0["account"] as? String } == ["acct-0", "acct-1", "acct-2"])
        #expect(reports.map { $0["outcome"] as? String } == ["synced", "configuration_error", "synced"])
        #expect((reports[1]["message"] as? String)?.contains("password-1") == true)
        #expect(try env.report()["exit_reason"] as? String == "configuration_error")
        #expect(lines(result.stderr).contains { $0.contains("ERROR [acct-1] configuration error:") && $0.contains("mode 644") })
        for (index, count) in [(0, 1), (2, 3)] {
            let store = try ShelfStore(location: env.paths.database(try AccountName("acct-\(index)")))
            #expect(try store.count(.books()) == count)
        }
    }

    // MARK: The report

    @Test func theReportReplacesAPlantedSymlinkAndNeverWritesThroughIt() async throws {
        let closed = try ClosedLoopbackPort()
        var env = try WorkerHome(server: closed.origin, user: user)
        env.environment["SHELF_SERVER"] = closed.origin
        let victim = env.root.appendingPathComponent("someone-elses-file")
        try Data("keep me\n".utf8).write(to: victim)
        try FileManager.default.createSymbolicLink(atPath: env.reportPath, withDestinationPath: victim.path)

        let result = try await env.run(["--report", env.reportPath])
        #expect(result.status == 75)
        #expect(try String(contentsOf: victim, encoding: .utf8) == "keep me\n")
        let attributes = try FileManager.default.attributesOfItem(atPath: env.reportPath)
        #expect(attributes[.type] as? FileAttributeType == .typeRegular)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        #expect(try env.report()["exit_reason"] as? String == "temporary_failure")
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: env.root.path).filter { $0.hasSuffix(".tmp") }
        #expect(leftovers.isEmpty)
    }

    @Test func theReportFolderIsCreatedPrivate() async throws {
        let closed = try ClosedLoopbackPort()
        var env = try WorkerHome(server: closed.origin, user: user)
        env.environment["SHELF_SERVER"] = closed.origin
        let report = env.root.appendingPathComponent(".local/state/shelf/report.json")
        #expect(try await env.run(["--report", report.path]).status == 75)
        let folder = try FileManager.default.attributesOfItem(atPath: report.deletingLastPathComponent().path)
        #expect((folder[.posixPermissions] as? NSNumber)?.intValue == 0o700)
    }

    // MARK: A damaged store

    @Test func aDamagedStoreIsNeverPushedFromAndExits74() async throws {
        try await seedBooks(40, for: user)
        let home = try WorkerHome(server: server.baseURL, user: user)
        #expect(try await home.run().status == 0)
        do {
            let store = try home.store()
            let record = try #require(try store.record(.books, id: "b-007"))
            var fields = try JSONDecoder().decode([String: JSONValue].self, from: record.json)
            fields["title"] = .string("Edited, never to be pushed from a damaged store")
            _ = try store.write { tx in try tx.saveLocal(.books, id: "b-007", json: try JSONEncoder().encode(fields)) }
        }
        // The store is closed (checkpointed); overwrite the header of the records table's root page.
        let file = home.paths.database(try AccountName("default"))
        guard case .file(let url) = file else { Issue.record("not a file"); return }
        let (rootPage, pageSize) = try StoreFileProbe.rootPage(of: "records", in: url)
        let handle = try FileHandle(forUpdating: url)
        try handle.seek(toOffset: UInt64((rootPage - 1) * pageSize))
        try handle.write(contentsOf: Data(repeating: 0xA5, count: 48))
        try handle.close()
        // As a run killed mid-way leaves it: its pid still in the lock file.
        try Data("4242\n".utf8).write(to: home.paths.syncLock(try AccountName("default")))

        let result = try await home.run(["--report", home.reportPath])
        #expect(result.status == 74, "\(result.stderr)")
        #expect(result.stderr.contains(url.path))
        #expect(result.stderr.contains("shelf doctor"))
        #expect(try home.accountReport()["outcome"] as? String == "local_store_failure")
        #expect(try home.accountReport()["requests"] as? Int == 0)
        let remote = try await KintoCollectionService(client: client(user), collection: .books).allRecords().page?.records ?? []
        let edited = try #require(remote.first(where: { $0.id == "b-007" }))
        let fields = try JSONDecoder().decode([String: JSONValue].self, from: edited.json)
        #expect(fields["title"] == .string("Book 7"))

        let doctor = try await home.runShelf(["doctor"])
        #expect(doctor.status == 74)
        #expect(doctor.stdout.contains("DAMAGED"))
    }

    // MARK: Logs

    @Test func anIdleRunLogsOneLineAndDebugShowsThePages() async throws {
        try await seedBooks(3, for: user)
        let home = try WorkerHome(server: server.baseURL, user: user)
        let first = try await home.run(["--log-level", "debug"])
        #expect(first.status == 0)
        #expect(lines(first.stderr).contains { $0.contains("DEBUG [default] books: applied 3 changes") })

        let idle = try await home.run()
        #expect(idle.status == 0)
        let idleLines = lines(idle.stderr)
        #expect(idleLines.count == 1, "\(idle.stderr)")
        let line = String(idleLines.first ?? "")
        #expect(line.contains("INFO [default] nothing to do (1 request, "))
        #expect(line.range(of: #"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z "#, options: .regularExpression) != nil)

        let quiet = try await home.run(["--log-level", "warning", "--log-format", "json"])
        #expect(quiet.status == 0)
        #expect(quiet.stderr.isEmpty)
    }

    @Test func underJournaldLinesCarryTheirPriority() async throws {
        let closed = try ClosedLoopbackPort()
        var env = try WorkerHome(server: closed.origin, user: user)
        env.environment["SHELF_SERVER"] = closed.origin
        let pipe = Pipe()
        var info = stat()
        #expect(fstat(pipe.fileHandleForWriting.fileDescriptor, &info) == 0)
        env.environment["JOURNAL_STREAM"] = "\(info.st_dev):\(info.st_ino)"
        let result = try ProcessRunner.start(BuiltProduct.url("shelf-sync"), ["--log-format", "json"], environment: env.environment, stderr: pipe)
            .finish()
        #expect(result.status == 75)
        let all = lines(result.stderr)
        #expect(all.contains { $0.hasPrefix(#"<4>{"ts":""#) && $0.contains(#""event":"retrying""#) })
        #expect(all.contains { $0.hasPrefix("<4>") && $0.contains(#""event":"run_finished""#) })
        #expect(all.allSatisfy { $0.range(of: #"^<[3467]>\{"#, options: .regularExpression) != nil })

        // The same variable naming another stream is not journald: no prefixes.
        env.environment["JOURNAL_STREAM"] = "1:1"
        let plain = try await env.run(["--log-format", "json"])
        #expect(lines(plain.stderr).allSatisfy { $0.hasPrefix("{") })
    }

    // MARK: Signals

    @Test func sigtermBetweenRunsEndsTheLoopWithStatusZero() async throws {
        let home = try WorkerHome(server: server.baseURL, user: user)
        let running = try home.start(["--every", "1h"])
        #expect(running.waitForStderrLine { $0.contains("nothing to do") || $0.contains("sync finished") } != nil)
        kill(running.process.processIdentifier, SIGTERM)
        let result = running.finish()
        #expect(result.status == 0)
        #expect(lines(result.stderr).last?.contains("stopped on SIGTERM") == true, "\(result.stderr)")
    }

    @Test func sigtermDuringARequestAbandonsItAndExitsZero() async throws {
        let arrived = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let gate = try ScriptedHTTPServer { _, index in
            if index == 0 {
                arrived.signal()
                release.wait()
            }
            return .json(200, #"{"data":[]}"#, headers: [("ETag", "\"1\"")])
        }
        defer {
            release.signal()
            gate.stop()
        }
        var home = try WorkerHome(server: gate.baseURL, user: user)
        home.environment["SHELF_SERVER"] = gate.baseURL
        let running = try home.start(["--every", "1h", "--report", home.reportPath])
        guard arrived.wait(timeout: .now() + 30) == .success else {
            running.kill9()
            Issue.record("the worker never asked the server")
            return
        }
        kill(running.process.processIdentifier, SIGTERM)
        let result = running.finish()
        #expect(result.status == 0)
        #expect(lines(result.stderr).last?.contains("stopped on SIGTERM") == true, "\(result.stderr)")
        #expect(gate.requestLines.count == 1)
        #expect(try home.store().read { try $0.integrityCheck() } == ["ok"])
    }
}

// MARK: - StoreFileProbe

/// Where a table lives in a store file, read with SQLite itself (`sqlite_master`).
enum StoreFileProbe {
    static func rootPage(of table: String, in url: URL) throws -> (rootPage: Int, pageSize: Int) {
        let output = try ProcessRunner.run(
            URL(fileURLWithPath: "/usr/bin/python3"),
            ["-c", """
             import sqlite3, sys
             c = sqlite3.connect(sys.argv[1])
             c.execute('PRAGMA wal_checkpoint(TRUNCATE)')
             print(c.execute("SELECT rootpage FROM sqlite_master WHERE type='table' AND name=?", (sys.argv[2],)).fetchone()[0])
             print(c.execute('PRAGMA page_size').fetchone()[0])
             c.close()
             """, url.path, table],
            environment: ["PATH": "/usr/bin:/bin"])
        let numbers = output.stdout.split(separator: "\n").compactMap { Int($0) }
        guard numbers.count == 2 else { throw CocoaError(.fileReadCorruptFile) }
        return (numbers[0], numbers[1])
    }
}
