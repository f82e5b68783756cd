import CCurl
import Foundation
import Synchronization

// MARK: - CurlTransport

/// `HTTPTransport` over libcurl: one multi handle driven by one dedicated thread, with
/// async/await on top.
///
/// Why this shape: libcurl's blocking `curl_easy_perform` would hold a thread of Swift's
/// small cooperative pool for the whole exchange; the multi interface runs every
/// transfer on one thread of its own instead, and keeps the connection pool, so a
/// sequence of requests to one server reuses its connection. Requests are resumed
/// exactly once — with the response, a transport error, or `CancellationError` when the
/// calling task is cancelled (the transfer is aborted at once, not left to finish).
///
/// Content encodings (gzip, brotli, zstd) are negotiated and decoded; TLS peers are
/// verified unless `Configuration.verifiesTLS` says otherwise.
public final class CurlTransport: HTTPTransport {
    // MARK: Configuration

    public struct Configuration: Sendable, Hashable {
        /// Verify the server's certificate and host name. Default: true.
        public var verifiesTLS: Bool
        /// A PEM file of trusted CAs instead of the system's. Default: nil (the system's).
        public var caBundlePath: String?
        /// Idle connections kept open for reuse. Default: 16.
        public var maximumIdleConnections: Int
        /// Connections to one host at once; 0 for no limit (the default). Requests over
        /// the limit wait inside libcurl, and that wait counts against their timeout.
        public var maximumConnectionsPerHost: Int
        /// `User-Agent`, unless a request sets its own. Default: `Shelf`.
        public var userAgent: String
        /// The most bytes one response body may have after content decoding (gzip,
        /// brotli, zstd inflate), and separately the most its headers may have; the
        /// transfer is aborted past it (`TransportFailure.Kind.tooLarge`), so a small
        /// compressed reply can't inflate without bound in memory. Default: 64 MiB —
        /// a full 10,000-record page of books is about 3 MB. `SHELF_MAX_RESPONSE_MB`
        /// raises it for both apps.
        public var maximumResponseBytes: Int

        public static let defaultMaximumResponseBytes = 64 << 20

        public init(
            verifiesTLS: Bool = true, caBundlePath: String? = nil, maximumIdleConnections: Int = 16,
            maximumConnectionsPerHost: Int = 0, userAgent: String = "Shelf",
            maximumResponseBytes: Int = Configuration.defaultMaximumResponseBytes
        ) {
            self.maximumResponseBytes = max(1, maximumResponseBytes)
            self.verifiesTLS = verifiesTLS
            self.caBundlePath = caBundlePath
            self.maximumIdleConnections = maximumIdleConnections
            self.maximumConnectionsPerHost = maximumConnectionsPerHost
            self.userAgent = userAgent
        }
    }

    /// A transport with the default configuration, shared by everything in the process
    /// that does not need its own: one thread, one connection pool.
    public static let shared = CurlTransport()

    /// A transport that trusts the CAs in the PEM file at `path` instead of the system's
    /// (a private CA), shared by everything in the process that names the same file.
    /// Verification stays on: a certificate that does not chain to that CA, or names
    /// another host, is refused.
    public static func trusting(caFile path: String?) -> CurlTransport {
        guard let path else { return shared }
        return privateCATransports.withLock { transports in
            if let existing = transports[path] { return existing }
            let transport = CurlTransport(configuration: Configuration(caBundlePath: path))
            transports[path] = transport
            return transport
        }
    }

    private static let privateCATransports = Mutex<[String: CurlTransport]>([:])

    public let configuration: Configuration
    /// The loop and its thread, made by the first request: a process that makes a
    /// transport but sends nothing (a worker's tick that rests, `IdleRest`) never loads
    /// libcurl and the libraries it links, nor starts the thread.
    private let started = Mutex<CurlMultiLoop?>(nil)

    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
    }

    deinit {
        started.withLock { $0 }?.shutDown()
    }

    /// The loop, started on first use.
    private var loop: CurlMultiLoop {
        started.withLock { loop in
            if let loop { return loop }
            let made = CurlMultiLoop(configuration: configuration)
            loop = made
            return made
        }
    }

    // MARK: Sending

    public func send(_ request: HTTPRequest, onHead: (@Sendable (HTTPResponseHead) -> Void)?) async throws -> HTTPResponse {
        let ticket = CurlTicket(id: loop.makeTransferID())
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                loop.submit(CurlJob(id: ticket.id, request: request, onHead: onHead, continuation: continuation), ticket: ticket)
            }
        } onCancel: {
            loop.cancel(ticket)
        }
    }
}

// MARK: - Jobs and tickets

/// A request on its way to the loop thread, with the continuation to resume exactly once.
struct CurlJob: Sendable {
    let id: UInt64
    let request: HTTPRequest
    let onHead: (@Sendable (HTTPResponseHead) -> Void)?
    let continuation: CheckedContinuation<HTTPResponse, any Error>
}

/// Where a request stands as seen by its task: lets a cancellation that arrives before
/// the request was handed to the loop stop it from being sent at all.
final class CurlTicket: Sendable {
    enum Phase { case created, submitted, cancelled }

    let id: UInt64
    let phase = Mutex(Phase.created)

    init(id: UInt64) { self.id = id }
}
