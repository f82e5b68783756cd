import Foundation

// MARK: - HTTPTransport

/// Moves one HTTP exchange over the network: the seam between Shelf's API client and
/// libcurl, so tests and other modules can put a fake in its place.
///
/// Implementations answer every HTTP status with an `HTTPResponse`; deciding what a
/// status means is the API client's job.
public protocol HTTPTransport: Sendable {
    /// Performs `request` and returns the whole response.
    /// - Parameters:
    ///   - onHead: called once, as soon as the status line and headers have arrived and
    ///     before the body has; lets a pager ask for the next page while this one is
    ///     still downloading. It may run on the transport's own thread: return quickly.
    /// - Throws: `APIError.transport` when no HTTP response arrived (timeout, refused,
    ///   DNS, TLS…), `CancellationError` when the calling task was cancelled.
    func send(_ request: HTTPRequest, onHead: (@Sendable (HTTPResponseHead) -> Void)?) async throws -> HTTPResponse
}

extension HTTPTransport {
    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        try await send(request, onHead: nil)
    }
}

// MARK: - HTTPMethod

public enum HTTPMethod: String, Sendable, Hashable, CaseIterable {
    case get = "GET"
    case head = "HEAD"
    case post = "POST"
    case put = "PUT"
    case patch = "PATCH"
    case delete = "DELETE"
}

// MARK: - HTTPRequest

/// One request as the transport sends it: an absolute URL, headers and an optional body.
public struct HTTPRequest: Sendable, Hashable {
    public var method: HTTPMethod
    /// An absolute `http` or `https` URL. Credentials never go here: they travel in an
    /// `Authorization` header, which descriptions redact.
    public var url: String
    public var headers: HTTPHeaders
    public var body: Data?
    /// Limits on this exchange; `Timeouts.default` unless the API client sets others.
    public var timeouts: Timeouts

    public init(
        method: HTTPMethod = .get, url: String, headers: HTTPHeaders = [:],
        body: Data? = nil, timeouts: Timeouts = .default
    ) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.timeouts = timeouts
    }
}

extension HTTPRequest: CustomStringConvertible {
    /// `PUT http://host/v1/… (3 headers, 120-byte body)`: header values stay out of it.
    public var description: String {
        var text = "\(method.rawValue) \(RedactedURL.string(url)) (\(headers.count) header\(headers.count == 1 ? "" : "s")"
        if let body { text += ", \(body.count)-byte body" }
        return text + ")"
    }
}

// MARK: - Timeouts

/// How long a request may take. Both limits apply to every request; a request that
/// waits for a connection slot counts that wait against `request`.
public struct Timeouts: Sendable, Hashable {
    /// Time allowed to resolve the host and establish the connection (incl. TLS).
    /// Default: 10 seconds.
    public var connect: Duration
    /// Time allowed for the whole exchange, body included. Default: 60 seconds, enough
    /// for a 10,000-record page on a slow link.
    public var request: Duration
    /// A transfer slower than `lowSpeedBytesPerSecond` for this long ends, whatever
    /// `request` allows: a server that accepts the connection and never answers, or
    /// trickles a few bytes at a time, is given up on after `stall`, not after the whole
    /// request timeout. Default: 10 seconds — Kinto answers within a second even for a
    /// 10,000-record page.
    public var stall: Duration
    /// The rate below which a transfer counts as stalled. Default: 100 bytes/s; any real
    /// link and server do far better, a trickling one does not.
    public var lowSpeedBytesPerSecond: Int

    public init(
        connect: Duration = .seconds(10), request: Duration = .seconds(60), stall: Duration = .seconds(10),
        lowSpeedBytesPerSecond: Int = 100
    ) {
        self.connect = connect
        self.request = request
        self.stall = stall
        self.lowSpeedBytesPerSecond = max(1, lowSpeedBytesPerSecond)
    }

    public static let `default` = Timeouts()
}

extension Duration {
    /// Whole milliseconds, rounded up so a tiny positive duration never becomes "no limit"
    /// (0); saturating, so no duration can trap.
    var wholeMilliseconds: Int {
        let (seconds, attoseconds) = components
        let (scaled, overflow) = seconds.multipliedReportingOverflow(by: 1_000)
        if overflow { return seconds > 0 ? Int(Int32.max) : 1 }
        let millis = scaled.addingReportingOverflow((attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000)
        if millis.overflow { return Int(Int32.max) }
        return Int(clamping: max(millis.partialValue, 1))
    }

    /// Whole seconds, at least 1, saturating (libcurl's low-speed time is in seconds).
    var wholeSeconds: Int {
        max(1, (wholeMilliseconds + 999) / 1_000)
    }
}

// MARK: - Responses

/// What arrives first: the final status line and headers (informational 1xx heads are skipped).
public struct HTTPResponseHead: Sendable, Hashable {
    public var status: Int
    public var headers: HTTPHeaders

    public init(status: Int, headers: HTTPHeaders) {
        self.status = status
        self.headers = headers
    }
}

/// A whole HTTP response, whatever its status.
public struct HTTPResponse: Sendable, Hashable {
    public var status: Int
    public var headers: HTTPHeaders
    /// The body as received, after content decoding (gzip, brotli, zstd).
    public var body: Data
    /// The URL that was requested.
    public var url: String

    public init(status: Int, headers: HTTPHeaders = [:], body: Data = Data(), url: String) {
        self.status = status
        self.headers = headers
        self.body = body
        self.url = url
    }

    public var head: HTTPResponseHead { HTTPResponseHead(status: status, headers: headers) }
}
