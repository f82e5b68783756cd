import Domain
import Foundation
import Repositories

// MARK: - SyncRefresher

/// The sync engine behind the repositories' refresh port: a refresh is a pull of one
/// collection, merged with waiting local edits, under the account's run lock.
///
/// When another run (the cron worker, another `shelf`) holds the lock, the refresh
/// does not wait and does not pull twice: it reports nothing changed, and the
/// repository serves the store, which that run is bringing up to date.
public struct SyncRefresher: CollectionRefreshing {
    public let engine: SyncEngine
    /// The account's lock file; nil when nothing else can run on this store (tests).
    public let lockFile: URL?

    public init(engine: SyncEngine, lockFile: URL?) {
        self.engine = engine
        self.lockFile = lockFile
    }

    public func refresh(_ collection: CollectionName) async throws -> RefreshSummary {
        var lock: RunLock?
        if let lockFile {
            guard let held = try RunLock.acquire(at: lockFile) else { return .unchanged }
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
