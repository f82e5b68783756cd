import Foundation
import Services
import Storage

// MARK: - FailureClass

/// What kind of failure an error or a server's answer is: the one place Shelf sorts them.
///
/// Everything the engine does about a failure follows from its class alone, in the
/// tables below: whether the request is tried again within the run (`isRetriedWithinRun`),
/// what a change's answer in a push batch does to that change (`batchVerdict`), and how a
/// run that the failure stops ends (`stopOutcome`, whose `RunOutcome.exitStatus` is the
/// status `shelf sync` and the worker exit with). `FailureClassTests` walks both tables.
public enum FailureClass: Sendable, Hashable {
    /// Worth trying again soon, unchanged: no answer came (a timeout, a refused or lost
    /// connection, a name that did not resolve), or 408, 429 or 5xx without a wait the
    /// server named.
    case transient
    /// The server asked clients to wait (429 or 503 with `Retry-After`): not asked again,
    /// not even once, before the wait is over. `retryAfter` is in seconds, as
    /// `HeaderValues.retryAfter` read it (clamped to a day).
    case throttled(retryAfter: TimeInterval)
    /// 401: the server refused the credentials.
    case authentication
    /// Refused for good, for this request alone (one change, one collection): any other
    /// status outside 2xx, a body that does not read, a response past Shelf's limit, a
    /// request Shelf would not send. Sending it again unchanged cannot help.
    case permanent
    /// The run cannot go on, and running again will not help until a person acts.
    case fatal(Fatal)
    /// The run's task was cancelled (a read's budget ran out, the process is stopping):
    /// not a failure of the server or the account.
    case cancelled

    /// What a person has to mend before a run can succeed.
    public enum Fatal: Sendable, Hashable {
        /// The configuration: a TLS certificate that does not verify against the trusted
        /// CAs (a private CA not given, another host's certificate, an attack).
        case configuration
        /// The local store could not be read or written.
        case localStore
    }
}

// MARK: - Sorting

extension FailureClass {
    /// Sorts any error the engine meets: the server's (`APIError`), the store's
    /// (`StorageError`), cancellation, and a run's own stop (`SyncStop`). Anything else
    /// (a page that would not end, a record that cannot be sealed) is `.permanent`.
    public init(_ error: any Error) {
        switch error {
        case let api as APIError:
            self.init(api)
        case let stop as SyncStop:
            self = stop.failureClass
        case is StorageError:
            self = .fatal(.localStore)
        case is CancellationError:
            self = .cancelled
        default:
            self = .permanent
        }
    }

    /// Sorts a server's error: a transport failure by its kind, an HTTP answer by its status.
    public init(_ error: APIError) {
        switch error {
        case .transport(let failure):
            switch failure.kind {
            case .tls: self = .fatal(.configuration)
            case .tooLarge: self = .permanent
            case .timeout, .connectionRefused, .hostNotFound, .connectionLost, .other: self = .transient
            }
        case .unauthorized(let failure), .forbidden(let failure), .notFound(let failure), .preconditionFailed(let failure, _),
             .httpStatus(let failure):
            self.init(status: failure.status, retryAfter: failure.retryAfter)
        case .decoding, .invalidRequest:
            self = .permanent
        }
    }

    /// Sorts an HTTP status outside 2xx, of a whole answer or of one answer in a batch.
    /// - Parameter retryAfter: the answer's `Retry-After`, in seconds, when it had one.
    public init(status: Int, retryAfter: TimeInterval?) {
        if let retryAfter, status == 429 || status == 503 {
            self = .throttled(retryAfter: retryAfter)
            return
        }
        switch status {
        case 401: self = .authentication
        case 408, 429, 500...599: self = .transient
        default: self = .permanent
        }
    }
}

// MARK: - What the engine does

extension FailureClass {
    /// Whether a request that failed so is sent again within the run, with backoff and
    /// jitter (`RetryPolicy`). A throttled server is not: its wait is stored instead.
    public var isRetriedWithinRun: Bool { self == .transient }

    /// Whether time alone fixes it: the next run (or a later attempt) may succeed unchanged.
    public var isTemporary: Bool {
        switch self {
        case .transient, .throttled: true
        case .authentication, .permanent, .fatal, .cancelled: false
        }
    }

    /// What a pushed change's answer of this class does to the change. (A 412 and a 404
    /// are no failures there but answers to merge: `PushAnswer.read` reads them first.)
    public var batchVerdict: BatchVerdict {
        switch self {
        case .transient, .throttled: .keepInFlight
        case .permanent: .deadLetter
        case .authentication, .fatal, .cancelled: .stopRun
        }
    }

    /// How a run that this failure stops ends.
    public var stopOutcome: RunOutcome {
        switch self {
        case .transient, .cancelled: .temporaryFailure
        // NB: a whole-run request refused for good (a page that does not read, a 400 on the
        // batch) may be answered otherwise next time: the next run tries again.
        case .permanent: .temporaryFailure
        case .throttled: .backoff
        case .authentication: .authenticationFailed
        case .fatal(.configuration): .configurationError
        case .fatal(.localStore): .localStoreFailure
        }
    }

    /// What a failed answer in a push batch does to its change.
    public enum BatchVerdict: Sendable, Hashable {
        /// It stays in flight and goes again, as it was, in a later round.
        case keepInFlight
        /// Refused for good: parked as a dead letter with the server's reason, so the rest
        /// of the outbox goes through (`shelf failed`).
        case deadLetter
        /// The run stops (the batch's other answers are stored first).
        case stopRun
    }
}

// MARK: - The server's errors

extension APIError {
    /// Time alone fixes it: `FailureClass.isTemporary`, transient or throttled.
    var isTransient: Bool { FailureClass(self).isTemporary }
}
