import Domain
import Presentation

// MARK: - LiveModels

/// The view models one account's `shelf ui` observes: the same classes the CLI's commands
/// use, built by the command on the account's ports. The screens read them and call their
/// intents; nothing here reads the store. A model left nil is a view this account (or a
/// test) does not wire, and its screen says so.
@MainActor
public struct LiveModels {
    /// The navigation: its path is the stack of places shown, saved on every move.
    public let router: Router
    /// The library, one window of matches at a time.
    public let library: BookWindowViewModel
    public let favorites: FavoritesViewModel
    /// Finishes, unfinishes and edits books (the intents `shelf book` uses).
    public let book: BookViewModel
    /// Last run, waiting changes, conflicts, backoff; nil when the account has none.
    public var syncStatus: SyncStatusViewModel?
    /// The reader's settings: the library hides finished books when `showFinished` is
    /// off, as `shelf books` does. Nil: every book is shown until `u` says otherwise.
    public var settings: ReadingSettingsViewModel?
    /// Starts one sync as `shelf sync` runs it; each step is passed to `progress`, and the
    /// returned line sums the run up. Nil when the account has no server.
    public var sync: (@MainActor (_ progress: @escaping @MainActor (String) -> Void) async -> String)?
    /// The changes not synced yet, with undo (`P`).
    public var pending: PendingChanges?
    /// The changes the server refused, with retry and discard (`X`).
    public var failed: FailedChanges?
    /// Today's minutes against the goal, the streak and the log (`T`).
    public var readingProgress: ReadingProgressViewModel?
    /// The conflicts, opened and resolved field by field (`C`).
    public var conflicts: Conflicts?
    /// Every note (`N`); Enter opens one as a place on the path.
    public var notes: NotesViewModel?
    /// Adds and edits notes (`n` on a book, `e` on a note).
    public var note: NoteViewModel?
    /// The reading tasks (`D`) and the model that marks one done.
    public var tasks: TaskListViewModel?
    public var task: TaskViewModel?
    /// The favorite books as a list (`F`).
    public var favoriteBooks: FavoriteBooksViewModel?
    /// The shop's catalog (`$`) and the cart (`c`).
    public var products: ProductViewModel?
    public var cart: CartViewModel?
    /// Edits a long text (a note's body) outside the interface, in `$VISUAL` / `$EDITOR`,
    /// with the terminal lent to it. Nil when there is no editor to hand over to; the
    /// inline editor is used instead.
    public var editText: (@MainActor (_ text: String) async -> EditedBody)?

    public init(router: Router, library: BookWindowViewModel, favorites: FavoritesViewModel, book: BookViewModel) {
        self.router = router
        self.library = library
        self.favorites = favorites
        self.book = book
    }
}

// MARK: - EditedBody

/// What came back from the editor: the text (nil when left unchanged), or why it failed.
/// The editor's file stays until `settle` says whether the text was saved, so a write that
/// fails loses nothing: `settle(false)` keeps the file and names it.
@MainActor
public struct EditedBody {
    public let text: String?
    public let failure: String?
    /// Called once the text was saved (true: the file goes) or not (false: the file stays,
    /// and its path comes back for the notice).
    public let settle: @MainActor (_ saved: Bool) -> String?

    public init(text: String?, failure: String?, settle: @escaping @MainActor (_ saved: Bool) -> String?) {
        self.text = text
        self.failure = failure
        self.settle = settle
    }
}
