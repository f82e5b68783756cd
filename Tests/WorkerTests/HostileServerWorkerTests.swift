import Domain
import Foundation
import Storage
import TestSupport
import Synchronization
import Testing

/// `shelf-sync` against servers that misbehave on purpose: one table per class of
/// hostility, each case run as a real process, timed, and (where memory is the point)
/// measured with `wait4`. Every case must end — with the documented exit status, within
/// its bound, without a trap, and without anything secret or raw in its output.
@Suite("shelf-sync against a hostile server")
struct HostileServerWorkerTests {
    private let user = TestUser(prefix: "hostile")
    private static let booksPath = "/v1/buckets/default/collections/books/records"

    /// Runs the worker measured, and prints its figures (`figure: …` lines in the test log).
    private func runWorker(_ home: WorkerHome, _ arguments: [String] = [], case name: String = #function) throws -> MeasuredProcess {
        let run = try MeasuredProcess.run(BuiltProduct.url("shelf-sync"), ["--report", home.reportPath] + arguments, environment: home.environment)
        print("figure: \(name) \(arguments.joined(separator: " ")): exit \(run.status), \(String(format: "%.2f", run.wallSeconds)) s, peak \(run.peakKilobytes / 1024) MiB")
        return run
    }

    private func storedDeadline(_ home: WorkerHome) throws -> Date? {
        try home.store().read { reader in try reader.syncStates().compactMap(\.backoffUntil).max() }
    }

    // MARK: - No trap on input

    struct WaitCase: Sendable, CustomTestStringConvertible {
        let name: String
        let status: Int
        let header: (String, String)
        var testDescription: String { name }
    }

    static let waits: [WaitCase] = [
        WaitCase(name: "Backoff: Int64.max", status: 200, header: ("Backoff", "9223372036854775807")),
        WaitCase(name: "Backoff: beyond Int64", status: 200, header: ("Backoff", "99999999999999999999999999999")),
        WaitCase(name: "Retry-After: Int64.max on 503", status: 503, header: ("Retry-After", "9223372036854775807")),
        WaitCase(name: "Retry-After: year 9999 on 503", status: 503, header: ("Retry-After", "Fri, 31 Dec 9999 23:59:59 GMT")),
        WaitCase(name: "Retry-After: Int64.max on 429", status: 429, header: ("Retry-After", "9223372036854775807")),
    ]

    /// A huge or far-future wait stops the run (75) with a deadline a day away at most;
    /// the next run respects it; `--ignore-backoff` syncs anyway and clears it.
    @Test(arguments: waits)
    func aHugeWaitIsClampedToADay(_ wait: WaitCase) throws {
        let hostile = ScriptFlag()
        let server = try HostileHTTPServer { _, _ in
            hostile.isSet ? .json(wait.status, #"{"data":[]}"#, headers: [wait.header]) : .json(200, #"{"data":[]}"#)
        }
        defer { server.stop() }
        let home = try WorkerHome(server: server.baseURL, user: user)
        hostile.set(true)

        let before = Date()
        let first = try runWorker(home, case: wait.name)
        #expect(first.status == 75, "\(first)")
        let deadline = try #require(try storedDeadline(home))
        #expect(deadline > before && deadline <= Date().addingTimeInterval(86_400 + 1), "\(deadline)")
        let reported = try #require(try home.accountReport()["backoff_until"] as? String)
        #expect(reported.hasPrefix("20"), "a date of this era, not year 9999: \(reported)")

        let second = try runWorker(home)
        #expect(second.status == 75, "the stored deadline holds: \(second)")
        #expect(second.wallSeconds < 5)

        hostile.set(false)
        let forced = try runWorker(home, ["--ignore-backoff"])
        #expect(forced.status == 0, "\(forced)")
        #expect(try storedDeadline(home) == nil, "a successful run clears the deadline")
    }

    // MARK: - Every loop ends

    struct PagingCase: Sendable, CustomTestStringConvertible {
        let name: String
        /// The Next-Page token of the `index`th request.
        let token: @Sendable (Int) -> String
        /// The `last_modified` of the record on the `index`th page.
        let lastModified: @Sendable (Int) -> Int
        let expected: String
        var testDescription: String { name }
    }

    static let paging: [PagingCase] = [
        PagingCase(name: "Next-Page leads back to itself", token: { _ in "same" }, lastModified: { 100 + $0 }, expected: "leads back to a page already fetched"),
        PagingCase(name: "Next-Page cycles between two pages", token: { $0 % 2 == 0 ? "a" : "b" }, lastModified: { 100 + $0 }, expected: "leads back to a page already fetched"),
        PagingCase(name: "new links, records stuck at the cursor", token: { "t\($0)" }, lastModified: { _ in 100 }, expected: "does not move past the cursor"),
    ]

    /// A pull whose pages never end stops with a clear error (75) in well under a
    /// second of paging, and the next run is not locked out.
    @Test(arguments: paging)
    func pagingThatDoesNotAdvanceStops(_ paging: PagingCase) throws {
        let base = Locked("")
        let server = try HostileHTTPServer { line, index in
            guard line.contains(Self.booksPath) else { return .json(200, #"{"data":[]}"#) }
            let next = "\(base.value)/buckets/default/collections/books/records?_sort=last_modified&_token=\(paging.token(index))"
            let record = #"{"id":"b1","last_modified":\#(paging.lastModified(index)),"title":"T","author_name":"A","finished":false}"#
            return .json(200, #"{"data":[\#(record)]}"#, headers: [("Next-Page", next)])
        }
        defer { server.stop() }
        base.value = server.baseURL
        let home = try WorkerHome(server: server.baseURL, user: user)

        let run = try runWorker(home, case: paging.name)
        #expect(run.status == 75, "\(run)")
        #expect(run.stderr.contains(paging.expected), "\(run)")
        #expect(run.wallSeconds < 10, "\(run)")
        #expect(server.requestLines.filter { $0.contains(Self.booksPath) }.count < 10)
        let again = try runWorker(home)
        #expect(!again.stderr.contains("is running"), "the lock was released: \(again)")
    }

    // MARK: - Every size is bounded

    struct InflationCase: Sendable, CustomTestStringConvertible {
        let name: String
        let limitMB: Int
        let inflatedMB: Int
        let maximumPeakMB: Int
        var testDescription: String { name }
    }

    static let inflation: [InflationCase] = [
        InflationCase(name: "256 MiB of gzip against an 8 MiB limit", limitMB: 8, inflatedMB: 256, maximumPeakMB: 64),
        InflationCase(name: "256 MiB of gzip against a 32 MiB limit", limitMB: 32, inflatedMB: 256, maximumPeakMB: 96),
        InflationCase(name: "256 MiB of gzip against the default 64 MiB limit", limitMB: 64, inflatedMB: 256, maximumPeakMB: 140),
    ]

    /// A small compressed reply that inflates past the limit is aborted at the limit:
    /// the process' peak memory stays near its baseline plus the limit, not the
    /// inflated size, and the run fails as a temporary failure (75).
    @Test(arguments: inflation)
    func aCompressedReplyInflatesOnlyToTheLimit(_ bomb: InflationCase) throws {
        let gzip = try GzipBytes.zeros(count: bomb.inflatedMB << 20)
        #expect(gzip.count < 1 << 20)
        let server = try HostileHTTPServer { _, _ in
            .reply(status: 200, headers: [("Content-Type", "application/json"), ("Content-Encoding", "gzip")], body: gzip)
        }
        defer { server.stop() }
        let home = try WorkerHome(server: server.baseURL, user: user, extra: ["SHELF_MAX_RESPONSE_MB": String(bomb.limitMB)])

        let run = try runWorker(home, case: bomb.name)
        #expect(run.status == 75, "\(run)")
        #expect(run.stderr.contains("larger than Shelf accepts"), "\(run)")
        #expect(run.peakKilobytes < bomb.maximumPeakMB << 10, "\(run)")
    }

    struct RecordSizeCase: Sendable, CustomTestStringConvertible {
        let name: String
        let titleBytes: Int
        let environment: [String: String]
        let skipped: Int
        var testDescription: String { name }
    }

    static let recordSizes: [RecordSizeCase] = [
        RecordSizeCase(name: "2 MiB record, default 1 MiB limit", titleBytes: 2 << 20, environment: [:], skipped: 1),
        RecordSizeCase(name: "2 MiB record, SHELF_MAX_RECORD_KB=4096", titleBytes: 2 << 20, environment: ["SHELF_MAX_RECORD_KB": "4096"], skipped: 0),
        RecordSizeCase(name: "1 KiB record, default limit", titleBytes: 1 << 10, environment: [:], skipped: 0),
    ]

    /// A record over the limit is skipped with a warning, counted in the report and
    /// never stored; the pull goes on past it and the run succeeds.
    @Test(arguments: recordSizes)
    func anOversizedRecordIsSkippedAndCounted(_ size: RecordSizeCase) throws {
        let big = #"{"id":"big","last_modified":200,"title":"\#(String(repeating: "x", count: size.titleBytes))","author_name":"A","finished":false}"#
        let small = #"{"id":"small","last_modified":100,"title":"Small","author_name":"A","finished":false}"#
        let server = try HostileHTTPServer { line, _ in
            line.contains(Self.booksPath) ? .json(200, #"{"data":[\#(small),\#(big)]}"#) : .json(200, #"{"data":[]}"#)
        }
        defer { server.stop() }
        let home = try WorkerHome(server: server.baseURL, user: user, extra: size.environment)

        let run = try runWorker(home, case: size.name)
        #expect(run.status == 0, "\(run)")
        #expect(try home.collectionReport("books")["skipped"] as? Int == size.skipped)
        #expect(run.stderr.contains("books/big: skipped") == (size.skipped == 1), "\(run.stderr.prefix(2_000))")
        let store = try home.store()
        #expect(try store.record(.books, id: "big") == nil || size.skipped == 0)
        #expect(try store.record(.books, id: "small") != nil)
        #expect(try store.read { try $0.syncState(.books).cursor } == 200, "the cursor moved past the skipped record")
    }

    /// A size limit from the environment that is not a number in range stops the worker
    /// as a configuration error (78) before any request.
    @Test func aBadLimitInTheEnvironmentIsAConfigurationError() throws {
        let server = try HostileHTTPServer { _, _ in .hang }
        defer { server.stop() }
        let home = try WorkerHome(server: server.baseURL, user: user, extra: ["SHELF_MAX_RECORD_KB": "99999999999999999999"])
        let run = try runWorker(home, case: "SHELF_MAX_RECORD_KB out of range")
        #expect(run.status == 78, "\(run)")
        #expect(run.stderr.contains("SHELF_MAX_RECORD_KB"), "\(run)")
        #expect(server.requestLines.isEmpty)
    }

    // MARK: - Every wait is bounded

    struct StallCase: Sendable, CustomTestStringConvertible {
        let name: String
        let behaviour: HostileHTTPServer.Behaviour
        var testDescription: String { name }
    }

    static let stalls: [StallCase] = [
        StallCase(name: "accepts and never answers", behaviour: .hang),
        StallCase(name: "trickles a byte every 50 ms", behaviour: .trickle(interval: .milliseconds(50))),
    ]

    /// Against a server that never answers, or trickles, the worker ends within its
    /// budget (here 3 s; 60 s by default) with 75 and says why.
    @Test(arguments: stalls)
    func aStalledServerEndsWithinTheBudget(_ stall: StallCase) throws {
        let server = try HostileHTTPServer { _, _ in stall.behaviour }
        defer { server.stop() }
        let home = try WorkerHome(server: server.baseURL, user: user)

        let run = try runWorker(home, ["--budget", "3s"], case: stall.name)
        #expect(run.status == 75, "\(run)")
        #expect(run.wallSeconds < 6, "\(run)")
        #expect(run.stderr.contains("budget of 3 s"), "\(run)")
        #expect(try home.accountReport()["outcome"] as? String == "temporary_failure")
    }

    /// `SHELF_STALL_SECONDS` reaches the worker's requests: with 1, a silent server is
    /// asked four times, each given up after a second, well within the budget.
    @Test func theStallBoundFromTheEnvironmentIsEachRequestsWait() throws {
        let server = try HostileHTTPServer { _, _ in .hang }
        defer { server.stop() }
        let home = try WorkerHome(server: server.baseURL, user: user, extra: ["SHELF_STALL_SECONDS": "1"])

        let run = try runWorker(home, ["--budget", "30s"], case: "SHELF_STALL_SECONDS=1")
        #expect(run.status == 75, "\(run)")
        #expect(run.wallSeconds < 15, "\(run)")
        // NB: a never-synced account pulls with a GET, whose stall libcurl's speed check reports.
        #expect(run.stderr.contains("Less than 100 bytes/sec transferred the last 1 seconds"), "\(run)")
        #expect(server.requestLines.count == 4, "\(server.requestLines)")
    }

    // MARK: - Nothing secret or hostile reaches output raw

    static let secret = "s3cr3t-Pa55"

    struct LeakCase: Sendable, CustomTestStringConvertible {
        let name: String
        /// The environment given to the worker, from the server's base URL.
        let environment: @Sendable (String) -> [String: String]
        let script: @Sendable (_ base: String, _ line: String, _ index: Int) -> HostileHTTPServer.Behaviour
        let status: Int32
        var testDescription: String { name }
    }

    static let leaks: [LeakCase] = [
        LeakCase(
            name: "password in SHELF_SERVER",
            environment: { ["SHELF_SERVER": $0.replacingOccurrences(of: "http://", with: "http://reader:\(secret)@")] },
            script: { _, _, _ in .json(200, #"{"data":[]}"#) }, status: 78),
        LeakCase(
            name: "token in a Next-Page that fails",
            environment: { _ in [:] },
            script: { base, line, index in
                if line.contains("access_token") { return .json(400, #"{"code":400,"errno":107,"message":"bad"}"#) }
                guard line.contains(booksPath) else { return .json(200, #"{"data":[]}"#) }
                let next = "\(base)/buckets/default/collections/books/records?_sort=last_modified&access_token=\(secret)"
                return .json(200, #"{"data":[{"id":"b1","last_modified":\#(10 + index)}]}"#, headers: [("Next-Page", next)])
            }, status: 75),
    ]

    /// Credentials in the server URL are refused without being echoed, and secrets in
    /// any URL are redacted in the log and the report.
    @Test(arguments: leaks)
    func aSecretInAURLReachesNoOutput(_ leak: LeakCase) throws {
        let base = Locked("")
        let server = try HostileHTTPServer { line, index in leak.script(base.value, line, index) }
        defer { server.stop() }
        base.value = server.baseURL
        let home = try WorkerHome(server: server.baseURL, user: user, extra: leak.environment(server.baseURL))

        for format in ["text", "json"] {
            let run = try runWorker(home, ["--log-format", format], case: leak.name)
            #expect(run.status == leak.status, "\(run)")
            #expect(!run.stdout.contains(Self.secret) && !run.stderr.contains(Self.secret), "\(run)")
            let report = try String(contentsOfFile: home.reportPath, encoding: .utf8)
            #expect(!report.contains(Self.secret), "\(report)")
            let explained = leak.status == 78 ? "carries a user name or password" : "access_token=<redacted>"
            #expect(run.stderr.contains(explained), "\(run)")
        }
    }

    /// A server's error text with control characters and newlines reaches the text log
    /// escaped: no escape byte, and every line is one event with its timestamp.
    @Test func serverTextIsEscapedInTheTextLog() throws {
        let hostile = #"{"code":400,"errno":107,"error":"Invalid\u001b[31m","message":"line one\n2099-01-01T00:00:00Z ERROR [default] forged\u001b]0;pwned\u0007"}"#
        let server = try HostileHTTPServer { _, _ in .json(400, hostile) }
        defer { server.stop() }
        let home = try WorkerHome(server: server.baseURL, user: user)

        let run = try runWorker(home)
        #expect(run.status == 75, "\(run)")
        #expect(!run.stderr.contains("\u{1B}") && !run.stderr.contains("\u{07}"), "\(run)")
        let lines = run.stderr.split(separator: "\n")
        #expect(!lines.isEmpty)
        #expect(lines.allSatisfy { $0.first?.isNumber == true && $0.contains(" [default] ") }, "\(run)")
        #expect(!lines.contains { $0.hasPrefix("2099") }, "no forged line")
        #expect(run.stderr.contains(#"line one\n2099"#), "\(run)")
    }
}

// MARK: - Helpers

/// A value a server script reads while the test changes it.
final class Locked<Value: Sendable>: Sendable {
    private let storage: Mutex<Value>
    init(_ value: Value) { storage = Mutex(value) }
    var value: Value {
        get { storage.withLock { $0 } }
        set { storage.withLock { $0 = newValue } }
    }
}

/// A switch a server script reads while the test flips it.
final class ScriptFlag: Sendable {
    private let storage = Mutex(false)
    var isSet: Bool { storage.withLock { $0 } }
    func set(_ value: Bool) { storage.withLock { $0 = value } }
}
