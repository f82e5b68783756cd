import Foundation
import Services

// MARK: - FaultProxy

/// `Tests/FaultHarness/fault_proxy.py` in front of a real Kinto, for tests of what a
/// sync does when the network misbehaves *after* the server applied a request: a lost
/// or cut reply, a reset, a hang, latency.
///
/// Started on a free loopback port; it stops with `stop()`, at process exit, or when
/// this process dies (the proxy watches its parent). Point a client at `baseURL`
/// instead of the server's, then add rules; `log()` says what every request met.
public final class FaultProxy: Sendable {
    public let port: Int
    public let upstream: KintoServer
    public var origin: String { "http://127.0.0.1:\(port)" }
    /// The API root through the proxy, `http://127.0.0.1:<port>/v1`.
    public var baseURL: String { "\(origin)/v1" }

    private let process: ReadyProcess

    private init(upstream: KintoServer, process: ReadyProcess) {
        self.port = process.port
        self.upstream = upstream
        self.process = process
    }

    /// Starts a proxy in front of `upstream`.
    /// - Throws: `KintoServer.LaunchError` when Python is missing or the proxy does not
    ///   say `ready <port>`.
    public static func start(upstream: KintoServer) throws -> FaultProxy {
        let script = FixtureFiles.repositoryRoot.appendingPathComponent("Tests/FaultHarness/fault_proxy.py").path
        let process = try ReadyProcess.launch("the fault proxy", [script, "--upstream", upstream.origin, "--port", "0"])
        return FaultProxy(upstream: upstream, process: process)
    }

    /// Stops the proxy and waits for it to exit. Safe to call twice.
    public func stop() {
        process.stop()
    }

    // MARK: Rules

    /// What the proxy does to a request a rule matches.
    public enum Action: String, Sendable {
        /// Forward, let the server apply it, then close without a byte of the reply.
        case loseReply = "lose_reply"
        /// Forward, then send the head and half the body, then close.
        case cutReply = "cut_reply"
        /// Close with a TCP reset; the server never sees the request.
        case reset
        /// Answer with `code` (an empty JSON error body); the server never sees the request.
        case status
    }

    /// One rule: the first matching request(s) after `skip` meet `action`.
    public struct Rule: Sendable {
        public var action: Action
        public var method: HTTPMethod?
        /// A prefix of the request path (without query), e.g. `/v1/batch`.
        public var path: String?
        /// Only requests whose body contains this text (e.g. a record id).
        public var bodyContains: String?
        public var skip: Int
        /// How many requests it applies to; -1 for all.
        public var count: Int
        /// The status `.status` answers with.
        public var code: Int

        public init(
            _ action: Action, method: HTTPMethod? = nil, path: String? = nil, bodyContains: String? = nil,
            skip: Int = 0, count: Int = 1, code: Int = 503
        ) {
            self.action = action
            self.method = method
            self.path = path
            self.bodyContains = bodyContains
            self.skip = skip
            self.count = count
            self.code = code
        }

        var json: [String: Any] {
            var rule: [String: Any] = ["action": action.rawValue, "skip": skip, "count": count]
            if action == .status {
                rule["code"] = code
                rule["headers"] = ["Content-Type": "application/json"]
                rule["body"] = #"{"code": \#(code), "errno": 999, "error": "Injected", "message": "injected by the test"}"#
            }
            if let method { rule["method"] = method.rawValue }
            if let path { rule["path"] = path }
            if let bodyContains { rule["body_contains"] = bodyContains }
            return rule
        }
    }

    /// Appends rules; the first that matches and has count left fires.
    public func add(_ rules: Rule...) async throws {
        _ = try await control(.post, "rules", ["rules": rules.map(\.json)])
    }

    /// No rules, no random faults, no latency.
    public func clear() async throws {
        _ = try await control(.post, "clear", [:])
    }

    // MARK: Log

    /// One proxied request and what it met.
    public struct LogEntry: Sendable, Equatable {
        public var method: String
        public var path: String
        public var action: String
        /// The server's status, nil when the request never reached it.
        public var upstreamStatus: Int?
    }

    /// Every request proxied so far, in order.
    public func log() async throws -> [LogEntry] {
        let data = try await control(.get, "log", nil)
        let entries = (try JSONSerialization.jsonObject(with: data) as? [[String: Any]]) ?? []
        return entries.map { entry in
            LogEntry(
                method: entry["method"] as? String ?? "", path: entry["path"] as? String ?? "",
                action: entry["action"] as? String ?? "", upstreamStatus: entry["upstream_status"] as? Int)
        }
    }

    // MARK: Control

    public struct ControlError: Error, CustomStringConvertible {
        public let status: Int
        public let body: String
        public var description: String { "fault proxy control answered \(status): \(body)" }
    }

    private func control(_ method: HTTPMethod, _ command: String, _ body: [String: Any]?) async throws -> Data {
        let payload = try body.map { try JSONSerialization.data(withJSONObject: $0) }
        let response = try await CurlTransport.shared.send(HTTPRequest(
            method: method, url: "\(origin)/__faults__/\(command)",
            headers: ["Content-Type": "application/json"], body: payload,
            timeouts: Timeouts(connect: .seconds(5), request: .seconds(10))))
        guard response.status == 200 else {
            throw ControlError(status: response.status, body: String(decoding: response.body, as: UTF8.self))
        }
        return response.body
    }
}
