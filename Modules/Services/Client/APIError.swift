import Foundation
import Records
import Vocabulary

// MARK: - APIError

/// Everything that can go wrong talking to the server, as one taxonomy.
///
/// Each case carries what a person needs to act on it (the URL, the server's own error
/// body, the failing coding path) and what the sync engine sorts it by (the transport
/// failure's kind, the status, `Retry-After`): the engine's `FailureClass` decides which
/// failures are transient, throttled, authentication, permanent or fatal. No description
/// ever holds a password or an `Authorization` header.
///
/// Cancellation is not an `APIError`: a cancelled request throws `CancellationError`.
public enum APIError: Error, Sendable {
    /// No HTTP response arrived: timeout, connection refused, DNS, TLS, connection lost.
    case transport(TransportFailure)
    /// 401: the server wants (other) credentials. Authentication, not permission.
    case unauthorized(HTTPFailure)
    /// 403: the credentials are fine but may not do this (e.g. writing to the catalog).
    case forbidden(HTTPFailure)
    /// 404: no such bucket, collection or record.
    case notFound(HTTPFailure)
    /// 412: `If-Match` / `If-None-Match` failed. `existing` is the record as the server
    /// has it now (Kinto's `details.existing`); nil when it was deleted.
    case preconditionFailed(HTTPFailure, existing: RawRecord?)
    /// Any other status outside 2xx (and outside 304 where that is expected).
    case httpStatus(HTTPFailure)
    /// The response arrived but its body is not what the request promised.
    case decoding(DecodingFailure)
    /// Shelf refused to send the request (bad path or id, a next-page URL on another host…).
    case invalidRequest(String)

    /// The HTTP status, for the cases that have one.
    public var status: Int? {
        switch self {
        case .unauthorized(let f), .forbidden(let f), .notFound(let f), .httpStatus(let f): f.status
        case .preconditionFailed(let f, _): f.status
        case .transport, .decoding, .invalidRequest: nil
        }
    }

    /// The failure's HTTP details, for the cases that have them.
    public var httpFailure: HTTPFailure? {
        switch self {
        case .unauthorized(let f), .forbidden(let f), .notFound(let f), .httpStatus(let f): f
        case .preconditionFailed(let f, _): f
        case .transport, .decoding, .invalidRequest: nil
        }
    }

    /// The failure's transport details, for `.transport`.
    public var transportFailure: TransportFailure? {
        if case .transport(let failure) = self { return failure }
        return nil
    }

    /// The failure's decoding details, for `.decoding`.
    public var decodingFailure: DecodingFailure? {
        if case .decoding(let failure) = self { return failure }
        return nil
    }

    /// For `.preconditionFailed`: the record as the server has it now. Nil when it was
    /// deleted — and for every other case.
    public var existingRecord: RawRecord? {
        if case .preconditionFailed(_, let existing) = self { return existing }
        return nil
    }
}

extension APIError: CustomStringConvertible, LocalizedError {
    public var description: String {
        switch self {
        case .transport(let failure):
            return failure.description
        case .unauthorized(let failure):
            return failure.describe("authentication failed: the server did not accept the credentials, or none were given")
        case .forbidden(let failure):
            return failure.describe("permission denied: this account may not do that")
        case .notFound(let failure):
            return failure.describe("not found")
        case .preconditionFailed(let failure, let existing):
            let now = existing.map { "the server's copy is now at \($0.lastModified)" }
                ?? "the server no longer has the record"
            return failure.describe("the record changed on the server since it was read (\(now))")
        case .httpStatus(let failure):
            return failure.describe("the server answered with an error")
        case .decoding(let failure):
            return failure.description
        case .invalidRequest(let reason):
            return "invalid request: \(reason)"
        }
    }

    public var errorDescription: String? { description }
}

// MARK: - TransportFailure

/// A request that got no HTTP response.
public struct TransportFailure: Sendable, Hashable, CustomStringConvertible {
    public enum Kind: String, Sendable, Hashable {
        case timeout
        case connectionRefused
        /// The host name did not resolve.
        case hostNotFound
        /// TLS handshake or certificate verification failed.
        case tls
        /// The connection broke mid-exchange, or closed without an answer.
        case connectionLost
        /// The response (after content decoding) or its headers passed Shelf's limit
        /// (`CurlTransport.Configuration.maximumResponseBytes`); the transfer was aborted.
        case tooLarge
        case other
    }

    public var kind: Kind
    public var method: HTTPMethod
    /// The request's URL, without any credentials.
    public var url: String
    /// libcurl's error code (`CURLcode`), 0 when the failure did not come from libcurl.
    public var code: Int
    /// libcurl's own explanation, e.g. "Failed to connect to 127.0.0.1 port 9 after 0 ms: Couldn't connect to server".
    public var message: String

    public init(kind: Kind, method: HTTPMethod, url: String, code: Int = 0, message: String) {
        self.kind = kind
        self.method = method
        self.url = RedactedURL.string(url)
        self.code = code
        self.message = message
    }

    public var description: String {
        let what = switch kind {
        case .timeout: "timed out"
        case .connectionRefused: "connection refused: is the server running?"
        case .hostNotFound: "host not found"
        case .tls: "TLS failed: the server's certificate did not verify (an unknown CA, an expired certificate or another host's name), or the handshake failed; for a private CA give --ca-file PATH or SHELF_CA_FILE"
        case .connectionLost: "connection lost"
        case .tooLarge: "the response is larger than Shelf accepts"
        case .other: "network error"
        }
        return "\(method.rawValue) \(url): \(what) (\(message))"
    }
}

// MARK: - HTTPFailure

/// An HTTP answer with an error status, with Kinto's error body when it sent one.
public struct HTTPFailure: Sendable, Hashable {
    public var method: HTTPMethod
    /// The request's URL, without any credentials.
    public var url: String
    public var status: Int
    /// Kinto's JSON error (`code`, `errno`, `error`, `message`, `details`), when the body was one.
    public var serverError: KintoErrorBody?
    /// `Retry-After`, in seconds (Kinto sends it with 503 when its storage is down).
    public var retryAfter: TimeInterval?
    /// `Backoff`, in seconds: the server asks clients to slow down.
    public var backoff: TimeInterval?

    public init(
        method: HTTPMethod, url: String, status: Int, serverError: KintoErrorBody? = nil,
        retryAfter: TimeInterval? = nil, backoff: TimeInterval? = nil
    ) {
        self.method = method
        self.url = RedactedURL.string(url)
        self.status = status
        self.serverError = serverError
        self.retryAfter = retryAfter
        self.backoff = backoff
    }

    /// `PUT http://…/records/b1: <summary> (HTTP 412 Precondition Failed: Resource was modified meanwhile; Kinto error 114: the record changed meanwhile)`
    func describe(_ summary: String) -> String {
        var detail = "HTTP \(status)"
        if let error = serverError?.error { detail += " \(error)" }
        if let message = serverError?.message { detail += ": \(message)" }
        if let errno = serverError?.errno { detail += "; Kinto error \(errno)\(KintoErrorBody.meaning(ofErrno: errno).map { ": \($0)" } ?? "")" }
        if let retryAfter { detail += ", retry after \(HeaderValues.wholeSeconds(retryAfter)) s" }
        return "\(method.rawValue) \(url): \(summary) (\(detail))"
    }
}

// MARK: - DecodingFailure

/// A body that is not what the request promised: malformed JSON, a missing or mistyped
/// field, a record that breaks a domain rule, a page that repeats an id.
public struct DecodingFailure: Sendable, Equatable, CustomStringConvertible {
    /// The URL whose body failed, when it came from a request.
    public var url: String?
    /// Where in the body: `data[3].title`, `data[1] (id book-7).finished`, or "" for the whole body.
    public var path: String
    /// The byte offset into the body, when the JSON itself was malformed.
    public var offset: Int?
    public var message: String
    /// The domain rule the value broke, when that is what failed.
    public var domainError: DomainError?

    public init(url: String? = nil, path: String = "", offset: Int? = nil, message: String, domainError: DomainError? = nil) {
        self.url = url.map(RedactedURL.string)
        self.path = path
        self.offset = offset
        self.message = message
        self.domainError = domainError
    }

    public var description: String {
        var text = "could not read the server's response"
        if let url { text += " from \(url)" }
        text += ": "
        if !path.isEmpty { text += "\(path): " }
        text += message
        if let offset { text += " (at byte \(offset))" }
        return text
    }

    func with(url: String) -> DecodingFailure {
        var copy = self
        copy.url = RedactedURL.string(url)
        return copy
    }
}
