import Foundation
import Synchronization

// MARK: - ScriptedHTTPServer

/// A tiny HTTP server on 127.0.0.1 whose answers a test scripts: for the failures a
/// real Kinto can't be made to produce on demand (a 401 with credentials, a 503 with
/// `Retry-After`, a refused change) and for holding a request until the test says so.
/// Every answer closes its connection, and every request is counted.
public final class ScriptedHTTPServer: Sendable {
    public struct Reply: Sendable {
        public var status: Int
        public var headers: [(String, String)]
        public var body: String

        public init(status: Int, headers: [(String, String)] = [], body: String = "") {
            self.status = status
            self.headers = headers
            self.body = body
        }

        /// A JSON answer.
        public static func json(_ status: Int, _ body: String, headers: [(String, String)] = []) -> Reply {
            Reply(status: status, headers: [("Content-Type", "application/json")] + headers, body: body)
        }
    }

    /// Answers one request, given its request line (`GET /v1/... HTTP/1.1`) and its
    /// position (0-based). It may block, e.g. until the test releases a semaphore.
    public typealias Script = @Sendable (_ requestLine: String, _ index: Int) -> Reply

    private let server: LoopbackTCPServer
    private let requests: RequestLog

    private final class RequestLog: Sendable {
        let lines = Mutex<[String]>([])
    }

    public init(_ script: @escaping Script) throws {
        let log = RequestLog()
        requests = log
        server = try LoopbackTCPServer { connection in
            guard let head = connection.readRequestHead() else { return }
            let line = String(head.prefix { $0 != "\r" })
            let index = log.lines.withLock { list in
                list.append(line)
                return list.count - 1
            }
            let reply = script(line, index)
            var text = "HTTP/1.1 \(reply.status) Scripted\r\nConnection: close\r\nContent-Length: \(reply.body.utf8.count)\r\n"
            for (name, value) in reply.headers { text += "\(name): \(value)\r\n" }
            connection.write(text + "\r\n" + reply.body)
            // NB: read until the client hangs up, so a request body that was not read
            // yet is drained rather than answered with a reset that could cut off the reply.
            connection.waitUntilClosedByPeer()
        }
    }

    /// `http://127.0.0.1:<port>/v1`.
    public var baseURL: String { "\(server.origin)/v1" }
    /// The request lines received so far.
    public var requestLines: [String] { requests.lines.withLock { $0 } }

    public func stop() { server.stop() }
}
