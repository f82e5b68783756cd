import Domain
import Foundation
import Services

// MARK: - SyncOptions

/// What a run syncs and how.
public struct SyncOptions: Sendable, Equatable {
    /// The collections to sync, in this order. The catalog (`products`) is pulled only.
    public var collections: [CollectionName]
    public var policy: ConflictPolicy
    public var retry: RetryPolicy
    /// Records per page (`_limit`). Kinto serves at most 10,000 by default; large pages
    /// mean few round trips on a first sync.
    public var pageSize: Int
    /// Local changes per `POST /batch` (Kinto's `batch_max_requests`).
    public var batchSize: Int
    /// Whether to pull first; off only to push what is queued right now.
    public var pulls: Bool
    /// Whether to push the outbox after pulling; a repository's refresh only pulls.
    public var pushes: Bool
    /// Run even though the server asked to wait (`shelf sync --ignore-backoff`): the
    /// stored deadline and `Backoff` headers met during the run do not stop it. A new
    /// `Backoff` is still stored for the runs after this one.
    public var ignoresBackoff: Bool
    /// Pages one run pulls at most, over all collections. A server whose pages never
    /// end (a `Next-Page` cycle the other guards miss) stops here; the cursor is
    /// durable, so the next run continues. Default 1,000: ten million records at the
    /// default page size, far beyond any library.
    public var maximumPages: Int
    /// A pulled record longer than this (its JSON bytes) is skipped with a warning,
    /// counted in the report and never stored. Default 1 MiB: a book, note or task is
    /// a few hundred bytes; nothing Shelf reads needs a megabyte.
    public var maximumRecordBytes: Int
    /// Wall time one run may take, network waits and retries included; nil for no
    /// limit. When it runs out the run stops (temporary failure, exit 75) and the next
    /// run continues from the durable cursor.
    public var budget: Duration?
    /// Collections a server may lack without the run failing: the shared catalog. When
    /// the server refuses one (403/404), the run reports it and still ends `synced`.
    public var optionalCollections: Set<CollectionName> = [.products]
    /// The server is in read-only mode (`settings.readonly`): pulls work, pushes wait,
    /// and no `POST /batch` is sent (a read-only Kinto refuses every POST).
    public var serverIsReadOnly = false
    /// Push batches waiting for their answers at once, at most; never two writing to
    /// the same collection (see `SyncRun.pushAll`). Kinto publishes no limit of its
    /// own; 4 is the number of requests its default server (waitress, `threads = 4`)
    /// works on at a time — a fifth would only wait in its queue.
    public var maximumBatchesInFlight = 4
    /// How far a pull reaches back behind its cursor for records whose write committed
    /// after later ones (`CommitWindow`).
    public var commitWindow = CommitWindow.standard
    /// A collection's records are compared with the server's (`Reconciliation`) when this
    /// long has passed since the last complete comparison; nil never, unless
    /// `reconcilesNow` or one is under way. Default a day.
    public var reconciliationInterval: TimeInterval? = 86_400
    /// How a reconciliation cuts the collection's stamps into ranges (`ReconciliationPass`).
    public var reconciliation = ReconciliationShape()
    /// Reconcile every collection in this run (`--reconcile`), due or not.
    public var reconcilesNow = false
    /// Rest after idle runs (`shelf-sync --rest-when-idle`): nil asks the server at every
    /// run, as `shelf sync` always does.
    public var idleRest: IdleRest?
    /// Reconcile every collection in this run by its whole list of ids and versions, as a
    /// store that never reconciled does (`--reconcile-whole`): the slow check, ~75 bytes a
    /// record, that does not rely on the server's counts.
    public var reconcilesWhole = false
    /// The account's keyring file (`ShelfPaths.keyFile`): where a run of an encrypted
    /// account finds its keys (`WireSealing`). Nil: this engine holds no key, and a store
    /// that knows its account is encrypted leaves the reader's collections alone.
    public var keyFile: URL?

    /// The id of the user's bucket (`ServerCapabilities.userBucket`), which an idle run's
    /// batch names instead of Kinto's `default` alias; nil when unknown.
    public var userBucket: String?
    /// The server keeps a history of the user's bucket (`kinto.plugins.history`), which an
    /// idle run reads instead of every collection (`HistoryGate`).
    public var readsBucketHistory = false

    /// The options with the server's capabilities applied: batches as large as it
    /// allows, pages no larger than it serves, read-only mode, the user's bucket.
    public func adapted(to capabilities: ServerCapabilities) -> SyncOptions {
        var options = self
        options.userBucket = capabilities.userBucket
        options.readsBucketHistory = capabilities.hasBucketHistory
        options.batchSize = capabilities.batchSize(fallback: batchSize)
        options.pageSize = capabilities.pageSize(wanted: pageSize)
        options.serverIsReadOnly = capabilities.readOnly
        return options
    }

    public init(
        collections: [CollectionName] = CollectionName.allCases, policy: ConflictPolicy = .manual,
        retry: RetryPolicy = RetryPolicy(), pageSize: Int = 10_000, batchSize: Int = 25,
        pulls: Bool = true, pushes: Bool = true, ignoresBackoff: Bool = false,
        maximumPages: Int = 1_000, maximumRecordBytes: Int = 1 << 20, budget: Duration? = nil
    ) {
        self.collections = collections
        self.policy = policy
        self.retry = retry
        self.pageSize = max(1, pageSize)
        self.batchSize = max(1, batchSize)
        self.pulls = pulls
        self.pushes = pushes
        self.ignoresBackoff = ignoresBackoff
        self.maximumPages = max(1, maximumPages)
        self.maximumRecordBytes = max(1, maximumRecordBytes)
        self.budget = budget
    }
}

// MARK: - Maximum backoff

extension SyncOptions {
    /// The longest a server can make an account wait (`Backoff`, `Retry-After`): a day.
    public static let maximumBackoff: TimeInterval = HeaderValues.maximumWait
}
