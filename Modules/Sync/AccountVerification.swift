import Domain
import Foundation
import Services
import Storage

// MARK: - AccountVerification

/// What `shelf account add` checks before it saves an account, and how it signs up:
/// the server is a Kinto speaking API v1 with the `default_bucket` plugin, and the
/// credentials stand for the user they name (`GET /v1/`); `--create` first signs the
/// user up with the accounts plugin (`PUT /v1/accounts/<user>`).
///
/// Errors name the server and the user, never the password.
public struct AccountVerification: Sendable {
    public let server: String
    public let credentials: Credentials
    private let transport: any HTTPTransport
    private let timeouts: Timeouts

    /// A person waits for the check: 10 s to connect, 20 s for each request.
    public static let defaultTimeouts = Timeouts(connect: .seconds(10), request: .seconds(20))

    /// - Parameters:
    ///   - server: the API root (`…/v1`), as `AccountConfig.normalizedServer` leaves it.
    ///   - caFile: a PEM file of CAs to trust instead of the system's; verification stays on.
    public init(
        server: String, credentials: Credentials, caFile: String? = nil, transport: (any HTTPTransport)? = nil,
        timeouts: Timeouts = Self.defaultTimeouts
    ) {
        self.server = server
        self.credentials = credentials
        self.transport = transport ?? CurlTransport.trusting(caFile: caFile)
        self.timeouts = timeouts
    }

    // MARK: Sign-up

    /// Signs the user up on a server with the accounts plugin. An account that already
    /// exists is left as it is (`.alreadyExists`); `verify()` then tells whether the
    /// password is its password.
    public func signUp() async throws(AccountVerificationError) -> KintoAccountsService.SignUp {
        let anonymous = APIClient(configuration: .init(baseURL: server, timeouts: timeouts), transport: transport)
        do {
            return try await KintoAccountsService(client: anonymous).signUp(user: credentials.user, password: credentials.password)
        } catch let error as APIError {
            switch error {
            case .notFound:
                throw .signUpUnavailable(server: server, reason: "it has no accounts plugin (HTTP 404)")
            case .httpStatus(let failure) where failure.status == 405:
                throw .signUpUnavailable(server: server, reason: "it refuses writes (HTTP 405: read-only, or no accounts plugin)")
            case .forbidden, .unauthorized:
                throw .signUpUnavailable(server: server, reason: "it does not let anyone sign up (HTTP \(error.status ?? 0))")
            default:
                throw Self.classify(error, server: server)
            }
        } catch {
            throw .unreachable(server: server, reason: "\(error)")
        }
    }

    // MARK: Verification

    /// Asks `GET /v1/` with the credentials and checks what it says.
    /// - Returns: the user id and the server's capabilities (kept with the account),
    ///   with warnings for the reader (a server that accepts any password).
    public func verify() async throws(AccountVerificationError) -> VerifiedServer {
        let client = APIClient(
            configuration: .init(baseURL: server, credentials: .init(user: credentials.user, password: credentials.password), timeouts: timeouts),
            transport: transport)
        let info: ServerInfo
        do {
            info = try await KintoServerInfoService(client: client).fetch()
        } catch let error as APIError {
            if case .decoding = error { throw .notKinto(server: server, reason: "its answer to GET /v1/ is not Kinto's") }
            if case .notFound = error { throw .notKinto(server: server, reason: "GET /v1/ answered 404") }
            if case .unauthorized = error { throw .credentialsRefused(user: credentials.user, server: server, then: .accountNotAdded) }
            throw Self.classify(error, server: server)
        } catch {
            throw .unreachable(server: server, reason: "\(error)")
        }
        guard info.isKinto else { throw .notKinto(server: server, reason: "it says it is '\(Self.printable(info.projectName))'") }
        guard info.capabilities.isCompatible else {
            throw .incompatibleVersion(server: server, version: Self.printable(info.capabilities.httpAPIVersion))
        }
        guard info.capabilities.hasDefaultBucket else { throw .noDefaultBucket(server: server) }
        guard let userID = info.userID else { throw .credentialsRefused(user: credentials.user, server: server, then: .accountNotAdded) }
        if userID.hasPrefix("account:"), userID != "account:\(credentials.user)" {
            throw .credentialsRefused(user: credentials.user, server: server, then: .accountNotAdded)
        }
        var warnings: [String] = []
        if info.acceptsAnyPassword {
            warnings.append("""
                \(RedactedURL.string(server)) accepts any password (plain Basic auth, no accounts plugin): \
                a mistyped password silently means another, empty account
                """)
        }
        if info.capabilities.readOnly {
            warnings.append("\(RedactedURL.string(server)) is read-only for now: syncs pull, and local changes wait until it accepts writes")
        }
        return VerifiedServer(userID: userID, capabilities: info.capabilities, warnings: warnings)
    }

    // MARK: Checks without the network

    /// A warning for an `http://` URL to a host other than this machine: the password
    /// travels in clear (Basic auth). Nil for `https://` and loopback.
    public static func cleartextWarning(server: String) -> String? {
        guard let url = URL(string: server), url.scheme?.lowercased() == "http", let host = url.host else { return nil }
        guard !isLoopback(host) else { return nil }
        return "\(RedactedURL.string(server)) is plain http:// to another machine: the password travels in clear; use https://"
    }

    /// 127.0.0.0/8, ::1 and localhost.
    static func isLoopback(_ host: String) -> Bool {
        let bare = host.trimmingCharacters(in: CharacterSet(charactersIn: "[]")).lowercased()
        if bare == "localhost" || bare.hasSuffix(".localhost") || bare == "::1" { return true }
        let octets = bare.split(separator: ".", omittingEmptySubsequences: false)
        return octets.count == 4 && octets.first == "127" && octets.allSatisfy { UInt8($0) != nil }
    }

    // MARK: Helpers

    private static func classify(_ error: APIError, server: String) -> AccountVerificationError {
        switch error {
        case .transport(let failure) where failure.kind == .tls:
            return .certificateNotVerified(server: server, reason: failure.message)
        case .transport(let failure):
            return .unreachable(server: server, reason: failure.description)
        case .unauthorized:
            return .credentialsRefused(user: "", server: server, then: .accountNotAdded)
        case .httpStatus(let failure) where (300...399).contains(failure.status):
            // Shelf follows no redirect (credentials go to the configured origin only).
            return .notKinto(server: server, reason: "it redirects elsewhere (HTTP \(failure.status)); give the URL it redirects to, often https://")
        default:
            return .unreachable(server: server, reason: error.description)
        }
    }

    /// Server text, bounded and without control characters, for a message.
    private static func printable(_ text: String) -> String {
        String(text.unicodeScalars.filter { $0.value >= 0x20 && $0.value != 0x7F }.prefix(80).map(Character.init))
    }
}

// MARK: - VerifiedServer

/// What a verified server said.
public struct VerifiedServer: Sendable, Equatable {
    /// `account:<user>` with the accounts plugin, `basicauth:<hmac>` with plain Basic auth.
    public let userID: String
    public let capabilities: ServerCapabilities
    /// Sentences for the reader, printed as warnings.
    public let warnings: [String]
}

// MARK: - AfterRefusal

/// What a refused password left undone, for the sentence that says so.
public enum AfterRefusal: Sendable, Equatable {
    /// `account add` saved nothing.
    case accountNotAdded
    /// `account add` without `--create` saved nothing; the user may not have signed up yet.
    case accountNotAddedMaybeNewUser
    /// `account password` kept the account as it was.
    case passwordNotChanged
}

// MARK: - AccountVerificationError

/// Why an account was not added. Each case names what to do; none holds the password.
public enum AccountVerificationError: Error, Equatable, Sendable, CustomStringConvertible {
    /// No answer: down, wrong host or port, DNS. `--no-verify` adds the account anyway.
    case unreachable(server: String, reason: String)
    /// The TLS certificate did not verify (unknown CA, another host's name, expired).
    case certificateNotVerified(server: String, reason: String)
    case notKinto(server: String, reason: String)
    case incompatibleVersion(server: String, version: String)
    case noDefaultBucket(server: String)
    /// The server did not accept the user and password; `then` says what that left undone.
    case credentialsRefused(user: String, server: String, then: AfterRefusal)
    /// `--create` on a server that offers no sign-up.
    case signUpUnavailable(server: String, reason: String)

    public var description: String {
        switch self {
        case .unreachable(let server, let reason):
            return "could not reach \(RedactedURL.string(server)) (\(reason)); check the URL, or add the account without checking with --no-verify"
        case .certificateNotVerified(let server, let reason):
            return """
                the TLS certificate of \(RedactedURL.string(server)) did not verify (\(reason)); \
                the account was not added. For a private CA give --ca-file PATH (or SHELF_CA_FILE)
                """
        case .notKinto(let server, let reason):
            return "\(RedactedURL.string(server)) is not a Kinto server: \(reason)"
        case .incompatibleVersion(let server, let version):
            return "\(RedactedURL.string(server)) speaks Kinto HTTP API \(version); Shelf needs 1.x"
        case .noDefaultBucket(let server):
            return """
                \(RedactedURL.string(server)) lacks the default_bucket plugin (kinto.plugins.default_bucket), \
                which gives each reader the private bucket Shelf keeps their data in; ask its operator to enable it
                """
        case .credentialsRefused(let user, let server, let then):
            let who = user.isEmpty ? "the credentials" : "the password for user '\(user)'"
            let refused = "\(RedactedURL.string(server)) did not accept \(who)"
            switch then {
            case .accountNotAdded:
                return "\(refused); the account was not added"
            case .accountNotAddedMaybeNewUser:
                let named = user.isEmpty ? "the user" : "'\(user)'"
                return "\(refused); the account was not added. If \(named) has no account on that server yet, add --create to sign up"
            case .passwordNotChanged:
                return "\(refused); the password was not changed"
            }
        case .signUpUnavailable(let server, let reason):
            return "cannot sign up on \(RedactedURL.string(server)): \(reason)"
        }
    }

    /// The sysexits-style status: 77 credentials refused, 75 unreachable (try again),
    /// 69 no sign-up offered, 78 anything about the server's configuration or trust.
    public var exitStatus: ExitCode {
        switch self {
        case .credentialsRefused: .noPermission
        case .unreachable: .temporaryFailure
        case .signUpUnavailable: .unavailable
        case .certificateNotVerified, .notKinto, .incompatibleVersion, .noDefaultBucket: .configuration
        }
    }
}
