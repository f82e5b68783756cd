import Foundation
import Synchronization
import Testing
import TestSupport

/// `shelf` reads against servers that hang, throttle absurdly, send unreadable records
/// or hostile text: a read never waits on the network much longer than its one-second
/// budget, `--offline` never touches it, and nothing raw or secret reaches the terminal.
///
/// NB: these run the built binary (`runBinary`): they bound a read's wall-clock time,
/// a promise of the process, which in-process runs sharing the tests' main actor and
/// cores could not keep for reasons of their own.
@Suite("shelf: reads against a hostile server")
struct HostileServerReadTests {
    private static let password = "s3cr3t-Pa55"

    /// A sandbox whose reads wait the default second (`ShelfSandbox` gives shared test
    /// servers ten): these tests are of that bound.
    private func sandbox(server: String) async throws -> ShelfSandbox {
        let sandbox = try ShelfSandbox()
        sandbox.environment["SHELF_READ_SECONDS"] = "1"
        let run = try sandbox.runBinary("account", "add", "reader", "--server", server, "--user", "reader", "--no-verify",
                                  environment: ["SHELF_PASSWORD": Self.password])
        #expect(run.status == 0, "\(run)")
        return sandbox
    }

    private func timed(_ body: () async throws -> ShelfRun) async rethrows -> (ShelfRun, Double) {
        let start = ContinuousClock.now
        let run = try await body()
        let elapsed = ContinuousClock.now - start
        return (run, Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
    }

    // MARK: - Reads never wait long

    struct ReadCase: Sendable, CustomTestStringConvertible {
        let name: String
        let behaviour: HostileHTTPServer.Behaviour
        let arguments: [String]
        let addLocalBook: Bool
        let warning: String
        var testDescription: String { name }
    }

    static let reads: [ReadCase] = [
        ReadCase(name: "books, never synced, server hangs", behaviour: .hang, arguments: ["books"], addLocalBook: false,
                 warning: "nothing from the server is local yet"),
        ReadCase(name: "books with a local book, server hangs", behaviour: .hang, arguments: ["books"], addLocalBook: true,
                 warning: "showing the local data"),
        ReadCase(name: "books, server trickles", behaviour: .trickle(interval: .milliseconds(50)), arguments: ["books"],
                 addLocalBook: false, warning: "nothing from the server is local yet"),
        ReadCase(name: "cart (two collections), server hangs", behaviour: .hang, arguments: ["cart"], addLocalBook: false,
                 warning: "no answer within the 1 s a read waits"),
        ReadCase(name: "books, Backoff: Int64.max", behaviour: .json(200, #"{"data":[]}"#, headers: [("Backoff", "9223372036854775807")]),
                 arguments: ["books"], addLocalBook: false, warning: "back off"),
        ReadCase(name: "books, 503 with Retry-After in year 9999",
                 behaviour: .json(503, #"{"code":503}"#, headers: [("Retry-After", "Fri, 31 Dec 9999 23:59:59 GMT")]),
                 arguments: ["books"], addLocalBook: false, warning: "nothing from the server is local yet"),
    ]

    /// Whatever the server does, a read answers within its budget (plus the process'
    /// start), exits 0, and says on one stderr line what it could not do.
    @Test(arguments: reads)
    func aReadReturnsWithinItsBudget(_ read: ReadCase) async throws {
        let server = try HostileHTTPServer { _, _ in read.behaviour }
        defer { server.stop() }
        let sandbox = try await sandbox(server: server.baseURL)
        if read.addLocalBook {
            #expect(try sandbox.runBinary("--offline", "book", "add", "--title", "Dune", "--author", "Frank Herbert").status == 0)
        }

        let (run, seconds) = try await timed { try sandbox.runBinary(read.arguments) }
        #expect(run.status == 0, "\(run)")
        #expect(seconds < 3, "took \(seconds) s: \(run)")
        #expect(run.stderr.contains(read.warning), "\(run)")
        #expect(run.stderr.split(separator: "\n").allSatisfy { $0.hasPrefix("Warning: ") }, "\(run)")
        if read.addLocalBook { #expect(run.stdout.contains("Dune")) }
    }

    /// `SHELF_READ_SECONDS` sets how long a read waits: with 3, a read of a silent server
    /// waits about three seconds, says so, and shows what is local; a value out of range
    /// is a configuration error before anything is asked.
    @Test func theReadWaitFromTheEnvironmentIsTheReadsBudget() async throws {
        let server = try HostileHTTPServer { _, _ in .hang }
        defer { server.stop() }
        let sandbox = try await sandbox(server: server.baseURL)
        #expect(try sandbox.runBinary("--offline", "book", "add", "--title", "Dune", "--author", "Frank Herbert").status == 0)

        let (run, seconds) = try await timed { try sandbox.runBinary(["books"], environment: ["SHELF_READ_SECONDS": "3"]) }
        #expect(run.status == 0, "\(run)")
        #expect(seconds >= 3 && seconds < 6, "took \(seconds) s: \(run)")
        #expect(run.stderr.contains("no answer within the 3 s a read waits"), "\(run)")
        #expect(run.stdout.contains("Dune"), "\(run)")

        for value in ["0", "61", "1.5", "soon"] {
            let refused = try sandbox.runBinary(["books"], environment: ["SHELF_READ_SECONDS": value])
            #expect(refused.status == 78 && refused.stderr.contains("SHELF_READ_SECONDS='\(value)'"), "\(refused)")
            #expect(refused.stdout.isEmpty, "\(refused)")
        }
    }

    /// `--offline` and `SHELF_OFFLINE=1` never send a request; `sync` refuses (75).
    @Test(arguments: [["--offline"], []])
    func offlineNeverTouchesTheNetwork(_ flag: [String]) async throws {
        let server = try HostileHTTPServer { _, _ in .hang }
        defer { server.stop() }
        let sandbox = try await sandbox(server: server.baseURL)
        let environment = flag.isEmpty ? ["SHELF_OFFLINE": "1"] : [:]

        for command in [["books"], ["cart"], ["products"], ["notes"], ["tasks"]] {
            let (run, seconds) = try await timed { try sandbox.runBinary(flag + command, environment: environment) }
            #expect(run.status == 0 && run.stderr.isEmpty, "\(run)")
            #expect(seconds < 2)
        }
        let sync = try sandbox.runBinary(flag + ["sync"], environment: environment)
        #expect(sync.status == 75, "\(sync)")
        let added = try sandbox.runBinary(flag + ["account", "add", "other", "--server", server.baseURL, "--user", "reader"],
                                    environment: environment.merging(["SHELF_PASSWORD": "x"]) { $1 })
        #expect(added.status == 0, "an account is added without asking the server: \(added)")
        #expect(server.requestLines.isEmpty, "\(server.requestLines)")
    }

    /// A server that answers within the budget is read through on a new device, and the
    /// first `cart` shows priced lines: the catalog's refresh waits for the cart's run
    /// instead of giving up on the lock.
    @Test func theFirstCartOnANewDeviceIsPriced() async throws {
        // NB: the first request is held until the other collection's refresh says (-v) that
        // it waits for the lock that request's run holds: that wait is what is tested.
        let refreshWaits = DispatchSemaphore(value: 0)
        let server = try HostileHTTPServer { line, index in
            if index == 0 { _ = refreshWaits.wait(timeout: .now() + 20) }
            if line.contains("collections/cart/records") {
                return .json(200, #"{"data":[{"id":"p1","product_id":"p1","quantity":2,"last_modified":10}]}"#)
            }
            if line.contains("collections/products/records") {
                return .json(200, #"{"data":[{"id":"p1","name":"Bookmark","price_minor":250,"currency":"EUR","last_modified":20}]}"#)
            }
            return .json(200, #"{"data":[]}"#)
        }
        defer { server.stop() }
        let sandbox = try await sandbox(server: server.baseURL)

        let running = try ProcessRunner.start(
            ShelfBinary.url, ["-v", "--json", "cart"], environment: sandbox.environment)
        let waiting = running.waitForStderrLine { $0.contains("waiting for the sync in progress") }
        refreshWaits.signal()
        let finished = running.finish()
        #expect(waiting != nil, "no refresh waited for the lock: \(finished.stderr)")
        let run = ShelfRun(arguments: ["--json", "cart"], status: finished.status, stdout: finished.stdout, stderr: finished.stderr)
        #expect(run.status == 0, "\(run)")
        let lines = try #require(try run.json()["lines"] as? [[String: Any]], "\(run)")
        #expect(lines.count == 1)
        #expect(lines.first?["name"] as? String == "Bookmark", "\(run)")
        #expect(lines.first?["lineTotal"] != nil && !(lines.first?["lineTotal"] is NSNull), "\(run)")
    }

    /// A year-9999 `Retry-After` holds the account for a day at most, `shelf status`
    /// shows the deadline, and `shelf sync --ignore-backoff` gets past it and clears it.
    @Test func aFarFutureRetryAfterShowsInStatusAndCanBeIgnored() async throws {
        let throttled = Mutex(true)
        let server = try HostileHTTPServer { _, _ in
            throttled.withLock { $0 }
                ? .json(503, #"{"code":503}"#, headers: [("Retry-After", "Fri, 31 Dec 9999 23:59:59 GMT")])
                : .json(200, #"{"data":[]}"#)
        }
        defer { server.stop() }
        let sandbox = try await sandbox(server: server.baseURL)

        #expect(try sandbox.runBinary("sync").status == 75)
        let status = try #require(try sandbox.runBinary("--json", "status").json()["sync"] as? [String: Any])
        #expect(status["backingOff"] as? Bool == true, "\(status)")
        let left = try #require(status["backoffSecondsLeft"] as? Int)
        #expect(left > 0 && left <= 86_400, "\(status)")
        #expect(try sandbox.runBinary("status").stdout.contains("backoff"))
        #expect(try sandbox.runBinary("sync").status == 75, "the deadline holds")

        throttled.withLock { $0 = false }
        let forced = try sandbox.runBinary("sync", "--ignore-backoff")
        #expect(forced.status == 0, "\(forced)")
        let after = try #require(try sandbox.runBinary("--json", "status").json()["sync"] as? [String: Any])
        #expect(after["backingOff"] as? Bool == false, "\(after)")
    }

    // MARK: - Nothing secret or hostile reaches output raw

    /// A password inside a server URL is refused (78) and never echoed.
    @Test(arguments: [
        ["account", "add", "home", "--server", "https://reader:\(password)@shelf.example/v1", "--user", "reader"],
        ["books"],
        ["sync"],
    ])
    func aPasswordInTheServerURLIsRefusedUnechoed(_ arguments: [String]) async throws {
        let sandbox = try ShelfSandbox()
        let run = try sandbox.runBinary(arguments, environment: [
            "SHELF_SERVER": "http://reader:\(Self.password)@127.0.0.1:9/v1", "SHELF_USER": "reader", "SHELF_PASSWORD": "x",
        ])
        #expect(run.status == 78, "\(run)")
        #expect(!run.stdout.contains(Self.password) && !run.stderr.contains(Self.password), "\(run)")
        #expect(run.stderr.contains("carries a user name or password"), "\(run)")
    }

    /// A size limit from the environment that is not a number in range is a
    /// configuration error (78) for reads and syncs alike.
    @Test(arguments: [["books"], ["sync"]])
    func aBadLimitInTheEnvironmentIsAConfigurationError(_ command: [String]) async throws {
        let server = try HostileHTTPServer { _, _ in .hang }
        defer { server.stop() }
        let sandbox = try await sandbox(server: server.baseURL)
        let run = try sandbox.runBinary(command, environment: ["SHELF_MAX_RESPONSE_MB": "9223372036854775807"])
        #expect(run.status == 78, "\(run)")
        #expect(run.stderr.contains("SHELF_MAX_RESPONSE_MB"), "\(run)")
        #expect(server.requestLines.isEmpty)
    }

    /// A server's error text with escape codes and newlines is shown escaped, on one line.
    @Test(arguments: ["sync", "books"])
    func serverTextIsEscapedOnTheTerminal(_ command: String) async throws {
        let hostile = #"{"code":400,"errno":107,"error":"Invalid\u001b[2J","message":"one\nError: forged\u001b]0;pwned\u0007"}"#
        let server = try HostileHTTPServer { _, _ in .json(400, hostile) }
        defer { server.stop() }
        let sandbox = try await sandbox(server: server.baseURL)

        let run = try sandbox.runBinary(command)
        #expect(!run.stderr.contains("\u{1B}") && !run.stderr.contains("\u{07}"), "\(run)")
        #expect(!run.stderr.split(separator: "\n").contains { $0.hasPrefix("Error: forged") }, "no forged line: \(run)")
        #expect(run.stderr.contains(#"one\nError: forged\u{1B}]0;pwned\u{7}"#), "\(run)")
    }

    // MARK: - Records Shelf cannot read

    struct UnreadableCase: Sendable, CustomTestStringConvertible {
        let name: String
        let record: String
        var testDescription: String { name }
    }

    static let unreadable: [UnreadableCase] = [
        UnreadableCase(name: "title of the wrong type", record: #"{"id":"bad","last_modified":20,"title":42,"author_name":"A","finished":false}"#),
        UnreadableCase(name: "no title", record: #"{"id":"bad","last_modified":20,"author_name":"A","finished":false}"#),
        UnreadableCase(name: "empty title", record: #"{"id":"bad","last_modified":20,"title":"  ","author_name":"A","finished":false}"#),
    ]

    /// A record Shelf cannot read is warned about, counted in `--json`, and left in the
    /// store: the next read still finds (and reports) it.
    @Test(arguments: unreadable)
    func unreadableRecordsAreWarnedAndCounted(_ bad: UnreadableCase) async throws {
        let good = #"{"id":"good","last_modified":10,"title":"Dune","author_name":"Frank Herbert","finished":false}"#
        let server = try HostileHTTPServer { line, _ in
            line.contains("collections/books/records") ? .json(200, #"{"data":[\#(good),\#(bad.record)]}"#) : .json(200, #"{"data":[]}"#)
        }
        defer { server.stop() }
        let sandbox = try await sandbox(server: server.baseURL)
        #expect(try sandbox.runBinary("sync").status == 0)

        let text = try sandbox.runBinary("books")
        #expect(text.status == 0, "\(text)")
        #expect(text.stdout.contains("Dune"))
        #expect(text.stderr.contains("1 books record cannot be read"), "\(text)")
        for _ in 0..<2 {
            let json = try sandbox.runBinary("--json", "books")
            let unreadable = try #require(try json.json()["unreadable"] as? [[String: Any]], "\(json)")
            #expect(unreadable.map { $0["id"] as? String } == ["bad"], "\(json)")
            #expect(json.stderr.contains("cannot be read"))
        }
    }
}
