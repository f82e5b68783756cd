import ArgumentParsing

// MARK: - The worker's command line

/// `shelf-sync`: options, help and exit codes in one place.
enum WorkerCommand {
    static let version = "0.1.0"

    static let spec = CommandSpec(
        name: "shelf-sync",
        abstract: "Sync Shelf accounts with their Kinto server, for cron and systemd timers.",
        discussion: """
        Runs one sync and exits, or with --every keeps syncing at that interval. One run
        per account at a time: an overlapping run (another cron tick, 'shelf sync') exits 0
        with one line saying so. Logs go to stderr, one line per event; passwords and
        Authorization headers never appear in them.
        """,
        options: [
            .option("account", value: "name", help: "Sync this account (default: the environment's or the current one)."),
            .flag("all-accounts", help: "Sync every configured account, two at a time."),
            .option("every", value: "duration", help: "Keep running; sync every DURATION (e.g. 90s, 5m, 1h)."),
            .option("log-format", value: "text|json", help: "Log lines as text (default) or JSON.", allowed: ["text", "json"]),
            .option("report", value: "file", help: "Write a JSON report of each run to FILE (atomically)."),
            .option("policy", value: "policy", help: "Settle a field changed on both sides: manual (default), server-wins, client-wins.",
                    allowed: ["manual", "server-wins", "client-wins"]),
            .option("page-size", value: "n", help: "Records per page when pulling (1...10000, default 10000)."),
            .flag("version", help: "Show the version.", standalone: true),
        ])

    static let epilogue = """
    EXIT CODES:
      0   all synced (also: another run holds the account's lock, or the server offers
          no shop catalog — a warning line says so, the rest synced)
      1   finished, but conflicts or refused changes wait ('shelf conflicts', 'shelf failed'),
          or the server refuses one of the reader's own collections (the others synced)
      64  usage error
      74  the local store could not be read or written
      75  temporary failure (network, server) or the server's backoff is still in force,
          or a read-only server holds local changes back
      77  the server refused the credentials
      78  configuration error (no account, unsafe password file, a server Shelf cannot use)

    CONFIGURATION:
      An account file written by 'shelf account add', or the environment:
      SHELF_SERVER, SHELF_USER, SHELF_PASSWORD or SHELF_PASSWORD_FILE (mode 600), SHELF_ACCOUNT.
      SHELF_CA_FILE: a PEM file of CAs to trust for an https:// server (a private CA).
      XDG_CONFIG_HOME and XDG_DATA_HOME say where accounts and stores live.

    CRON:
      */5 * * * *  shelf-sync --all-accounts --log-format json --report /var/tmp/shelf-sync.json
    """
}
