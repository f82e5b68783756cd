import Domain
import Foundation

// MARK: - AccountConfig

/// What an account file holds: the server, the user, and where the password is.
///
/// The password is either a path to a secrets file (`password_file`, preferred: the
/// secret stays where the operator put it) or the password itself, which is why the
/// account file is written 0600 and refused when group or others can read it.
public struct AccountConfig: Sendable, Equatable, Codable, CustomStringConvertible {
    /// The API root, always ending in `/v1`.
    public let server: String
    public let user: String
    public let passwordFile: String?
    public let password: String?
    /// A PEM file of CAs to trust for this server instead of the system's (a private CA).
    public let caFile: String?

    enum CodingKeys: String, CodingKey {
        case server, user
        case passwordFile = "password_file"
        case password
        case caFile = "ca_file"
    }

    public init(
        server: String, user: String, passwordFile: String? = nil, password: String? = nil, caFile: String? = nil
    ) throws(AccountConfigError) {
        self.server = try Self.normalizedServer(server)
        self.user = user
        self.passwordFile = passwordFile
        self.password = password
        self.caFile = caFile
    }

    public var description: String {
        "\(user) @ \(server) (password \(passwordFile.map { "from \($0)" } ?? (password == nil ? "missing" : "stored")))"
    }

    /// `http://host:8888`, `http://host:8888/`, `http://host:8888/v1/` → `http://host:8888/v1`.
    ///
    /// A URL with `user:password@` is refused (the password goes in a file or the
    /// environment, never in a URL that ends up in shell history, `ps` and logs), and
    /// neither error repeats what the URL hid: both carry it redacted.
    public static func normalizedServer(_ raw: String) throws(AccountConfigError) -> String {
        var text = raw.trimmingCharacters(in: .whitespaces)
        while text.hasSuffix("/") { text.removeLast() }
        if URLRedaction.hasUserInfo(text) { throw .credentialsInServerURL(URLRedaction.redacted(text)) }
        guard text.utf8.count <= 2_048, let url = URL(string: text),
              let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
              let host = url.host, !host.isEmpty,
              url.query == nil, url.fragment == nil, url.user == nil, url.password == nil
        else { throw .invalidServer(URLRedaction.redacted(raw)) }
        return text.hasSuffix("/v1") ? text : text + "/v1"
    }
}

// MARK: - ResolvedAccount

/// An account ready to sync: its name (which names its store), server, user and where
/// its password is. The password is read only when a request needs it (`credentials()`),
/// so local work never depends on it.
public struct ResolvedAccount: Sendable, Equatable, CustomStringConvertible {
    public enum Source: String, Sendable { case accountFile = "account file", environment }

    public let name: AccountName
    public let server: String
    public let user: String
    /// Where the password is; read by `credentials()`.
    public let password: PasswordSource
    public let source: Source
    /// The private CA to trust for `server` (account file's `ca_file`, or `SHELF_CA_FILE`).
    public let caFile: String?

    public init(name: AccountName, server: String, user: String, password: PasswordSource, source: Source, caFile: String? = nil) {
        self.name = name
        self.server = server
        self.user = user
        self.password = password
        self.source = source
        self.caFile = caFile
    }

    /// An account whose password is already known (tests, a password just given).
    public init(name: AccountName, server: String, credentials: Credentials, source: Source, caFile: String? = nil) {
        let origin: PasswordSource.Origin = source == .environment ? .environment : .accountFile(name)
        self.init(
            name: name, server: server, user: credentials.user, password: .given(credentials.password, origin: origin),
            source: source, caFile: caFile)
    }

    /// The user and the password, read now from wherever the password is.
    /// - Throws: `AccountConfigError.passwordUnavailable`, which says what is wrong and how to mend it.
    public func credentials() throws(AccountConfigError) -> Credentials {
        Credentials(user: user, password: try password.read())
    }

    /// The same account trusting another CA file (`SHELF_CA_FILE` given for one run).
    public func trusting(caFile: String?) -> ResolvedAccount {
        ResolvedAccount(name: name, server: server, user: user, password: password, source: source, caFile: caFile ?? self.caFile)
    }

    public var description: String { "\(name) (\(user) @ \(server), from \(source.rawValue))" }
}
