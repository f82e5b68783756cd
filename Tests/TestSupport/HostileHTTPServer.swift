import Foundation
import Synchronization

// MARK: - HostileHTTPServer

/// A server on 127.0.0.1 that misbehaves on purpose, for the tests of a client that
/// distrusts the network: binary (e.g. gzip) bodies with any headers, a connection
/// accepted and never answered, a body trickled a byte at a time. Each request gets
/// the behaviour the test's script picks from its request line and position; every
/// connection closes after one exchange.
public final class HostileHTTPServer: Sendable {
    public enum Behaviour: Sendable {
        /// A whole answer. `Content-Length` is added from the body.
        case reply(status: Int, headers: [(String, String)], body: Data)
        /// Reads the request, never answers; holds the connection until the client leaves.
        case hang
        /// Sends a head announcing a large body, then one byte every `interval`, until
        /// the client leaves.
        case trickle(interval: Duration)

        /// A JSON answer.
        public static func json(_ status: Int, _ body: String, headers: [(String, String)] = []) -> Behaviour {
            .reply(status: status, headers: [("Content-Type", "application/json")] + headers, body: Data(body.utf8))
        }
    }

    public typealias Script = @Sendable (_ requestLine: String, _ index: Int) -> Behaviour

    private let server: LoopbackTCPServer
    private let log: RequestLog

    private final class RequestLog: Sendable {
        let lines = Mutex<[String]>([])
    }

    public init(_ script: @escaping Script) throws {
        let log = RequestLog()
        self.log = log
        server = try LoopbackTCPServer { connection in
            guard let head = connection.readRequestHead() else { return }
            let line = String(head.prefix { $0 != "\r" })
            let index = log.lines.withLock { list in
                list.append(line)
                return list.count - 1
            }
            switch script(line, index) {
            case .reply(let status, let headers, let body):
                var text = "HTTP/1.1 \(status) Hostile\r\nConnection: close\r\nContent-Length: \(body.count)\r\n"
                for (name, value) in headers { text += "\(name): \(value)\r\n" }
                guard connection.write(Data((text + "\r\n").utf8)) else { return }
                connection.write(body)
                connection.waitUntilClosedByPeer()
            case .hang:
                connection.waitUntilClosedByPeer()
            case .trickle(let interval):
                let head = "HTTP/1.1 200 Hostile\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: 1000000\r\n\r\n{\"data\":["
                guard connection.write(Data(head.utf8)) else { return }
                while true {
                    Thread.sleep(forTimeInterval: Double(interval.components.seconds) + Double(interval.components.attoseconds) / 1e18)
                    guard connection.write(Data(" ".utf8)) else { return }
                }
            }
        }
    }

    /// `http://127.0.0.1:<port>/v1`.
    public var baseURL: String { "\(server.origin)/v1" }
    /// The request lines received so far.
    public var requestLines: [String] { log.lines.withLock { $0 } }

    public func stop() { server.stop() }
}

// MARK: - Gzip

/// Gzip-compressed bytes, made with the system's `gzip` (Debian's essential set has it),
/// for replies that inflate to far more than they weigh.
public enum GzipBytes {
    /// `count` zero bytes, compressed: 256 MiB weigh about 250 KiB.
    public static func zeros(count: Int) throws -> Data {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", "head -c \(count) /dev/zero | gzip -9 -c"]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return data
    }
}
