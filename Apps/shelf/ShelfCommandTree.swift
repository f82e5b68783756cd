import ArgumentParsing

// MARK: - The command tree

/// Every `shelf` command, its arguments, options and help text, in one place. The
/// names are fixed: scripts rely on them.
enum ShelfCommandTree {
    static let version = "0.1.0"

    static let root = CommandSpec(
        name: "shelf",
        abstract: "Your reading companion: books, notes, tasks, favorites and a cart, offline first and synced with Kinto.",
        discussion: """
        Every change is written to the local store at once and queued; 'shelf sync' (or the
        shelf-sync worker from cron) sends it to the server.
        """,
        options: [
            .option("account", value: "name", help: "Work on this account instead of the current one."),
            .flag("json", help: "Print stable JSON instead of tables (for scripts)."),
            .flag("no-color", help: "Never colour the output (also: NO_COLOR=1)."),
            .flag("quiet", short: "q", help: "Print only what was asked for, no confirmations."),
            .flag("verbose", short: "v", help: "Say more about what happens."),
            .flag("offline", help: "Never contact the server; show the local data (also: SHELF_OFFLINE=1)."),
            .flag("version", help: "Show the version.", standalone: true),
        ],
        subcommands: [
            books, book, notes, note, tasks, task, favorites, favorite, products, cart, settings,
            open, back, whereCommand, sync, status, conflicts, resolve, failed, retry, discard, account,
            doctor, backup, restore,
        ],
        inheritedByChildren: true)

    static let exitCodes = """
    EXIT CODES:
      0   success (a sync that found no shop catalog on the server warns and exits 0)
      1   not found, or finished with conflicts, failed changes, or a collection the
          server refuses (the others synced)
      64  usage error (a wrong command line)
      65  invalid data (e.g. an empty title, a daily goal out of range)
      69  no server configured for a command that needs one; no sign-up on the server
      74  the local store could not be read or written, or is damaged ('shelf doctor')
      75  temporary failure: network, server, the server asked to wait (backoff), or
          a read-only server holds local changes back
      77  the server refused the credentials
      78  configuration error (unknown account, unsafe password file, a server Shelf
          cannot use, a TLS certificate that does not verify)

    ENVIRONMENT:
      SHELF_SERVER, SHELF_USER, SHELF_PASSWORD or SHELF_PASSWORD_FILE, SHELF_ACCOUNT
                  an account from the environment instead of an account file
      SHELF_CA_FILE   a PEM file of CAs to trust for the server (a private CA)
      XDG_CONFIG_HOME, XDG_DATA_HOME   where accounts and stores live
      NO_COLOR    never colour the output
    """

    // MARK: Books

    static let books = CommandSpec(
        name: "books", abstract: "List books.",
        options: [
            .option("search", value: "text", help: "Only books whose title or author contains the text (any case, any accents)."),
            .flag("unfinished", help: "Only books not finished yet."),
        ])

    static let book = CommandSpec(
        name: "book", abstract: "Show, add, edit, finish or remove one book.",
        subcommands: [
            CommandSpec(name: "show", abstract: "Show a book.", arguments: [ArgumentSpec("id", help: "The book's id.")]),
            CommandSpec(
                name: "add", abstract: "Add a book.",
                options: [
                    .option("title", value: "title", help: "The title.", required: true),
                    .option("author", value: "author", help: "The author.", required: true),
                ]),
            CommandSpec(
                name: "edit", abstract: "Change a book's title or author.",
                arguments: [ArgumentSpec("id", help: "The book's id.")],
                options: [
                    .option("title", value: "title", help: "The new title."),
                    .option("author", value: "author", help: "The new author."),
                ]),
            CommandSpec(name: "finish", abstract: "Mark a book finished.", arguments: [ArgumentSpec("id", help: "The book's id.")]),
            CommandSpec(name: "unfinish", abstract: "Mark a book not finished.", arguments: [ArgumentSpec("id", help: "The book's id.")]),
            CommandSpec(name: "rm", abstract: "Remove a book.", arguments: [ArgumentSpec("id", help: "The book's id.")]),
        ])

    // MARK: Notes

    static let notes = CommandSpec(
        name: "notes", abstract: "List notes.",
        options: [
            .option("search", value: "text", help: "Only notes whose title or body contains the text."),
            .option("book", value: "id", help: "Only notes about this book."),
        ])

    static let note = CommandSpec(
        name: "note", abstract: "Show, add, edit or remove one note.",
        subcommands: [
            CommandSpec(name: "show", abstract: "Show a note.", arguments: [ArgumentSpec("id", help: "The note's id.")]),
            CommandSpec(
                name: "add", abstract: "Add a note.",
                options: [
                    .option("title", value: "title", help: "The title.", required: true),
                    .option("body", value: "text", help: "The text of the note."),
                    .option("book", value: "id", help: "The book the note is about."),
                ]),
            CommandSpec(
                name: "edit", abstract: "Change a note's title or body.",
                arguments: [ArgumentSpec("id", help: "The note's id.")],
                options: [
                    .option("title", value: "title", help: "The new title."),
                    .option("body", value: "text", help: "The new text."),
                ]),
            CommandSpec(name: "rm", abstract: "Remove a note.", arguments: [ArgumentSpec("id", help: "The note's id.")]),
        ])

    // MARK: Tasks, favorites, shop

    static let tasks = CommandSpec(name: "tasks", abstract: "List reading tasks.")

    static let task = CommandSpec(
        name: "task", abstract: "Add, complete, reopen or remove a reading task.",
        subcommands: [
            CommandSpec(name: "add", abstract: "Add a task.", arguments: [ArgumentSpec("title", help: "What to do.")]),
            CommandSpec(name: "done", abstract: "Mark a task done.", arguments: [ArgumentSpec("id", help: "The task's id.")]),
            CommandSpec(name: "undo", abstract: "Mark a task not done.", arguments: [ArgumentSpec("id", help: "The task's id.")]),
            CommandSpec(name: "rm", abstract: "Remove a task.", arguments: [ArgumentSpec("id", help: "The task's id.")]),
        ])

    static let favorites = CommandSpec(name: "favorites", abstract: "List favorite books.")

    static let favorite = CommandSpec(
        name: "favorite", abstract: "Mark a book as a favorite, or unmark it (toggles).",
        arguments: [ArgumentSpec("book-id", help: "The book's id.")])

    static let products = CommandSpec(
        name: "products", abstract: "List the shop catalog.",
        options: [.option("search", value: "text", help: "Only products whose name contains the text.")])

    static let cart = CommandSpec(
        name: "cart", abstract: "Show the cart, or add and remove products.",
        subcommands: [
            CommandSpec(name: "show", abstract: "Show the cart (the default)."),
            CommandSpec(
                name: "add", abstract: "Put a product in the cart (sets the quantity when it is there).",
                arguments: [ArgumentSpec("product-id", help: "The product's id.")],
                options: [.option("quantity", value: "n", help: "How many (default 1).")]),
            CommandSpec(name: "rm", abstract: "Take a product out of the cart.", arguments: [ArgumentSpec("product-id", help: "The product's id.")]),
        ],
        defaultSubcommand: "show")

    static let settings = CommandSpec(
        name: "settings", abstract: "Show or change reading settings.",
        options: [
            .option("show-finished", value: "on|off", help: "Show finished books in lists.", allowed: ["on", "off"]),
            .option("daily-goal", value: "minutes", help: "Daily reading goal: 5...120 in steps of 5."),
        ])

    // MARK: Navigation

    static let open = CommandSpec(
        name: "open", abstract: "Open a deep link (shelf://book/<id>, shelf://author/<name>, shelf://note/<id>).",
        arguments: [ArgumentSpec("url", help: "The link.")])
    static let back = CommandSpec(name: "back", abstract: "Go back one place in the saved path.")
    static let whereCommand = CommandSpec(name: "where", abstract: "Show the saved path of places.")

    // MARK: Sync

    static let sync = CommandSpec(
        name: "sync", abstract: "Send local changes to the server and fetch its changes now.",
        options: [
            .option("collection", value: "name", help: "Only this collection.", allowed: ["books", "notes", "tasks", "cart", "products"]),
            .option("policy", value: "policy", help: "How to settle a field changed on both sides (default manual).",
                    allowed: ["manual", "server-wins", "client-wins"]),
            .flag("ignore-backoff", help: "Sync even though the server asked to wait (Backoff / Retry-After)."),
        ])
    static let status = CommandSpec(name: "status", abstract: "Show the last sync, pending changes, conflicts and failed changes.")
    static let conflicts = CommandSpec(name: "conflicts", abstract: "List conflicts waiting for a decision.")
    static let resolve = CommandSpec(
        name: "resolve", abstract: "Settle a conflict by keeping the local or the server's values.",
        arguments: [ArgumentSpec("collection/id", help: "The conflicted record, e.g. books/b-42.")],
        options: [.option(
            "keep", value: "local|remote",
            help: "Whose values the clashing fields take; fields only one side changed keep that change.",
            required: true, allowed: ["local", "remote"])])
    static let failed = CommandSpec(name: "failed", abstract: "List changes the server refused (dead letters).")
    static let retry = CommandSpec(
        name: "retry", abstract: "Queue a refused change to be sent again on the next sync.",
        arguments: [ArgumentSpec("id", help: "The failed change's id (see 'shelf failed').")])
    static let discard = CommandSpec(
        name: "discard", abstract: "Drop a refused change and restore the server's version.",
        arguments: [ArgumentSpec("id", help: "The failed change's id (see 'shelf failed').")])

    // MARK: Accounts

    static let account = CommandSpec(
        name: "account", abstract: "Add, list, choose or remove accounts.",
        subcommands: [
            CommandSpec(
                name: "add", abstract: "Add an account.",
                discussion: """
                The password comes from SHELF_PASSWORD, from --password-file (which must not be
                readable by group or others), or from a prompt without echo on a terminal. It is
                never taken as an argument, so it never shows in the process list or shell history.

                Before saving, the server is asked (GET /v1/) whether it is a Kinto that Shelf
                can sync with and whether it accepts the password: a wrong password exits 77, an
                unreachable server 75 (--no-verify adds the account anyway), a certificate that
                does not verify 78. --create first signs the user up (Kinto's accounts plugin).
                https:// is verified against the system's CAs, or those of --ca-file /
                SHELF_CA_FILE; plain http:// to another machine is accepted with a warning.

                Examples:
                  SHELF_PASSWORD_FILE=~/.kinto-pw shelf account add home --server https://kinto.example.org/v1 --user ana
                  shelf account add home --server https://kinto.lan/v1 --user ana --ca-file /etc/ssl/lan-ca.pem --create
                """,
                arguments: [ArgumentSpec("name", help: "A name for the account (letters, digits, '.', '-', '_').")],
                options: [
                    .option("server", value: "url", help: "The Kinto server, e.g. http://127.0.0.1:8888/v1.", required: true),
                    .option("user", value: "user", help: "The user name.", required: true),
                    .option("password-file", value: "path", help: "A file holding the password (mode 600)."),
                    .option("ca-file", value: "path", help: "Trust the CAs in this PEM file for the server (a private CA)."),
                    .flag("create", help: "Sign the user up first (a server with Kinto's accounts plugin)."),
                    .flag("no-verify", help: "Save without asking the server (e.g. while it is unreachable)."),
                ]),
            CommandSpec(name: "list", abstract: "List accounts; the current one is marked."),
            CommandSpec(name: "use", abstract: "Make an account the current one.", arguments: [ArgumentSpec("name", help: "The account.")]),
            CommandSpec(name: "rm", abstract: "Remove an account (its local store is kept).", arguments: [ArgumentSpec("name", help: "The account.")]),
        ])

    // MARK: Store care

    static let doctor = CommandSpec(
        name: "doctor", abstract: "Check the local store with SQLite's full integrity check and say what it found.",
        discussion: """
        Exits 0 when the store is healthy (or does not exist yet) and 74 when it is damaged,
        with what to do. The store is only read.
        """)
    static let backup = CommandSpec(
        name: "backup", abstract: "Write a consistent copy of the local store to FILE, even while a sync runs.",
        discussion: "FILE must not exist; the copy is private (mode 600) and checked before it gets its name.",
        arguments: [ArgumentSpec("file", help: "Where to write the copy (a new file).")])
    static let restore = CommandSpec(
        name: "restore", abstract: "Check a backup and put it in place of the local store.",
        discussion: """
        The replaced store is kept beside it as <store>.replaced-<time>. Refused while a sync
        of the account runs, and for a backup that fails the check (nothing is changed then).
        """,
        arguments: [ArgumentSpec("file", help: "The backup to restore.")])
}
