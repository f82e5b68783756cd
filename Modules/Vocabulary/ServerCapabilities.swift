// MARK: - ServerCapabilities

/// What a Kinto server offers, as Shelf needs to know it before syncing: read from
/// `GET /v1/` once per account, kept with the account, read again when a request says
/// it changed (a batch refused as too large, a write refused by a read-only server).
///
/// A value with no I/O so that Services (which reads it), Storage (which keeps it) and
/// Sync (which acts on it) share one shape.
public struct ServerCapabilities: Sendable, Equatable, Codable {
    /// `http_api_version`, e.g. "1.23".
    public var httpAPIVersion: String
    /// `settings.batch_max_requests`: the most sub-requests one `POST /batch` may carry.
    public var batchMaxRequests: Int?
    /// `settings.readonly`: the server refuses every write (405) and serves reads.
    public var readOnly: Bool
    /// The names under `capabilities` (`default_bucket`, `accounts`, …).
    public var capabilities: [String]
    /// The most records the server returns per page (`paginate_by`), when Shelf has seen
    /// it cut a page short; Kinto does not publish it.
    public var paginateBy: Int?
    /// `user.bucket`: the id of the bucket Kinto's `default` alias stands for, for these
    /// credentials (the default-bucket plugin). Requests that name it skip the plugin's
    /// work (an attempt to create the bucket and the collection, and a second pass through
    /// the server's request handling): an idle run costs the server a third less.
    public var userBucket: String?

    public init(
        httpAPIVersion: String, batchMaxRequests: Int? = nil, readOnly: Bool = false,
        capabilities: [String] = [], paginateBy: Int? = nil, userBucket: String? = nil
    ) {
        self.httpAPIVersion = httpAPIVersion
        self.batchMaxRequests = batchMaxRequests
        self.readOnly = readOnly
        self.capabilities = capabilities
        self.paginateBy = paginateBy
        self.userBucket = userBucket
    }

    enum CodingKeys: String, CodingKey {
        case httpAPIVersion = "http_api_version"
        case batchMaxRequests = "batch_max_requests"
        case readOnly = "readonly"
        case capabilities
        case paginateBy = "paginate_by"
        case userBucket = "user_bucket"
    }

    // MARK: Rules

    /// The major API version Shelf speaks (Kinto HTTP API v1).
    public static let supportedMajorVersion = 1

    /// Whether `httpAPIVersion` is a 1.x version.
    public var isCompatible: Bool {
        guard let major = httpAPIVersion.split(separator: ".").first.flatMap({ Int($0) }) else { return false }
        return major == Self.supportedMajorVersion
    }

    /// Shelf keeps each reader's data in the `default` bucket, an alias only the
    /// `kinto.plugins.default_bucket` plugin provides.
    public var hasDefaultBucket: Bool { capabilities.contains("default_bucket") }

    /// The accounts plugin checks passwords; without it a Basic-auth server accepts any.
    public var hasAccounts: Bool { capabilities.contains("accounts") }

    /// `kinto.plugins.history`: the server records every change of a bucket in its history.
    public var hasBucketHistory: Bool { capabilities.contains("history") }

    /// Sub-requests per batch: the server's limit, within 1…100 (a limit beyond 100 is
    /// not worth one request's size; nonsense is ignored), else `fallback`.
    public func batchSize(fallback: Int) -> Int {
        guard let limit = batchMaxRequests, limit >= 1 else { return fallback }
        return min(limit, 100)
    }

    /// Records asked for per page: `wanted`, but no more than the server serves.
    public func pageSize(wanted: Int) -> Int {
        guard let limit = paginateBy, limit >= 1 else { return wanted }
        return min(wanted, limit)
    }
}
