import Foundation
import Services
import Storage

// MARK: - SyncStop

/// Why a run stopped before doing everything: each case maps to one `RunOutcome`.
enum SyncStop: Error {
    /// The server asked to wait until then.
    case backoff(until: Date, reason: String)
    /// Still failing after the retries this run allows.
    case temporary(String)
    /// The server refused the credentials.
    case authentication(String)
    /// The local store failed.
    case localStore(String)
    /// The run's task was cancelled (a read's time budget ran out, the process is
    /// stopping): not a failure of the server or the account, so nothing is recorded.
    case cancelled
    /// Retrying cannot help: the server's TLS certificate does not verify against the
    /// trusted CAs (a private CA not given, another host's certificate, an attack).
    case configuration(String)

    /// Sorts an error the way the engine acts on it.
    static func from(_ error: any Error, now: Date) -> SyncStop {
        switch error {
        case let stop as SyncStop:
            return stop
        case let api as APIError:
            if case .unauthorized = api { return .authentication(api.description) }
            if api.transportFailure?.kind == .tls { return .configuration(api.description) }
            if let failure = api.httpFailure, let wait = failure.retryAfter, failure.status == 503 || failure.status == 429 {
                let seconds = HeaderValues.clamped(wait)
                return .backoff(
                    until: now.addingTimeInterval(seconds),
                    reason: "the server answered \(failure.status) with Retry-After: \(HeaderValues.wholeSeconds(seconds))")
            }
            return .temporary(api.description)
        case let storage as StorageError:
            return .localStore("\(storage)")
        case is CancellationError:
            return .cancelled
        default:
            return .temporary("\(error)")
        }
    }

    var outcome: RunOutcome {
        switch self {
        case .backoff: .backoff
        case .temporary, .cancelled: .temporaryFailure
        case .authentication: .authenticationFailed
        case .localStore: .localStoreFailure
        case .configuration: .configurationError
        }
    }

    /// The cause (with the request that failed, its URL without userinfo), then a hint
    /// that says what happens next or what the reader can do.
    var message: String {
        switch self {
        case .backoff(let until, let reason):
            "\(reason); waiting until \(until.formatted(.iso8601)) (--ignore-backoff syncs anyway)"
        case .temporary(let text):
            "\(text); local changes stay queued and the next sync tries again"
        case .authentication(let text):
            "\(text); if the password changed, give the new one ('shelf account password', or SHELF_PASSWORD for an account from the environment)"
        case .localStore(let text):
            text.contains("shelf doctor") ? text : "\(text); 'shelf doctor' checks the store"
        case .configuration(let text):
            text
        case .cancelled:
            "the run was cancelled"
        }
    }
}
