import ArgumentParsing
import Sync

// MARK: - The worker's command line

/// `shelf-sync`: options, help and exit codes in one place.
enum WorkerCommand {
    static let version = "0.1.0"

    static let spec = CommandSpec(
        name: "shelf-sync",
        abstract: "Sync Shelf accounts with their Kinto server, for cron and systemd timers.",
        discussion: """
        Runs one sync and exits, or with --every keeps syncing at that interval until
        SIGTERM or SIGINT (the step in progress is finished or abandoned whole, a last line
        is logged, and the status is 0). One run per account at a time: an overlapping run
        (another cron tick, 'shelf sync') exits 0 with one line saying so. With
        --all-accounts an account that cannot be used is reported on its own and the others
        sync. Before pushing, the store is checked after a run that did not finish and at
        least daily; a damaged store is never pushed from (status 74).
        Logs go to stderr (or --log-file), one line per event; an idle run logs one line.
        Under systemd (JOURNAL_STREAM) lines carry journald priorities. Passwords and
        Authorization headers never appear in them.
        """,
        options: [
            .option("account", value: "name", help: "Sync this account (default: the environment's or the current one)."),
            .flag("all-accounts", help: "Sync every configured account, two at a time; each fails alone."),
            .option("every", value: "duration", help: "Keep running; sync every DURATION (e.g. 90s, 5m, 1h)."),
            .option("log-format", value: "text|json", help: "Log lines as text (default) or one JSON object each.", allowed: ["text", "json"]),
            .option("log-level", value: "level", help: "Log error, warning, info (default) or debug lines and above.",
                    allowed: LogLevel.allCases.map(\.rawValue)),
            .option("log-file", value: "file", help: "Append log lines to FILE (0600, rotated at 1 MiB) instead of stderr."),
            .option("report", value: "file", help: "Write a JSON report of each run to FILE (0600, atomically)."),
            .option("policy", value: "policy", help: "Settle a field changed on both sides: manual (default), server-wins, client-wins.",
                    allowed: ["manual", "server-wins", "client-wins"]),
            .option("page-size", value: "n", help: "Records per page when pulling (1...10000, default 10000)."),
            .option("budget", value: "duration", help: "Give up a run after DURATION in all, waits and retries included (default 60s)."),
            .flag("ignore-backoff", help: "Sync even though the server asked to wait (Backoff / Retry-After)."),
            .flag("version", help: "Show the version.", standalone: true),
        ])

    static let epilogue = WorkerExitStatus.helpText + """


    CONFIGURATION:
      An account file written by 'shelf account add', or the environment:
      SHELF_SERVER, SHELF_USER, SHELF_PASSWORD or SHELF_PASSWORD_FILE (mode 600), SHELF_ACCOUNT;
      under systemd, the credential 'password' ($CREDENTIALS_DIRECTORY/password).
      SHELF_CA_FILE: a PEM file of CAs to trust for an https:// server (a private CA).
      XDG_CONFIG_HOME and XDG_DATA_HOME say where accounts and stores live.

    CRON:
      */5 * * * * /usr/local/bin/shelf-sync --all-accounts --log-file "$HOME/.local/state/shelf/sync.log" --report "$HOME/.local/state/shelf/sync-report.json"

    """
}
