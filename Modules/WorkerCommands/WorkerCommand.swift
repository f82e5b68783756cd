import ArgumentParsing
import Sync
import Vocabulary

// MARK: - The worker's command line

/// `shelf-sync`: its options, help and exit codes, declared once; the worker's
/// settings are these properties, typed (`ShelfSyncWorker` runs them).
struct WorkerCommand: ProgramCommand {
    static let version = "0.1.0"
    static let relatedManPages = ["shelf(1)"]

    static let configuration = CommandConfiguration(
        name: "shelf-sync",
        abstract: "Sync Shelf accounts with their Kinto server, for cron and systemd timers.",
        discussion: """
        Runs one sync and exits, or with --every keeps syncing at that interval until
        SIGTERM or SIGINT (the step in progress is finished or abandoned whole, a last line
        is logged, and the status is 0). One run per account at a time: an overlapping run
        (another cron tick, 'shelf sync') does nothing and exits 75 with one line saying so. With
        --all-accounts an account that cannot be used is reported on its own and the others
        sync. Before pushing, the store is checked after a run that did not finish and at
        least daily; a damaged store is never pushed from (status 74).
        Logs go to stderr (or --log-file), one line per event; an idle run logs one line.
        Under systemd (JOURNAL_STREAM) lines carry journald priorities. Passwords and
        Authorization headers never appear in them.
        """,
        examples: [
            Example("One run of the current account", "shelf-sync"),
            Example("Every account every five minutes, JSON lines in a log file",
                    "shelf-sync --all-accounts --every 5m --log-format json --log-file /var/log/shelf/sync.log"),
        ],
        sections: [
            .exitCodes(
                WorkerExitStatus.codes,
                lines: ["", "With --all-accounts the status is the worst of the accounts'."]),
            .environment([
                .init("SHELF_SERVER, SHELF_USER, SHELF_PASSWORD or SHELF_PASSWORD_FILE, SHELF_ACCOUNT",
                      "an account from the environment (the password file mode 600) instead of an account file written by 'shelf account add'"),
                .init("CREDENTIALS_DIRECTORY", "under systemd, the credential 'password' ($CREDENTIALS_DIRECTORY/password)"),
                .init("SHELF_CA_FILE", "a PEM file of CAs to trust for an https:// server (a private CA)"),
                .init("SHELF_MAX_RESPONSE_MB, SHELF_MAX_RECORD_KB", "raise or lower the size limits of a server's responses and records"),
                .init("SHELF_STALL_SECONDS", "how long a server may send nothing before a request is given up (1-600, default 10)"),
                .init("XDG_CONFIG_HOME, XDG_DATA_HOME", "where accounts and stores live"),
                .init("JOURNAL_STREAM", "set by systemd: log lines carry journald priorities"),
            ]),
            .files([
                .init("$XDG_CONFIG_HOME/shelf/accounts/NAME.json", "an account (~/.config when XDG_CONFIG_HOME is not set)"),
                .init("$XDG_DATA_HOME/shelf/NAME.sqlite", "the account's local store (~/.local/share when XDG_DATA_HOME is not set)"),
            ]),
            HelpSection(title: "CRON", lines: [
                #"*/5 * * * * /usr/local/bin/shelf-sync --all-accounts --log-file "$HOME/.local/state/shelf/sync.log" --report "$HOME/.local/state/shelf/sync-report.json""#,
            ]),
        ])

    @Option(value: "name", help: "Sync this account (default: the environment's or the current one).")
    var account: String?
    @Flag(help: "Sync every configured account, two at a time; each fails alone.")
    var allAccounts = false
    @Option(value: "duration", help: "Keep running; sync every DURATION (e.g. 90s, 5m, 1h).")
    var every: Duration?
    @Option(value: "text|json", help: "Log lines as text (default) or one JSON object each.")
    var logFormat = WorkerLog.Format.text
    @Option(value: "level", help: "Log error, warning, info (default) or debug lines and above.")
    var logLevel = LogLevel.info
    @Option(value: "file", help: "Append log lines to FILE (0600, rotated at 1 MiB) instead of stderr.")
    var logFile: String?
    @Option(value: "file", help: "Write a JSON report of each run to FILE (0600, atomically).")
    var report: String?
    @Option(value: "policy", help: "Settle a field changed on both sides: manual (default), server-wins, client-wins.")
    var policy = ConflictPolicy.manual
    @Option(
        value: "n", help: "Records per page when pulling (1...10000, default 10000).",
        expecting: "a whole number from 1 to 10000", transform: { Int($0).flatMap { (1...10_000).contains($0) ? $0 : nil } })
    var pageSize: Int?
    @Option(
        value: "duration", help: "Give up a run after DURATION in all, waits and retries included (default 60s).",
        expecting: "a duration such as 30s, 2m or 1h", transform: { DurationParsing.parse($0) })
    var budget: Duration?
    @Flag(help: "Sync even though the server asked to wait (Backoff / Retry-After).")
    var ignoreBackoff = false
    @Flag(help: "Also compare every collection with the server, by counts of ranges of versions, and pull what differs (done daily anyway).")
    var reconcile = false
    @Flag(help: "Also compare every collection's whole list of ids and versions with the server's, and pull what differs (slow; --reconcile trusts the server's counts).")
    var reconcileWhole = false
    @Option(
        value: "duration",
        help: "How far a pull reaches back for writes the server committed after later ones (default 60s; see the README).",
        expecting: "a duration such as 30s, 2m or 1h", transform: { DurationParsing.parse($0) })
    var commitWindow: Duration?
    @Option(
        value: "n",
        help: "After idle runs, ask the server every 2nd, then 4th, up to every Nth tick; a local change is sent at once (default 1: every tick).",
        expecting: "a whole number from 1 to 64", transform: { Int($0).flatMap { IdleRest.accepted.contains($0) ? $0 : nil } })
    var restWhenIdle: Int?
    @Flag(help: "Show the version.", standalone: true)
    var version = false
    @Flag(help: "Print the man page, shelf-sync(1), written from these declarations.", standalone: true, hidden: true)
    var generateMan = false

    var asksForVersion: Bool { version }
    var asksForManPage: Bool { generateMan }

    func validate() throws(ParseError) {
        if account != nil && allAccounts { throw .invalid("Use either '--account' or '--all-accounts', not both") }
    }

    /// A run's budget unless `--budget` says otherwise: a cron worker against a server
    /// that never answers exits 75 within a minute, long before the next tick.
    static let defaultBudget: Duration = .seconds(60)

    /// The engine's options this command line asks for.
    var syncOptions: SyncOptions {
        var options = SyncOptions(
            policy: policy, pageSize: pageSize ?? SyncOptions().pageSize, ignoresBackoff: ignoreBackoff,
            budget: budget ?? Self.defaultBudget)
        options.reconcilesNow = reconcile
        options.reconcilesWhole = reconcileWhole
        if let commitWindow { options.commitWindow = CommitWindow(width: commitWindow) }
        options.idleRest = restWhenIdle.flatMap(IdleRest.init(longest:))
        return options
    }
}

// MARK: - Values on the command line

extension ConflictPolicy: ExpressibleByArgument {}
extension LogLevel: ExpressibleByArgument {}
extension WorkerLog.Format: ExpressibleByArgument {}
