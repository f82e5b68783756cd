import Domain
import Foundation

// MARK: - SyncRefresher

/// The sync engine behind the repositories' refresh port: a refresh is a pull of one
/// collection, merged with waiting local edits, under the account's run lock.
///
/// When another run holds the lock — the cron worker, another `shelf`, or this
/// process' refresh of another collection (a `cart` needs the cart and the catalog) —
/// the refresh waits for it, up to `lockWait`, then pulls its own collection: the run
/// before it has just brought the store up to date, so that pull costs one round trip.
/// Past `lockWait` it reports nothing changed, and the repository serves the store,
/// which the other run is bringing up to date. A cancelled wait ends at once.
public struct SyncRefresher: CollectionRefreshing {
    public let engine: SyncEngine
    /// The account's lock file; nil when nothing else can run on this store (tests).
    public let lockFile: URL?
    /// How long a refresh waits for a run holding the lock. Default: 2 s.
    public let lockWait: Duration

    /// Told once, with the holder's pid when known, when a refresh finds the lock held and
    /// starts waiting: what `shelf -v` says, and how a test knows the wait began.
    public let onLockBusy: (@Sendable (Int32?) -> Void)?
    /// Why nothing may be asked of the server (the account's password cannot be read):
    /// every refresh throws it at once.
    public let refusal: (any Error)?

    public init(
        engine: SyncEngine, lockFile: URL?, lockWait: Duration = .seconds(2), onLockBusy: (@Sendable (Int32?) -> Void)? = nil,
        refusal: (any Error)? = nil
    ) {
        self.onLockBusy = onLockBusy
        self.refusal = refusal
        self.engine = engine
        self.lockFile = lockFile
        self.lockWait = lockWait
    }

    public func refresh(_ collection: CollectionName) async throws -> RefreshSummary {
        if let refusal { throw refusal }
        var lock: RunLock?
        if let lockFile {
            guard let held = try await waitForLock(lockFile) else { return .unchanged }
            lock = held
        }
        defer { lock?.release() }
        let report = await engine.with {
            $0.collections = [collection]
            $0.pushes = false
        }.run()
        if let reason = report.unavailable[collection.rawValue] {
            // The server has no such collection for this account (the optional catalog):
            // the reader is told why the list stays empty.
            throw SyncRunError(outcome: report.outcome, message: reason)
        }
        switch report.outcome {
        case .synced, .needsAttention:
            let counts = report.collections[collection.rawValue] ?? CollectionReport()
            return RefreshSummary(changedRecords: counts.pulled + counts.merged)
        default:
            throw SyncRunError(outcome: report.outcome, message: report.message)
        }
    }
}

extension SyncRefresher {
    /// Takes the lock, polling while another run holds it, for at most `lockWait`.
    /// NB: `flock` locks belong to open file descriptions, so a second refresh in this
    /// process is refused like another process would be: one loop covers both.
    private func waitForLock(_ lockFile: URL) async throws -> RunLock? {
        let deadline = ContinuousClock.now + lockWait
        var told = false
        while true {
            if let held = try RunLock.acquire(at: lockFile) { return held }
            if !told {
                told = true
                onLockBusy?(RunLock.holder(of: lockFile))
            }
            guard ContinuousClock.now < deadline else { return nil }
            try await Task.sleep(for: .milliseconds(20))
        }
    }
}

// MARK: - SyncRunError

/// A run that did not finish, as an error for callers that need one.
public struct SyncRunError: Error, Equatable, Sendable, CustomStringConvertible {
    public let outcome: RunOutcome
    public let message: String

    public init(outcome: RunOutcome, message: String) {
        self.outcome = outcome
        self.message = message
    }

    public var description: String { message }
}
