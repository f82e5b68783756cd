import Foundation
import Services
import Synchronization

// MARK: - FakeHTTPTransport

/// An `HTTPTransport` that answers from a closure and remembers every request, for
/// tests of the API client and the Kinto services without a network.
public final class FakeHTTPTransport: HTTPTransport {
    public typealias Responder = @Sendable (HTTPRequest) async throws -> HTTPResponse

    private let responder: Responder
    private let recorded = Mutex<[HTTPRequest]>([])

    public init(_ responder: @escaping Responder) {
        self.responder = responder
    }

    /// Answers every request with the same status, headers and body.
    public convenience init(status: Int, headers: HTTPHeaders = [:], body: Data = Data()) {
        self.init { request in HTTPResponse(status: status, headers: headers, body: body, url: request.url) }
    }

    /// The requests sent so far, in order.
    public var requests: [HTTPRequest] { recorded.withLock { $0 } }

    public func send(_ request: HTTPRequest, onHead: (@Sendable (HTTPResponseHead) -> Void)?) async throws -> HTTPResponse {
        recorded.withLock { $0.append(request) }
        let response = try await responder(request)
        onHead?(response.head)
        return response
    }
}
