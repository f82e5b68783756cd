import Domain
import Foundation

// MARK: - CollectionReport

/// What one run did to one collection.
public struct CollectionReport: Sendable, Equatable, Codable {
    public var pulled = 0
    public var deletedLocally = 0
    public var pushed = 0
    public var merged = 0
    public var conflicts = 0
    public var deadLetters = 0
    /// Records whose local values the policy (server wins) dropped for the server's.
    public var discardedLocal = 0
    /// Why the server was found to have lost data this store had synced, when it was.
    public var serverForgot: String?
    /// Local records the server no longer had, queued to be uploaded again.
    public var reuploaded = 0
    /// Records over `SyncOptions.maximumRecordBytes`: skipped, never stored.
    public var skipped = 0
    /// Pulled records stamped behind the cursor that the store did not hold: written by
    /// a transaction that committed after a later one (`CommitWindow`), or found by
    /// reconciliation.
    public var late = 0
    /// This device's acknowledged updates that another device's concurrent write replaced
    /// on the server, queued again and merged (`OverwrittenWrites`).
    public var overwritten = 0
    /// Records from the server not applied because they did not open: altered, moved,
    /// sealed with an unknown key (`WireSealing`).
    public var refused = 0
    /// Versions an encrypted account's device refused as put back by the server: older
    /// than the one held, another of the same number, a removed record brought back, or
    /// sealed under a retired key (`IntegrityGate`). This device's version goes back.
    public var rolledBack = 0
    /// Records in the clear refused on an encrypted account (`IntegrityGate`).
    public var inTheClear = 0
    /// Records the server deleted without the reader (a tombstone no key vouches for):
    /// kept here, for `shelf encryption put-back`.
    public var deletedByServer = 0
    /// When the run compared the collection with the server (`Reconciliation`): what it found.
    public var reconciliation: ReconciliationReport?
    public var durationMilliseconds = 0

    public init() {}

    enum CodingKeys: String, CodingKey {
        case pulled, pushed, merged, conflicts, reuploaded, skipped, late, overwritten, refused, reconciliation
        case deletedLocally = "deleted_locally"
        case deadLetters = "dead_letters"
        case discardedLocal = "discarded_local"
        case rolledBack = "rolled_back"
        case inTheClear = "in_the_clear"
        case deletedByServer = "deleted_by_server"
        case serverForgot = "server_forgot"
        case durationMilliseconds = "duration_ms"
    }
}

// MARK: - RunOutcome

/// How a run ended, from best to worst; the worker turns it into its exit status.
public enum RunOutcome: String, Sendable, Equatable, Codable {
    /// Everything pulled and pushed.
    case synced
    /// Finished, but conflicts or dead letters wait for a person.
    case needsAttention = "needs_attention"
    /// The server asked to wait (Backoff / Retry-After) and the deadline has not passed.
    case backoff
    /// The network or server failed after the retries this run allows.
    case temporaryFailure = "temporary_failure"
    /// The server refused the credentials.
    case authenticationFailed = "authentication_failed"
    /// The local store could not be read or written.
    case localStoreFailure = "local_store_failure"
    /// The account's configuration is unusable: no account, a server Shelf cannot use,
    /// a TLS certificate that does not verify against the trusted CAs.
    case configurationError = "configuration_error"
    /// Another run holds the account's lock: this one did nothing (exit 75).
    case alreadyRunning = "already_running"
    /// The worker rested this tick after idle runs (`IdleRest`): no request, nothing
    /// synced, nothing wrong (exit 0).
    case rested
}

// MARK: - RunReport

/// The machine-readable account of one run (`shelf-sync --report FILE`).
public struct RunReport: Sendable, Equatable, Codable {
    public var account: String
    public var outcome: RunOutcome
    /// One sentence for people: why the run ended as it did.
    public var message: String
    public var startedAt: Date
    public var durationMilliseconds: Int
    public var requests: Int
    /// Until when the server asked clients to wait, when it did.
    public var backoffUntil: Date?
    public var collections: [String: CollectionReport]
    /// Collections the server refused for good this run (403/404), by name, with why.
    /// An optional one (the shared catalog) alone leaves the run `synced`.
    public var unavailable: [String: String]
    /// The server's capabilities looked different from the ones the run started with
    /// (a batch refused as too large, a write refused as on a read-only server): read
    /// them again before the next run.
    public var capabilitiesChanged: Bool
    /// The most records the server put in one page when more followed, when that was
    /// fewer than asked for: its `paginate_by`, which Kinto does not publish.
    public var serverPageLimit: Int?
    /// What this run did with an encrypted account's keyring, when it did something:
    /// learnt a newer version, refused the server's (and put one back), upgraded it.
    public var keyring: String?
    /// When the account last synced completely on this device (this run, when it did):
    /// what `shelf status` calls the last sync. Nil before the first complete sync.
    public var lastSuccess: Date?

    public init(
        account: String, outcome: RunOutcome, message: String, startedAt: Date,
        durationMilliseconds: Int = 0, requests: Int = 0, backoffUntil: Date? = nil,
        collections: [String: CollectionReport] = [:], unavailable: [String: String] = [:],
        capabilitiesChanged: Bool = false
    ) {
        self.account = account
        self.outcome = outcome
        self.message = message
        self.startedAt = startedAt
        self.durationMilliseconds = durationMilliseconds
        self.requests = requests
        self.backoffUntil = backoffUntil
        self.collections = collections
        self.unavailable = unavailable
        self.capabilitiesChanged = capabilitiesChanged
    }

    public var totalConflicts: Int { collections.values.reduce(0) { $0 + $1.conflicts } }
    public var totalDeadLetters: Int { collections.values.reduce(0) { $0 + $1.deadLetters } }
    /// Records whose local values a server-wins policy dropped in this run.
    public var totalDiscardedLocal: Int { collections.values.reduce(0) { $0 + $1.discardedLocal } }

    enum CodingKeys: String, CodingKey {
        case account, outcome, message, requests, collections, unavailable
        case capabilitiesChanged = "capabilities_changed"
        case serverPageLimit = "server_page_limit"
        case keyring
        case startedAt = "started_at"
        case durationMilliseconds = "duration_ms"
        case backoffUntil = "backoff_until"
        case lastSuccess = "last_success"
    }
}
