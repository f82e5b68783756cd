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
