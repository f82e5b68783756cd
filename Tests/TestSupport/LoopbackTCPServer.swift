import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

// MARK: - LoopbackTCPServer

/// A TCP server on 127.0.0.1 whose every connection is handed to a test's handler on a
/// thread of its own: for transport tests that need a server which never answers,
/// answers halfway, or answers only when the test says so.
public final class LoopbackTCPServer: Sendable {
    public typealias Handler = @Sendable (LoopbackConnection) -> Void

    public let port: Int
    private let listener: Int32
    private let stopped = Mutex(false)

    /// `http://127.0.0.1:<port>`.
    public var origin: String { "http://127.0.0.1:\(port)" }

    public init(handler: @escaping Handler) throws {
        let socket = try LoopbackSocket.bound()
        guard listen(socket.fd, 16) == 0 else {
            close(socket.fd)
            throw LoopbackSocket.Failure("listen", errno)
        }
        listener = socket.fd
        port = socket.port
        let listener = self.listener
        let thread = Thread {
            while true {
                let fd = accept(listener, nil, nil)
                guard fd >= 0 else { return }  // the listener was shut down
                let connection = LoopbackConnection(fd: fd)
                let worker = Thread { handler(connection); connection.close() }
                worker.start()
            }
        }
        thread.name = "loopback-accept"
        thread.start()
    }

    /// Stops accepting connections. Connections already handed out end with their handler.
    public func stop() {
        let alreadyStopped = stopped.withLock { stopped in
            defer { stopped = true }
            return stopped
        }
        guard !alreadyStopped else { return }
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }

    deinit { stop() }
}

// MARK: - LoopbackConnection

/// One accepted connection, used from its handler's thread only.
public final class LoopbackConnection: Sendable {
    private let fd: Int32
    private let closed = Mutex(false)

    init(fd: Int32) { self.fd = fd }

    /// Reads up to the blank line that ends a request head and returns the head,
    /// or nil if the client closed first.
    @discardableResult
    public func readRequestHead() -> String? {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = read(fd, &buffer, buffer.count)
            guard count > 0 else { return nil }
            bytes += buffer[0..<count]
            if let text = String(bytes: bytes, encoding: .utf8), let end = text.range(of: "\r\n\r\n") {
                return String(text[..<end.lowerBound])
            }
        }
    }

    public func write(_ text: String) {
        write(Data(text.utf8))
    }

    /// - Returns: false when the peer is gone (not every byte was sent).
    @discardableResult
    public func write(_ data: Data) -> Bool {
        data.withUnsafeBytes { raw in
            guard let base = raw.baseAddress else { return true }
            var sent = 0
            while sent < raw.count {
                let count = send(fd, base + sent, raw.count - sent, Int32(MSG_NOSIGNAL))
                guard count > 0 else { return false }
                sent += count
            }
            return true
        }
    }

    /// Blocks until the client closes the connection (or aborts the request).
    public func waitUntilClosedByPeer() {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while read(fd, &buffer, buffer.count) > 0 {}
    }

    func close() {
        let alreadyClosed = closed.withLock { closed in
            defer { closed = true }
            return closed
        }
        if !alreadyClosed { _ = Glibc.close(fd) }
    }
}

// MARK: - ClosedLoopbackPort

/// A loopback port where nobody listens: bound (so no one else takes it) but not
/// listening, so a connection attempt is refused at once.
public final class ClosedLoopbackPort: Sendable {
    public let port: Int
    private let fd: Int32

    public init() throws {
        let socket = try LoopbackSocket.bound()
        fd = socket.fd
        port = socket.port
    }

    public var origin: String { "http://127.0.0.1:\(port)" }

    deinit { close(fd) }
}

// MARK: - Sockets

enum LoopbackSocket {
    struct Failure: Error, CustomStringConvertible {
        let call: String
        let code: Int32
        init(_ call: String, _ code: Int32) { self.call = call; self.code = code }
        var description: String { "\(call) failed: \(String(cString: strerror(code)))" }
    }

    /// A TCP socket bound to 127.0.0.1 on a free port.
    static func bound() throws -> (fd: Int32, port: Int) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure("socket", errno) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0 else {
            let code = errno
            close(fd)
            throw Failure("bind", code)
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return (fd, Int(UInt16(bigEndian: address.sin_port)))
    }
}
