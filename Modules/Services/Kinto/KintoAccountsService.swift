import Foundation
import Vocabulary

// MARK: - KintoAccountsService

/// Kinto's accounts plugin: sign-up (`PUT /v1/accounts/<user>`), where the server
/// checks passwords itself instead of accepting any Basic-auth pair.
public struct KintoAccountsService: Sendable {
    private let client: APIClient

    /// - Parameter client: a client *without* credentials: a sign-up is anonymous.
    public init(client: APIClient) {
        self.client = client
    }

    /// What a sign-up did.
    public enum SignUp: Sendable, Equatable {
        case created
        /// The account exists already (`If-None-Match: *` failed): nothing was changed.
        case alreadyExists
    }

    /// Creates the account `user` with `password`, never overwriting an existing one.
    /// - Throws: `APIError` — `.notFound` when the server has no accounts plugin,
    ///   `.forbidden` / `.unauthorized` when it does not let anyone sign up.
    public func signUp(user: String, password: String) async throws -> SignUp {
        let path: String
        do {
            path = "/accounts/" + (try RecordID.validate(user))
        } catch {
            throw APIError.invalidRequest("user name '\(user)' has characters a Kinto account id may not have (letters, digits, '-', '_')")
        }
        let body = try JSONSerialization.data(withJSONObject: ["data": ["password": password]])
        do {
            _ = try await client.send(.put, path, body: body, precondition: .ifNoneMatchAny)
            return .created
        } catch APIError.preconditionFailed {
            return .alreadyExists
        }
    }
}
