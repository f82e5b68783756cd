import Foundation
import Vocabulary

// MARK: - ServerInfo

/// What `GET /v1/` says: which server this is, what it offers, and — when the request
/// carried credentials the server accepted — who the user is.
public struct ServerInfo: Sendable, Equatable {
    /// `project_name`: "kinto" for a Kinto server.
    public var projectName: String
    public var projectVersion: String?
    public var capabilities: ServerCapabilities
    /// `user.id` (`account:<name>` with the accounts plugin, `basicauth:<hmac>` with plain
    /// Basic auth); nil when the server did not accept the credentials, or none were sent.
    public var userID: String?

    public init(projectName: String, projectVersion: String? = nil, capabilities: ServerCapabilities, userID: String? = nil) {
        self.projectName = projectName
        self.projectVersion = projectVersion
        self.capabilities = capabilities
        self.userID = userID
    }

    /// Whether the server is a Kinto (or a server that says it is one).
    public var isKinto: Bool { projectName.lowercased() == "kinto" }

    /// Plain Basic auth: every user:password is accepted and becomes its own account,
    /// so a mistyped password silently means another, empty account.
    public var acceptsAnyPassword: Bool { userID?.hasPrefix("basicauth:") ?? false }
}

// MARK: - ServerInfoDTO

/// The root document's wire shape; only the fields Shelf reads.
struct ServerInfoDTO: Decodable, Sendable {
    struct Settings: Decodable, Sendable {
        var batchMaxRequests: Int?
        var readonly: Bool?
        enum CodingKeys: String, CodingKey {
            case batchMaxRequests = "batch_max_requests"
            case readonly
        }
    }

    struct User: Decodable, Sendable {
        var id: String
        var bucket: String?
    }

    /// A value whose content Shelf does not read (a capability's description).
    struct Ignored: Decodable, Sendable {
        init(from decoder: any Decoder) throws {}
    }

    var projectName: String
    var projectVersion: String?
    var httpAPIVersion: String
    var settings: Settings?
    var capabilities: [String: Ignored]?
    var user: User?

    enum CodingKeys: String, CodingKey {
        case projectName = "project_name"
        case projectVersion = "project_version"
        case httpAPIVersion = "http_api_version"
        case settings, capabilities, user
    }

    /// The document as Shelf keeps it: every text bounded and printable, since it ends
    /// up in messages, logs and the capabilities cache.
    var info: ServerInfo {
        ServerInfo(
            projectName: Self.bounded(projectName), projectVersion: projectVersion.map { Self.bounded($0) },
            capabilities: ServerCapabilities(
                httpAPIVersion: Self.bounded(httpAPIVersion), batchMaxRequests: settings?.batchMaxRequests,
                readOnly: settings?.readonly ?? false,
                capabilities: (capabilities ?? [:]).keys.sorted().prefix(64).map { Self.bounded($0) },
                userBucket: user?.bucket.flatMap { try? KintoCollectionPath(bucket: $0, collection: "records").bucket }),
            userID: user.map { Self.bounded($0.id, limit: 256) })
    }

    /// At most `limit` characters, control characters dropped.
    static func bounded(_ text: String, limit: Int = 64) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.lazy.filter { $0.value >= 0x20 && $0.value != 0x7F }.prefix(limit)))
    }
}

// MARK: - KintoServerInfoService

/// `GET /v1/` — the server's "hello": version, public settings, capabilities, and the
/// user the credentials stand for. It never answers 401: wrong credentials show as no
/// `user`.
public struct KintoServerInfoService: Sendable {
    private let client: APIClient

    public init(client: APIClient) {
        self.client = client
    }

    /// - Throws: `APIError` — `.decoding` when the answer is not a Kinto root document
    ///   (another kind of server at that URL).
    public func fetch() async throws -> ServerInfo {
        try await client.get("/", as: ServerInfoDTO.self).value.info
    }
}
