import Domain
import Repositories
import Synchronization

// MARK: - ReportedRefresher

/// The account's refresher as the CLI uses it: a read never fails because the server
/// could not be reached. A failed refresh is written down for a one-line warning after
/// the output, and reported to the repository as "nothing changed", so it serves the
/// local store — the reader's data is there offline, even before a first sync.
///
/// Cancellation still goes through: a cancelled refresh must not look like a finished one.
struct ReportedRefresher: CollectionRefreshing {
    let inner: any CollectionRefreshing
    let log: RefreshLog
    /// `--verbose` notes.
    let note: @Sendable (String) -> Void

    func refresh(_ collection: CollectionName) async throws -> RefreshSummary {
        do {
            let summary = try await inner.refresh(collection)
            note("refreshed \(collection.rawValue) (\(summary.changedRecords) records changed)")
            return summary
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            log.record(collection, failure: error)
            note("could not refresh \(collection.rawValue): \(failureMessage(error))")
            return .unchanged
        }
    }
}

// MARK: - LocalOnlyRefresher

/// The refresher of the local-only store: there is no server, so the store is always
/// as current as it can be.
struct LocalOnlyRefresher: CollectionRefreshing {
    func refresh(_ collection: CollectionName) async throws -> RefreshSummary {
        .unchanged
    }
}

// MARK: - RefreshLog

/// The refreshes that failed during one command, in the order they failed.
final class RefreshLog: Sendable {
    private let failures = Mutex<[(collection: CollectionName, message: String)]>([])

    func record(_ collection: CollectionName, failure: any Error) {
        let message = failureMessage(failure)
        failures.withLock { $0.append((collection, message)) }
    }

    /// The collections whose refresh failed, in the order they failed.
    var collections: [CollectionName] {
        var seen: [CollectionName] = []
        for failure in failures.withLock({ $0 }) where !seen.contains(failure.collection) { seen.append(failure.collection) }
        return seen
    }

    /// One line per distinct reason: "could not refresh books, notes from the server
    /// (connection refused); showing the local data". Collections in `neverSynced` get
    /// "nothing from the server is local yet" instead of "showing the local data".
    func warnings(neverSynced: Set<CollectionName> = []) -> [String] {
        let all = failures.withLock { $0 }
        var reasons: [String] = []
        var collections: [String: [String]] = [:]
        for failure in all {
            if collections[failure.message] == nil { reasons.append(failure.message) }
            if collections[failure.message]?.contains(failure.collection.rawValue) != true {
                collections[failure.message, default: []].append(failure.collection.rawValue)
            }
        }
        return reasons.map { reason in
            let names = collections[reason, default: []]
            let nothingLocal = names.allSatisfy { name in CollectionName(rawValue: name).map(neverSynced.contains) ?? false }
            let consequence = nothingLocal
                ? "nothing from the server is local yet; try again, or run 'shelf sync'"
                : "showing the local data"
            return "could not refresh \(names.joined(separator: ", ")) from the server (\(reason)); \(consequence)"
        }
    }
}
