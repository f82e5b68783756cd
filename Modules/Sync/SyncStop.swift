import Foundation
import Services
import Storage

// MARK: - SyncStop

/// Why a run stopped before doing everything. Each case is one class of failure
/// (`failureClass`), whose `FailureClass.stopOutcome` is the run's `RunOutcome`.
enum SyncStop: Error, Equatable {
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

    /// The stop an error makes, by its class (`FailureClass`); a stop already made is kept.
    static func from(_ error: any Error, now: Date) -> SyncStop {
        if let stop = error as? SyncStop { return stop }
        switch FailureClass(error) {
        case .transient, .permanent:
            return .temporary("\(error)")
        case .throttled(let wait):
            let seconds = HeaderValues.clamped(wait)
            let said = (error as? APIError)?.status.map { "answered \($0) with" } ?? "asked clients to wait:"
            return .backoff(
                until: now.addingTimeInterval(seconds), reason: "the server \(said) Retry-After: \(HeaderValues.wholeSeconds(seconds))")
        case .authentication:
            return .authentication("\(error)")
        case .fatal(.configuration):
            return .configuration("\(error)")
        case .fatal(.localStore):
            return .localStore("\(error)")
        case .cancelled:
            return .cancelled
        }
    }

    /// The class of failure this stop is (`FailureClass`): what decides its outcome.
    var failureClass: FailureClass {
        switch self {
        // NB: the wait is the stop's own `until`; the class only decides the outcome.
        case .backoff: .throttled(retryAfter: 0)
        case .temporary: .transient
        case .authentication: .authentication
        case .localStore: .fatal(.localStore)
        case .cancelled: .cancelled
        case .configuration: .fatal(.configuration)
        }
    }

    var outcome: RunOutcome { failureClass.stopOutcome }

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
