import Sync
import Vocabulary

// MARK: - Severity

extension RunOutcome {
    /// Orders outcomes so the worst one across accounts decides a worker run's exit
    /// status: what needs a person soonest ranks highest.
    public var severity: Int {
        switch self {
        // NB: a rested account did nothing wrong, but a round where another synced says synced.
        case .rested: 0
        case .synced: 1
        case .needsAttention: 2
        case .alreadyRunning, .backoff: 3
        case .temporaryFailure: 4
        case .localStoreFailure: 5
        case .authenticationFailed: 6
        case .configurationError: 7
        }
    }

    /// The worst of `outcomes` (`.synced` when there are none).
    public static func worst(_ outcomes: some Sequence<RunOutcome>) -> RunOutcome {
        outcomes.max { $0.severity < $1.severity } ?? .synced
    }
}

// MARK: - WorkerExitStatus

/// The statuses the worker exits with, in the order its help, its man page's EXIT STATUS
/// and Apps/shelf-sync/README.md list them; what each means is `ExitCode.meaning`.
public enum WorkerExitStatus {
    /// Status 64 (a wrong command line) is the parser's; the others are run outcomes.
    public static let codes: [ExitCode] = [
        RunOutcome.synced.exitStatus,
        RunOutcome.needsAttention.exitStatus,
        .usage,
        RunOutcome.localStoreFailure.exitStatus,
        RunOutcome.temporaryFailure.exitStatus,
        RunOutcome.authenticationFailed.exitStatus,
        RunOutcome.configurationError.exitStatus,
    ]
}
