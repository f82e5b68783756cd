import Domain
import Foundation
import Services
import Storage
import Sync
import TestSupport
import Testing

/// How `shelf account add` reads a server's `GET /v1/` answer, server by server.
@Suite("Account verification: what the server's root says")
struct AccountVerificationTests {
    private static let server = "http://127.0.0.1:9/v1"

    private static func verify(status: Int = 200, headers: HTTPHeaders = ["Content-Type": "application/json"], body: String) async
        -> Result<VerifiedServer, AccountVerificationError>
    {
        let transport = FakeHTTPTransport(status: status, headers: headers, body: Data(body.utf8))
        let verification = AccountVerification(
            server: server, credentials: Credentials(user: "ana", password: "secret-pw"), transport: transport)
        do {
            return .success(try await verification.verify())
        } catch {
            return .failure(error)
        }
    }

    private static func root(version: String = "1.23", capabilities: String = #""default_bucket":{},"accounts":{}"#, user: String? = "account:ana") -> String {
        let userPart = user.map { #","user":{"id":"\#($0)"}"# } ?? ""
        return #"{"project_name":"kinto","http_api_version":"\#(version)","settings":{"batch_max_requests":25,"readonly":false},"capabilities":{\#(capabilities)}\#(userPart)}"#
    }

    @Test func aKintoWithAccountsAndTheRightPasswordIsVerified() async throws {
        let verified = try await Self.verify(body: Self.root()).get()
        #expect(verified.userID == "account:ana")
        #expect(verified.capabilities.batchMaxRequests == 25)
        #expect(verified.warnings.isEmpty)
    }

    @Test func aServerThatAcceptsAnyPasswordIsVerifiedWithAWarning() async throws {
        let verified = try await Self.verify(body: Self.root(capabilities: #""default_bucket":{}"#, user: "basicauth:5f2c")).get()
        #expect(verified.warnings.count == 1)
        #expect(verified.warnings.first?.contains("accepts any password") == true)
    }

    @Test(arguments: [
        (root(user: nil), 77, "did not accept the password for user 'ana'"),
        (root(user: "account:someone-else"), 77, "did not accept the password"),
        (root(version: "2.0"), 78, "speaks Kinto HTTP API 2.0; Shelf needs 1.x"),
        (root(capabilities: #""accounts":{}"#), 78, "lacks the default_bucket plugin"),
        (#"{"project_name":"couchdb","http_api_version":"1.0"}"#, 78, "is not a Kinto server: it says it is 'couchdb'"),
        ("<html>Welcome to nginx</html>", 78, "is not a Kinto server"),
    ])
    func serversShelfCannotUseAreRefusedClearly(body: String, exit: Int32, message: String) async {
        guard case .failure(let error) = await Self.verify(body: body) else {
            Issue.record("verified \(body)")
            return
        }
        #expect(error.exitStatus.rawValue == exit)
        #expect(error.description.contains(message), "\(error)")
        #expect(!error.description.contains("secret-pw"))
    }

    @Test func aRedirectIsNotFollowedAndSaysWhereToLook() async {
        guard case .failure(let error) = await Self.verify(status: 301, headers: ["Location": "https://kinto.example.org/v1/"], body: "") else {
            Issue.record("a redirect was verified")
            return
        }
        #expect(error.exitStatus == .configuration)
        #expect(error.description.contains("it redirects elsewhere (HTTP 301)"), "\(error)")
    }
}
