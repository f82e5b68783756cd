import Domain
import Presentation

// MARK: - LiveModels

/// The view models one account's `shelf ui` observes: the same classes the CLI's commands
/// use, built by the command on the account's ports. The screens read them and call their
/// intents; nothing here reads the store.
@MainActor
public struct LiveModels {
    /// The navigation: its path is the stack of places shown, saved on every move.
    public let router: Router
    /// The library, one window of matches at a time.
    public let library: BookWindowViewModel
    public let favorites: FavoritesViewModel
    /// Finishes and unfinishes books (the intents `shelf book finish` uses).
    public let book: BookViewModel
    /// Last run, waiting changes, conflicts, backoff; nil when the account has none.
    public let syncStatus: SyncStatusViewModel?
    /// Starts one sync as `shelf sync` runs it; each step is passed to `progress`, and the
    /// returned line sums the run up. Nil when the account has no server.
    public let sync: (@MainActor (_ progress: @escaping @MainActor (String) -> Void) async -> String)?
    /// The changes not synced yet, with undo; nil when the screen is not wired.
    public let pending: PendingChanges?
    /// Today's minutes against the goal, the streak and the log; nil when not wired.
    public let readingProgress: ReadingProgressViewModel?
    /// The conflicts, opened and resolved field by field; nil when not wired.
    public let conflicts: Conflicts?
    /// Every note (`N`); Enter opens one as a place on the path.
    public let notes: NotesViewModel?
    /// The reading tasks (`D`) and the model that marks one done.
    public let tasks: TaskListViewModel?
    public let task: TaskViewModel?

    public init(
        router: Router, library: BookWindowViewModel, favorites: FavoritesViewModel, book: BookViewModel,
        syncStatus: SyncStatusViewModel? = nil,
        sync: (@MainActor (_ progress: @escaping @MainActor (String) -> Void) async -> String)? = nil,
        pending: PendingChanges? = nil, readingProgress: ReadingProgressViewModel? = nil, conflicts: Conflicts? = nil,
        notes: NotesViewModel? = nil, tasks: TaskListViewModel? = nil, task: TaskViewModel? = nil
    ) {
        self.router = router
        self.library = library
        self.favorites = favorites
        self.book = book
        self.syncStatus = syncStatus
        self.sync = sync
        self.pending = pending
        self.readingProgress = readingProgress
        self.conflicts = conflicts
        self.notes = notes
        self.tasks = tasks
        self.task = task
    }
}
