import Foundation

// MARK: - Response

/// A successful response: the decoded value next to the status and headers it came with.
public struct Response<Value> {
    public var value: Value
    public var status: Int
    public var headers: HTTPHeaders
    /// The URL that was requested (never with credentials).
    public var url: String

    public init(value: Value, status: Int, headers: HTTPHeaders, url: String) {
        self.value = value
        self.status = status
        self.headers = headers
        self.url = url
    }

    public func map<T>(_ transform: (Value) throws -> T) rethrows -> Response<T> {
        Response<T>(value: try transform(value), status: status, headers: headers, url: url)
    }

    // MARK: Headers Shelf acts on

    /// `ETag`: for Kinto, the timestamp of the record or of the collection's newest change.
    public var etag: ETag? { headers["ETag"].flatMap(ETag.init(headerValue:)) }

    /// `Next-Page`: the absolute URL of the next page of a list; nil on the last page.
    public var nextPage: String? {
        guard let value = headers["Next-Page"]?.trimmingCharacters(in: .whitespaces), !value.isEmpty else { return nil }
        return value
    }

    /// `Backoff`, in seconds: the server asks clients to wait that long before syncing again.
    public var backoff: TimeInterval? { HeaderValues.backoff(headers["Backoff"]) }

    /// `Retry-After`, in seconds from now.
    public var retryAfter: TimeInterval? { HeaderValues.retryAfter(headers["Retry-After"]) }

    /// 304: the resource has not changed since the `If-None-Match` version.
    public var isNotModified: Bool { status == 304 }
}

extension Response: Sendable where Value: Sendable {}
