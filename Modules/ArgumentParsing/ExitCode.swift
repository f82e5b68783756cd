// MARK: - ExitCode

/// Exit statuses in the sysexits(3) tradition, shared by `shelf` and `shelf-sync` so
/// scripts and cron can tell outcomes apart.
public enum ExitCode: Int32, Sendable, CaseIterable {
    /// Everything worked.
    case success = 0
    /// Finished, but something needs attention: not found, conflicts, dead letters.
    case failure = 1
    /// The command line was wrong (EX_USAGE).
    case usage = 64
    /// The input data was wrong (EX_DATAERR): e.g. a title that breaks a rule.
    case dataError = 65
    /// An input file does not exist or cannot be read (EX_NOINPUT).
    case noInput = 66
    /// A required service is unavailable (EX_UNAVAILABLE).
    case unavailable = 69
    /// An internal error (EX_SOFTWARE).
    case software = 70
    /// An output file cannot be created (EX_CANTCREAT).
    case cannotCreate = 73
    /// Reading or writing a local file failed (EX_IOERR).
    case ioError = 74
    /// Temporary failure; try again later (EX_TEMPFAIL): network down, server backoff.
    case temporaryFailure = 75
    /// Permission denied (EX_NOPERM): the server refused the credentials.
    case noPermission = 77
    /// Configuration error (EX_CONFIG): no account, unreadable or unsafe secrets file.
    case configuration = 78
}
