import ArgumentParsing
import Domain
import Screens
import Terminal

// MARK: - shelf

/// The root of `shelf`'s command tree: the options every command accepts, the
/// subcommands, and the help that ends the root's `--help` (exit codes, environment).
/// The names are fixed: scripts rely on them.
struct Shelf: ProgramCommand {
    static let version = "0.1.0"
    static let relatedManPages = ["shelf-sync(1)"]

    static let configuration = CommandConfiguration(
        name: "shelf",
        abstract: "Your reading companion: books, notes, tasks, favorites, a reading log and a cart, offline first and synced with Kinto.",
        discussion: """
        Every change is written to the local store at once and queued; 'shelf sync' (or the
        shelf-sync worker from cron) sends it to the server. Results go to standard output;
        progress (on a terminal, or with --progress), warnings and errors ('Error: ...') to
        standard error.
        """,
        examples: [
            Example("Add a book; the next 'shelf sync' sends it", "shelf book add --title 'The Dispossessed' --author 'Ursula K. Le Guin'"),
            Example("The library as JSON, for a script", "shelf --json books --unfinished"),
            Example("Work on another account", "shelf --account work sync"),
        ],
        subcommands: [
            BooksCommand.self, BookCommand.self, NotesCommand.self, NoteCommand.self, TasksCommand.self, TaskCommand.self,
            FavoritesCommand.self, FavoriteCommand.self, ProductsCommand.self, CartCommand.self, SettingsCommand.self,
            ReadCommand.self, TodayCommand.self, LogCommand.self, ImportCommand.self, ExportCommand.self, OpenCommand.self, BackCommand.self, WhereCommand.self, SyncCommand.self, StatusCommand.self,
            ConflictsCommand.self, ResolveCommand.self, FailedCommand.self, RetryCommand.self, DiscardCommand.self,
            PendingCommand.self, HistoryCommand.self, UndoCommand.self, RedoCommand.self, EncryptionCommand.self, UICommand.self,
            AccountCommand.self, DoctorCommand.self, BackupCommand.self, RestoreCommand.self,
            CompletionCommand.self, WordListCommand.self,
        ],
        sharesOptionsWithSubcommands: true,
        sections: Shelf.helpSections)

    // MARK: Options of every command

    @Option(value: "name", help: "Work on this account instead of the current one.", completion: .accounts)
    var account: String?
    @Flag(help: "Print stable JSON instead of tables (for scripts).")
    var json = false
    @Option(value: "when", help: "Colour: auto (a terminal, unless TERM=dumb or NO_COLOR), always or never.")
    var color: ColorChoice?
    @Flag(help: "Never colour the output (as --color never; also: NO_COLOR=1).")
    var noColor = false
    @Flag(help: "Print straight to the terminal, never through a pager.")
    var noPager = false
    @Flag(short: "q", help: "Print only what was asked for, no confirmations.")
    var quiet = false
    @Flag(short: "v", help: "Say more about what happens.")
    var verbose = false
    @Flag(help: "Never contact the server; show the local data (also: SHELF_OFFLINE=1).")
    var offline = false
    @Flag(help: "Show progress on standard error even when it is no terminal (one line per step).")
    var progress = false
    @Flag(help: "Show the version.", standalone: true)
    var version = false
    @Flag(help: "Print the man page, shelf(1), written from these declarations.", standalone: true, hidden: true)
    var generateMan = false

    var asksForVersion: Bool { version }
    var asksForManPage: Bool { generateMan }

    func validate() throws(ParseError) {
        if noColor, let color, color != .never {
            throw .invalid("Give --no-color or --color \(color.rawValue), not both")
        }
    }
}

// MARK: - ShelfCommand

/// A `shelf` command that runs: its declaration and what it does. Its options are its
/// own properties; the options every command accepts are `context.global`.
protocol ShelfCommand: ParsableCommand {
    /// - Returns: the exit status; failures are thrown and turned into `Error: …` and
    ///   their status by `CommandRunner`.
    @MainActor func run(_ context: CommandContext) async throws -> ExitCode
}
