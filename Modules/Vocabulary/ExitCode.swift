// MARK: - ExitCode

/// Exit statuses in the sysexits(3) tradition, shared by `shelf` and `shelf-sync` so
/// scripts and cron can tell outcomes apart.
///
/// Each status says what it means once, in `meaning`: `shelf --help`, `shelf-sync --help`,
/// both man pages' EXIT STATUS and the tables in docs/cli.md and Apps/shelf-sync/README.md
/// are written from it (a test compares the documents with it).
public enum ExitCode: Int32, Sendable, CaseIterable, Codable {
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

// MARK: - Meaning

extension ExitCode {
    /// What the status tells a reader or a script, for every table of exit codes.
    public var meaning: String {
        switch self {
        case .success:
            "success (also: the server offers no shop catalog, a warning says so; --every stopped by SIGTERM/SIGINT; a tick rested after idle runs, --rest-when-idle)"
        case .failure:
            "not found, or finished with conflicts, failed changes, or a collection the server refuses (the others synced); a book others refer to (book rm); an account with unsynced changes (account rm without --yes); an editor that failed"
        case .usage:
            "usage error (a wrong command line; an id prefix shorter than 4 characters or one several records share — the candidates are listed; an undo that needs a yes with no terminal to ask on and no --yes)"
        case .dataError:
            "invalid data (e.g. an empty title, a daily goal out of range, a malformed import file, an empty note body, an argument that is not UTF-8, a new passphrase weaker than the rule)"
        case .noInput:
            "an input file cannot be read (import); a link to a record that is not there (open)"
        case .unavailable:
            "no server set up for a command that needs one; no sign-up on the server; an editor that cannot start"
        case .software:
            "an internal error"
        case .cannotCreate:
            "an output file cannot be written (export --output)"
        case .ioError:
            "the local store cannot be read or written, or is damaged (the message names the file; 'shelf doctor')"
        case .temporaryFailure:
            "temporary failure: network, server, the run's time budget, the server asked to wait (backoff), a read-only server holds local changes back, or another sync of the account is running (this one did nothing)"
        case .noPermission:
            "the server refused the credentials"
        case .configuration:
            "configuration error (no or unknown account, a missing or unsafe password file when the server is asked, while local work goes on without it; a server Shelf cannot use, a TLS certificate that does not verify; a write on an encrypted account this device holds no key for)"
        }
    }
}
