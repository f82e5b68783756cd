import Domain
import Foundation
import Services
import Storage
import TestSupport
import Testing

/// `shelf backup` while `shelf-sync` writes the store, then `shelf restore`: the copy is
/// one consistent state, and restoring it brings back exactly that state.
@Suite("shelf backup and restore beside a running sync")
struct StoreBackupTests {
    let server: KintoServer
    let user: TestUser

    init() async throws {
        server = try KintoServer.shared()
        user = try await server.newUser(prefix: "backup")
    }

    private func shelf(_ arguments: [String], _ home: WorkerHome) async throws -> ProcessResult {
        try await home.runShelf(arguments)
    }

    /// Every book as (id, json, last_modified), in id order.
    private func books(in url: URL) async throws -> [String] {
        let store = try ShelfStore(location: .file(url))
        return try store.records(.books()).map { "\($0.id) \($0.lastModified.map(String.init) ?? "-") \(String(decoding: $0.json, as: UTF8.self))" }.sorted()
    }

    @Test func aBackupTakenWhileASyncWritesRestoresToEqualData() async throws {
        let client = server.setUpClient(for: user)
        let operations = try (0..<300).map { index in
            try KintoRequest.create(
                in: KintoCollectionPath(.books), id: String(format: "b-%03d", index),
                data: Data(#"{"title":"Book \#(index)","author_name":"Author","finished":false}"#.utf8))
        }
        for start in stride(from: 0, to: 300, by: 25) {
            _ = try await KintoBatchService(client: client).send(Array(operations[start..<start + 25]))
        }
        let home = try WorkerHome(server: server.baseURL, user: user)
        let storeFile = home.paths.dataDirectory.appendingPathComponent("default.sqlite")
        let backupFile = home.root.appendingPathComponent("during-sync.sqlite")

        // WHEN a backup is taken while the worker applies pages of 10
        let running = try home.start(["--page-size", "10", "--log-level", "debug"])
        #expect(running.waitForStderrLine { $0.contains("(50 so far)") } != nil)
        let backup = try await shelf(["backup", backupFile.path], home)
        #expect(backup.status == 0, "\(backup.stderr)")
        #expect(running.finish().status == 0)

        // THEN the copy is private, whole and consistent
        let mode = try FileManager.default.attributesOfItem(atPath: backupFile.path)[.posixPermissions] as? NSNumber
        #expect(mode?.intValue == 0o600)
        let scratch = home.root.appendingPathComponent("scratch.sqlite")
        try FileManager.default.copyItem(at: backupFile, to: scratch)
        let saved = try await books(in: scratch)
        #expect(saved.count >= 50 && saved.count <= 300)
        let copy = try ShelfStore(location: .file(scratch))
        #expect(try copy.read { try $0.integrityCheck() } == ["ok"])
        #expect(try copy.read { try $0.foreignKeyViolations() }.isEmpty)
        #expect(try await books(in: storeFile).count == 300)

        // WHEN it is restored over the synced store (with a local edit since)
        #expect(try await shelf(["book", "add", "--title", "After the backup", "--author", "Someone"], home).status == 0)
        let restore = try await shelf(["restore", backupFile.path], home)
        #expect(restore.status == 0, "\(restore.stderr)")

        // THEN the store holds exactly the backup's data, and the replaced store is kept
        #expect(try await books(in: storeFile) == saved)
        let aside = try FileManager.default.contentsOfDirectory(atPath: home.paths.dataDirectory.path)
            .filter { $0.hasPrefix("default.sqlite.replaced-") && !$0.hasSuffix("-wal") && !$0.hasSuffix("-shm") }
        #expect(aside.count == 1)
        let kept = try await books(in: home.paths.dataDirectory.appendingPathComponent(try #require(aside.first)))
        #expect(kept.count == 301)
        #expect(restore.stdout.contains("The replaced store was kept as"))

        // AND a sync after the restore catches up with the server again
        #expect(try await home.run().status == 0)
        #expect(try await books(in: storeFile).count == 300)
    }

    @Test func aDamagedBackupIsRefusedAndNothingChanges() async throws {
        let home = try WorkerHome(server: server.baseURL, user: user)
        #expect(try await shelf(["book", "add", "--title", "Kept", "--author", "A"], home).status == 0)
        let bogus = home.root.appendingPathComponent("bogus.sqlite")
        try Data(repeating: 0x42, count: 8192).write(to: bogus)
        let result = try await shelf(["restore", bogus.path], home)
        #expect(result.status == 74)
        #expect(result.stderr.contains("damaged"))
        let storeFile = home.paths.dataDirectory.appendingPathComponent("default.sqlite")
        #expect(try await books(in: storeFile).count == 1)
        #expect(try await shelf(["backup", storeFile.path], home).status == 74)  // never over an existing file
    }

    @Test func doctorSaysWhatItFoundAndRestoreWaitsForARunningSync() async throws {
        let home = try WorkerHome(server: server.baseURL, user: user)
        let missing = try await shelf(["doctor", "--json"], home)
        #expect(missing.status == 0)
        #expect(missing.stdout.contains(#""state" : "missing""#))

        #expect(try await shelf(["book", "add", "--title", "Kept", "--author", "A"], home).status == 0)
        let healthy = try await shelf(["doctor", "--json"], home)
        #expect(healthy.status == 0)
        let report = try JSONSerialization.jsonObject(with: Data(healthy.stdout.utf8)) as? [String: Any]
        #expect(report?["state"] as? String == "healthy")
        #expect(report?["pendingChanges"] as? Int == 1)
        #expect((report?["problems"] as? [Any])?.isEmpty == true)

        let backupFile = home.root.appendingPathComponent("b.sqlite")
        #expect(try await shelf(["backup", backupFile.path], home).status == 0)
        // Another process holds the account's run lock, as a sync does.
        let lockFile = home.paths.syncLock(try AccountName("default"))
        let holder = try ProcessRunner.start(
            URL(fileURLWithPath: "/usr/bin/python3"),
            ["-c", "import fcntl, sys, time\nf = open(sys.argv[1], 'a')\nfcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)\n"
                + "print('locked', file=sys.stderr, flush=True)\ntime.sleep(30)", lockFile.path],
            environment: ["PATH": "/usr/bin:/bin"])
        defer { holder.kill9() }
        #expect(holder.waitForStderrLine { $0 == "locked" } != nil)
        let restore = try await shelf(["restore", backupFile.path], home)
        #expect(restore.status == 75)
        #expect(restore.stderr.contains("a sync of account 'default' is running"))
    }
}
