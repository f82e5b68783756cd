import Foundation
import Services
import Testing
import TestSupport

@Suite("Secrets stay out of descriptions")
struct SecretRedactionTests {
    static let password = "correct-horse-battery-staple"
    static let credentials = APIClient.Credentials(user: "ana", password: password)
    static var basicToken: String { Data("ana:\(password)".utf8).base64EncodedString() }

    func expectNoSecret(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(!text.contains(Self.password), "password leaked: \(text)", sourceLocation: sourceLocation)
        #expect(!text.contains(Self.basicToken), "Authorization leaked: \(text)", sourceLocation: sourceLocation)
    }

    @Test func credentialsAndConfigurationRedactThePassword() {
        let configuration = APIClient.Configuration(baseURL: "http://127.0.0.1:8888/v1", credentials: Self.credentials)
        for text in [
            "\(Self.credentials)", String(reflecting: Self.credentials), "\(configuration)", String(reflecting: configuration),
            dumped(Self.credentials), dumped(configuration),
        ] {
            expectNoSecret(text)
            #expect(text.contains("ana"))
        }
    }

    @Test func requestsRedactTheAuthorizationHeader() async throws {
        let transport = FakeHTTPTransport(status: 200)
        let client = APIClient(configuration: .init(baseURL: "http://127.0.0.1:8888/v1", credentials: Self.credentials), transport: transport)
        _ = try await client.send(.get, "/")
        let request = try #require(transport.requests.first)
        #expect(request.headers["Authorization"] == "Basic \(Self.basicToken)")  // it is sent…
        expectNoSecret("\(request)")  // …but never printed
        expectNoSecret("\(request.headers)")
        expectNoSecret(dumped(request.headers))
        expectNoSecret(dumped(request))
        #expect("\(request.headers)".contains("Authorization: <redacted>"))
    }

    @Test func errorsNeverHoldThePassword() async throws {
        // A base URL typed with credentials in it is shown without them.
        let base = "http://ana:\(Self.password)@127.0.0.1:8888/v1"
        for name in ["unauthorized-401", "forbidden-403", "precondition-failed-412", "not-found-404"] {
            let recorded = try RecordedResponses.response(name)
            let transport = FakeHTTPTransport(status: recorded.status, headers: recorded.headers, body: recorded.body)
            let client = APIClient(configuration: .init(baseURL: base, credentials: Self.credentials), transport: transport)
            let error = await #expect(throws: APIError.self) { try await client.send(.get, "/buckets/default") }
            let apiError = try #require(error)
            expectNoSecret("\(apiError)")
            expectNoSecret(String(reflecting: apiError))
            expectNoSecret(apiError.localizedDescription)
            #expect("\(apiError)".contains("http://127.0.0.1:8888/v1/buckets/default"))
        }
        let transportError = APIError.transport(TransportFailure(kind: .timeout, method: .get, url: base, message: "Operation timed out"))
        expectNoSecret("\(transportError)")
    }

    @Test func errorDescriptionsAreSentencesAboutTheFailure() async throws {
        let recorded = try RecordedResponses.response("unauthorized-401")
        let transport = FakeHTTPTransport(status: recorded.status, headers: recorded.headers, body: recorded.body)
        let client = APIClient(configuration: .init(baseURL: "http://127.0.0.1:8888/v1"), transport: transport)
        let error = try #require(await #expect(throws: APIError.self) { try await client.send(.get, "/recorded") })
        #expect("\(error)" == "GET http://127.0.0.1:8888/v1/recorded: authentication failed: the server did not accept the credentials, or none were given (HTTP 401 Unauthorized: Please authenticate yourself to use this endpoint.; Kinto error 104: no credentials, or credentials the server does not accept)")
        let refused = APIError.transport(TransportFailure(kind: .connectionRefused, method: .get, url: "http://127.0.0.1:9/v1/", code: 7, message: "Failed to connect"))
        #expect("\(refused)" == "GET http://127.0.0.1:9/v1/: connection refused: is the server running? (Failed to connect)")
    }

    private func dumped(_ value: some Any) -> String {
        var text = ""
        dump(value, to: &text)
        return text
    }
}
