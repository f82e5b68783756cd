import Foundation
import Testing
import TestSupport

/// Every wait ends, within what docs/accounts.md states: `shelf sync` against a server that
/// accepts the connection and never answers exits 75 within 46 s (four attempts, each
/// given up 10 s after the request was sent, a second of the loop's resolution each, and
/// at most 1.75 s of jittered delays between them).
@Suite("shelf: bounded waits")
struct BoundedWaitTests {
    /// The bound docs/accounts.md states for `shelf sync` against a silent server.
    static let documentedBound: Duration = .seconds(46)

    @Test func aSyncAgainstAServerThatNeverAnswersEndsWithinTheDocumentedTime() async throws {
        // GIVEN an account synced once (so the next run checks every collection with one
        // POST /batch, the request libcurl's own stall check used to give 16 s) and a
        // change waiting
        let kinto = try KintoServer.shared()
        let user = try await kinto.newUser(prefix: "silent")
        let sandbox = try ShelfSandbox()
        let added = try await sandbox.run(
            ["account", "add", "reader", "--server", kinto.baseURL, "--user", user.name], environment: ["SHELF_PASSWORD": user.password])
        try #require(added.status == 0, "\(added)")
        try #require(try await sandbox.run("sync").status == 0)
        #expect(try await sandbox.run("book", "add", "--title", "Kindred", "--author", "Octavia E. Butler").status == 0)

        // WHEN the server now accepts connections and never answers
        let silent = try HostileHTTPServer { _, _ in .hang }
        defer { silent.stop() }
        let file = sandbox.configHome.appendingPathComponent("shelf/accounts/reader.json")
        let text = try String(contentsOf: file, encoding: .utf8).replacingOccurrences(of: kinto.baseURL, with: silent.baseURL)
        try Data(text.utf8).write(to: file)
        let clock = ContinuousClock()
        let started = clock.now
        let sync = try await sandbox.runBinaryInBackground(
            ["sync"], environment: ["SHELF_PASSWORD": user.password, "SHELF_STALL_SECONDS": "10"])
        let took = clock.now - started

        // THEN it gives up within the documented time, saying why, and keeps the change
        #expect(sync.status == 75, "\(sync)")
        #expect(took < Self.documentedBound, "took \(took)")
        #expect(took > .seconds(30), "four attempts of 10 s each: \(took)")
        let lines = sync.stderr.split(separator: "\n")
        #expect(lines.last?.hasPrefix("Error: not synced: ") == true, "\(sync)")
        #expect(lines.dropLast().count == 3 && lines.dropLast().allSatisfy { $0.hasPrefix("Warning: retrying") }, "\(sync)")
        #expect(sync.stderr.contains("no answer 10 s after the request was sent"), "\(sync)")
        #expect(sync.stderr.contains("(gave up after 4 attempts)"), "\(sync)")
        #expect(silent.requestLines.count == 4, "\(silent.requestLines)")
        #expect(silent.requestLines.allSatisfy { $0.hasPrefix("POST /v1/batch") }, "\(silent.requestLines)")
        let status = try await sandbox.run("--json", "status").json()
        #expect((status["sync"] as? [String: Any])?["pendingChanges"] as? Int == 1)
    }

    /// `SHELF_STALL_SECONDS` sets how long each request may get no answer: with 2, the same
    /// sync against a silent server gives up after four attempts of 2 s each.
    @Test func theStallBoundFromTheEnvironmentIsEachRequestsWait() async throws {
        let silent = try HostileHTTPServer { _, _ in .hang }
        defer { silent.stop() }
        let sandbox = try ShelfSandbox()
        let added = try await sandbox.run(
            ["account", "add", "reader", "--server", silent.baseURL, "--user", "reader", "--no-verify"],
            environment: ["SHELF_PASSWORD": "pw"])
        try #require(added.status == 0, "\(added)")

        let clock = ContinuousClock()
        let started = clock.now
        let sync = try await sandbox.runBinaryInBackground(["sync"], environment: ["SHELF_PASSWORD": "pw", "SHELF_STALL_SECONDS": "2"])
        let took = clock.now - started

        #expect(sync.status == 75, "\(sync)")
        // NB: a never-synced account pulls with a GET, whose stall libcurl's speed check reports.
        #expect(sync.stderr.contains("Less than 100 bytes/sec transferred the last 2 seconds"), "\(sync)")
        #expect(sync.stderr.contains("(gave up after 4 attempts)"), "\(sync)")
        #expect(took > .seconds(8) && took < .seconds(20), "four attempts of 2 s each: \(took)")
        let refused = try await sandbox.runBinaryInBackground(["sync"], environment: ["SHELF_PASSWORD": "pw", "SHELF_STALL_SECONDS": "0"])
        #expect(refused.status == 78 && refused.stderr.contains("SHELF_STALL_SECONDS='0'"), "\(refused)")
        let notAdded = try await sandbox.run(
            ["account", "add", "other", "--server", silent.baseURL, "--user", "reader"],
            environment: ["SHELF_PASSWORD": "pw", "SHELF_STALL_SECONDS": "601"])
        #expect(notAdded.status == 78 && notAdded.stderr.contains("SHELF_STALL_SECONDS='601'"), "\(notAdded)")
        #expect(silent.requestLines.count == 4, "a refused value asks the server nothing: \(silent.requestLines)")
    }
}
