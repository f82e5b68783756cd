// MARK: - Exit statuses

extension RunOutcome {
    /// The sysexits-style status both apps exit with for this outcome, so cron and
    /// scripts see the same meaning from `shelf sync` and `shelf-sync`:
    /// 0 synced (or another run holds the lock), 1 conflicts or dead letters wait,
    /// 74 local store failure, 75 temporary failure or backoff in force,
    /// 77 credentials refused, 78 configuration error.
    public var exitStatus: Int32 {
        switch self {
        case .synced, .alreadyRunning: 0
        case .needsAttention: 1
        case .localStoreFailure: 74
        case .backoff, .temporaryFailure: 75
        case .authenticationFailed: 77
        case .configurationError: 78
        }
    }
}

// MARK: - Severity

extension RunOutcome {
    /// Orders outcomes so the worst one across accounts decides a worker run's exit
    /// status: what needs a person soonest ranks highest.
    public var severity: Int {
        switch self {
        case .synced, .alreadyRunning: 0
        case .needsAttention: 1
        case .backoff: 2
        case .temporaryFailure: 3
        case .localStoreFailure: 4
        case .authenticationFailed: 5
        case .configurationError: 6
        }
    }

    /// The worst of `outcomes` (`.synced` when there are none).
    public static func worst(_ outcomes: some Sequence<RunOutcome>) -> RunOutcome {
        outcomes.max { $0.severity < $1.severity } ?? .synced
    }
}

// MARK: - WorkerExitStatus

/// The worker's exit statuses and what each means, in one table: the help text, the
/// man page's EXIT STATUS, the README and the tests read it from here.
public enum WorkerExitStatus {
    public struct Row: Sendable, Equatable {
        public let code: Int32
        public let meaning: String
    }

    /// Status 64 (a wrong command line) is the parser's; the others are run outcomes.
    public static let usage: Int32 = 64

    public static let rows: [Row] = [
        Row(code: RunOutcome.synced.exitStatus,
            meaning: "all synced (also: another run holds the account's lock; the server offers no shop catalog, a warning line says so; stopped by SIGTERM/SIGINT)"),
        Row(code: RunOutcome.needsAttention.exitStatus,
            meaning: "finished, but conflicts or refused changes wait ('shelf conflicts', 'shelf failed'), or the server refuses one of the reader's own collections (the others synced)"),
        Row(code: usage, meaning: "usage error"),
        Row(code: RunOutcome.localStoreFailure.exitStatus,
            meaning: "a local store could not be read or written, or is damaged (the log names the file; 'shelf doctor')"),
        Row(code: RunOutcome.temporaryFailure.exitStatus,
            meaning: "temporary failure (network, server), the server's backoff still in force, or a read-only server holds local changes back"),
        Row(code: RunOutcome.authenticationFailed.exitStatus, meaning: "the server refused the credentials"),
        Row(code: RunOutcome.configurationError.exitStatus,
            meaning: "configuration error (no account, unsafe or missing password file, a server Shelf cannot use)"),
    ]
}
