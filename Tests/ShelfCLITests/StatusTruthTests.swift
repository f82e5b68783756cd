import Foundation
import Testing
import TestSupport

/// The status tells the truth: "last sync" (`status`, `status --json`'s `lastSuccess`, the
/// worker's report) moves only when a run pulled and pushed everything it had to; a
/// failure is said once, with the collections it hit, the request and a hint.
@Suite("shelf: a status that tells the truth")
struct StatusTruthTests {
    private func lastSuccess(_ sandbox: ShelfSandbox) async throws -> (String?, Int?) {
        let sync = try #require(try await sandbox.run("--json", "status").json()["sync"] as? [String: Any])
        return (sync["lastSuccess"] as? String, sync["pendingChanges"] as? Int)
    }

    @Test func aPushAnswered500DoesNotMoveTheLastSync() async throws {
        let kinto = try KintoServer.shared()
        let proxy = try FaultProxy.start(upstream: kinto)
        defer { proxy.stop() }
        let user = try await kinto.newUser(prefix: "truth")
        let sandbox = try ShelfSandbox()
        let added = try await sandbox.run(
            ["account", "add", "reader", "--server", proxy.baseURL, "--user", user.name], environment: ["SHELF_PASSWORD": user.password])
        try #require(added.status == 0, "\(added)")
        #expect(try await lastSuccess(sandbox).0 == nil, "never synced")
        let first = try await sandbox.run("sync")
        try #require(first.status == 0, "\(first)")
        let (synced, _) = try await lastSuccess(sandbox)
        let firstSync = try #require(synced)

        // WHEN the push of a new book is answered 500, every attempt
        // NB: a pause, not a race: times are shown to the second, and a run in the same
        // second as the first would leave "last sync" looking unmoved whatever it did.
        try await Task.sleep(for: .milliseconds(1_100))
        #expect(try await sandbox.run("book", "add", "--title", "Kindred", "--author", "Octavia E. Butler").status == 0)
        try await proxy.add(.init(.status, method: .post, path: "/v1/batch", bodyContains: "Kindred", count: -1, code: 500))
        let failed = try await sandbox.run("sync")

        // THEN the run fails, and the last sync stays where the last complete one left it
        #expect(failed.status == 75, "\(failed)")
        #expect(failed.stderr.split(separator: "\n").last?.hasPrefix("Error: not synced: ") == true, "\(failed)")
        #expect(failed.stderr.split(separator: "\n").dropLast().allSatisfy { $0.hasPrefix("Warning: retrying") }, "\(failed)")
        let (after, pending) = try await lastSuccess(sandbox)
        #expect(after == firstSync, "a failed push is no sync: \(String(describing: after)) after \(firstSync)")
        #expect(pending == 1)
        let text = try await sandbox.run("status")
        #expect(text.stdout.contains("last sync     \(firstSync)"), "\(text)")

        // AND the worker's report says the same
        let worker = ShelfBinary.url.deletingLastPathComponent().appendingPathComponent("shelf-sync")
        if FileManager.default.isExecutableFile(atPath: worker.path) {
            let reportPath = sandbox.root.appendingPathComponent("report.json").path
            let run = try await sandbox.runProgramInBackground(worker.path, ["--report", reportPath])
            #expect(run.status == 75, "\(run)")
            let report = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: reportPath))) as? [String: Any])
            let account = try #require((report["accounts"] as? [[String: Any]])?.first)
            #expect(account["outcome"] as? String == "temporary_failure")
            #expect(account["last_success"] as? String == firstSync, "\(account)")
        }

        // AND once the push goes through, it moves
        try await proxy.clear()
        let mended = try await sandbox.run("sync")
        #expect(mended.status == 0, "\(mended)")
        let (moved, left) = try await lastSuccess(sandbox)
        #expect(moved != nil && moved != firstSync, "\(String(describing: moved))")
        #expect(left == 0)
    }

    @Test func aRefreshOfOneCollectionIsNoSync() async throws {
        let kinto = try KintoServer.shared()
        let user = try await kinto.newUser(prefix: "truth-read")
        let sandbox = try ShelfSandbox()
        let added = try await sandbox.run(
            ["account", "add", "reader", "--server", kinto.baseURL, "--user", user.name], environment: ["SHELF_PASSWORD": user.password])
        try #require(added.status == 0, "\(added)")
        // A read refreshes its collection from the server: the last sync stays "never".
        #expect(try await sandbox.run("books").status == 0)
        #expect(try await lastSuccess(sandbox).0 == nil)
        #expect(try await sandbox.run("sync", "--collection", "books").status == 0)
        #expect(try await lastSuccess(sandbox).0 == nil, "one collection is not everything")
    }

    @Test func oneCauseIsSaidOnceWithTheCollectionsTheRequestAndAHint() async throws {
        let kinto = try KintoServer.shared()
        let user = try await kinto.newUser(prefix: "truth-401")
        let sandbox = try ShelfSandbox()
        let environment = ["SHELF_SERVER": kinto.baseURL, "SHELF_USER": user.name, "SHELF_PASSWORD": user.password + "-wrong"]
        let sync = try await sandbox.run(["sync"], environment: environment)
        #expect(sync.status == 77, "\(sync)")
        #expect(sync.stderr.split(separator: "\n").count == 1, "\(sync)")
        #expect(sync.stderr.hasPrefix("Error: not synced: GET \(kinto.baseURL)/"), "\(sync)")

        let status = try await sandbox.run(
            ["status"], environment: environment.merging(["NO_COLOR": "1"]) { $1 }, terminals: [.output, .error], size: (80, 40))
        #expect(status.status == 0, "\(status)")
        let text = status.stdout
        #expect(text.components(separatedBy: "authentication failed").count == 2, "one cause, once: \(text)")
        #expect(text.contains("Last error: books, notes, tasks, cart, products, preferences, sessions:"), "\(text)")
        #expect(!text.contains("errno"), "no bare errno: \(text)")
        #expect(!text.contains("…"), "the cause is wrapped, never cut: \(text)")
        let joined = text.split(separator: "\n").joined(separator: " ")
        #expect(joined.contains("Kinto error 104: no credentials, or credentials the server does not accept"), "\(text)")
        #expect(joined.contains("shelf account password"), "the hint is there: \(text)")
        #expect(text.split(separator: "\n").allSatisfy { $0.count <= 80 })
    }
}
