import Foundation

// MARK: - APIClient

/// Talks JSON over HTTP to one server: builds requests from paths under the base URL,
/// adds credentials and preconditions, and turns every answer into either a `Response`
/// or one `APIError`.
///
/// A value type holding its configuration and a transport; copies share the transport
/// (and so its connections).
public struct APIClient: Sendable {
    public let configuration: Configuration
    private let transport: any HTTPTransport

    /// - Parameter transport: `CurlTransport.shared` unless a test or a caller with its
    ///   own connection pool supplies another.
    public init(configuration: Configuration, transport: any HTTPTransport = CurlTransport.shared) {
        self.configuration = configuration
        self.transport = transport
    }

    // MARK: Reading

    /// GETs `path` and decodes the JSON body as `T`.
    ///
    /// Decoding runs off the caller's actor (`@concurrent`): a view model awaiting this
    /// never decodes on the main actor.
    /// - Throws: `APIError` (`.decoding` with the failing coding path) or `CancellationError`.
    @concurrent
    public func get<T: Decodable & Sendable>(
        _ path: String, query: [URLQueryItem] = [], as type: T.Type = T.self
    ) async throws -> Response<T> {
        let response = try await send(.get, path, query: query)
        do {
            return try response.map { try JSONDecoder().decode(T.self, from: $0) }
        } catch {
            throw APIError.decoding(DecodingFailure(decoding: error, url: response.url))
        }
    }

    // MARK: Sending

    /// Sends a request to `path` under the base URL and returns the raw body.
    /// - Parameters:
    ///   - body: JSON bytes, sent with `Content-Type: application/json`.
    ///   - precondition: `If-Match` / `If-None-Match`. With `.ifNoneMatch`, a 304 is a
    ///     success (`isNotModified`), not an error.
    ///   - onHead: called as soon as the status and headers arrive, before the body.
    /// - Throws: `APIError` for transport failures and non-2xx statuses, `CancellationError`.
    public func send(
        _ method: HTTPMethod, _ path: String, query: [URLQueryItem] = [], body: Data? = nil,
        precondition: Precondition? = nil, onHead: (@Sendable (HTTPResponseHead) -> Void)? = nil
    ) async throws -> Response<Data> {
        let url = try makeURL(path: path, query: query)
        return try await send(method, url: url, body: body, precondition: precondition, onHead: onHead)
    }

    /// Sends a request to an absolute URL the server handed out, such as a `Next-Page`.
    ///
    /// The URL must be on the base URL's origin and under its path: credentials are
    /// never sent anywhere else.
    public func send(
        _ method: HTTPMethod, url: String, body: Data? = nil, precondition: Precondition? = nil,
        onHead: (@Sendable (HTTPResponseHead) -> Void)? = nil
    ) async throws -> Response<Data> {
        guard url == configuration.baseURL || url.hasPrefix(configuration.baseURL + "/") || url.hasPrefix(configuration.baseURL + "?") else {
            throw APIError.invalidRequest("\(RedactedURL.string(url)) is not under the server's base URL \(RedactedURL.string(configuration.baseURL)); not following it")
        }
        var headers: HTTPHeaders = ["Accept": "application/json"]
        if body != nil { headers.add("Content-Type", "application/json") }
        if let credentials = configuration.credentials {
            headers.add("Authorization", credentials.authorizationHeaderValue)
        }
        if let precondition {
            headers.add(precondition.header.name, precondition.header.value)
        }
        let request = HTTPRequest(method: method, url: url, headers: headers, body: body, timeouts: configuration.timeouts)
        let response = try await transport.send(request, onHead: onHead)

        let notModifiedExpected: Bool
        if case .ifNoneMatch = precondition { notModifiedExpected = true } else { notModifiedExpected = false }
        guard (200...299).contains(response.status) || (response.status == 304 && notModifiedExpected) else {
            throw APIError(status: response.status, headers: response.headers, body: response.body, method: method, url: url)
        }
        return Response(value: response.body, status: response.status, headers: response.headers, url: RedactedURL.string(url))
    }

    // MARK: URLs

    /// `baseURL + path + ?query`, refusing paths that could escape the API root.
    func makeURL(path: String, query: [URLQueryItem]) throws(APIError) -> String {
        guard path.hasPrefix("/") else { throw .invalidRequest("path '\(path)' must start with '/'") }
        let segments = path.split(separator: "/", omittingEmptySubsequences: false)
        guard !segments.contains(where: { $0 == ".." || $0 == "." }),
              path.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "?") && $0 != UInt8(ascii: "#") })
        else { throw .invalidRequest("path '\(path)' has characters or segments a request path may not have") }
        var url = configuration.baseURL + path
        if !query.isEmpty { url += "?" + Self.queryString(query) }
        return url
    }

    /// `name=value&…`, each part percent-encoded.
    static func queryString(_ query: [URLQueryItem]) -> String {
        query.map { item in
            percentEncode(item.name) + (item.value.map { "=" + percentEncode($0) } ?? "")
        }.joined(separator: "&")
    }

    /// Percent-encodes everything but RFC 3986's unreserved characters (and `,`, which
    /// Kinto's `_sort=a,b` reads either way).
    static func percentEncode(_ text: String) -> String {
        var out = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."),
                 UInt8(ascii: "_"), UInt8(ascii: "~"), UInt8(ascii: ","):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                out += String(format: "%%%02X", byte)
            }
        }
        return out
    }
}
