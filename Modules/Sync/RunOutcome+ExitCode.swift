import Domain

// MARK: - Exit statuses

extension RunOutcome {
    /// The sysexits-style status both apps exit with for this outcome, so cron and
    /// scripts see the same meaning from `shelf sync` and `shelf-sync`:
    /// 0 synced (or a worker's tick rested after idle runs), 1 conflicts or dead letters
    /// wait, 74 local store failure, 75 temporary failure, backoff in force, or another run
    /// holds the lock (this one did nothing), 77 credentials refused, 78 configuration error.
    public var exitStatus: ExitCode {
        switch self {
        case .synced, .rested: .success
        case .needsAttention: .failure
        case .localStoreFailure: .ioError
        case .backoff, .temporaryFailure, .alreadyRunning: .temporaryFailure
        case .authenticationFailed: .noPermission
        case .configurationError: .configuration
        }
    }
}
