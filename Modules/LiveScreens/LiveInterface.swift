import Domain
import Observation
import Presentation
import Terminal

// MARK: - LiveInterface

/// `shelf ui`'s screens: the place on top of the Router's path drawn from the view models
/// that hold it, the keys turned into the models' intents, and a frame of text out. It owns
/// only what a screen adds to its models — the search being typed, the selection, the view
/// shown over the place, the line being edited — and never reads the store: a change
/// another process made reaches it as `storeChanged()`, which asks the visible models to
/// read again.
///
/// It is `@Observable`, as its models are: `observedFrame(onChange:)` draws a frame while
/// Observation records what it read, so a count that lands, a sync's step or a model that
/// read again redraws the screen without a key (see `UICommand`'s loop).
///
/// Every intent is awaited before the next key is taken, so the frame drawn after a key
/// shows that key's outcome; a sync is the one exception and runs in the background.
/// The keys are in `LiveInterface+Keys.swift`, the library's window in `+Library`, the
/// prompt line in `+Editing`, the drawing in `+Drawing`.
@MainActor
@Observable
public final class LiveInterface {
    // MARK: State

    /// What the interface answers after an event.
    public enum Outcome: Sendable, Equatable {
        case keepGoing
        case quit
    }

    public let models: LiveModels
    public internal(set) var size: TerminalSize

    // The library's search, order and selection (an index among all its matches).
    var query = ""
    var isSearching = false
    var selection = 0
    var orderIndex = 0
    /// Whether the library leaves finished books out: the reader's `showFinished` setting
    /// decides at the start and whenever it changes; `u` turns it over for this screen.
    var unfinishedOnly = false
    /// The `showFinished` the library last followed, to notice a change of the setting.
    @ObservationIgnored var followedShowFinished: Bool?

    /// The selected row of the place on top of the path.
    var placeSelection = 0

    /// The view shown over the place, and its selected row.
    var overlay: Overlay?
    var overlaySelection = 0
    /// The conflict opened from the conflicts view, with the sides chosen so far.
    var openedConflict: OpenedConflict?

    /// The prompt line being edited (a title, an author, a note), nil when none is.
    var prompt: Prompt?

    /// One line that says what just happened (a record gone, a refused intent).
    public internal(set) var notice: String?
    /// The background sync's latest step or summary.
    public internal(set) var syncLine: String?
    public internal(set) var isSyncing = false
    var titles: [Route: String] = [:]

    @ObservationIgnored var syncRun: Task<Void, Never>?
    @ObservationIgnored var counting: Task<Void, Never>?

    static let orders: [(name: String, order: ListOrder<BookSortField>)] = [
        ("title", .standard), ("author", ListOrder(.author)), ("finished", ListOrder(.finished)),
    ]

    public init(models: LiveModels, size: TerminalSize) {
        self.models = models
        self.size = size
    }

    /// The rows of the list under the path bar and the search line.
    var listRows: Int { max(1, size.rows - 3) }

    /// The place on top of the path, nil at the library.
    var currentPlace: Place? { models.router.current == nil ? nil : models.router.destination.value }

    // MARK: Starting

    /// Reads what the first frame shows: the library's first window, or the place the
    /// saved path (or a deep link already opened) leads to.
    public func start() async {
        followSettings()
        await reloadLibrary(recount: true)
        await settle()
        if models.router.current != nil { await models.router.showDestination() }
        await refreshTitles()
        await models.syncStatus?.refresh()
    }

    /// Waits for the background count of the library, if one runs (the first frame, tests).
    public func settle() async {
        await counting?.value
    }

    /// Applies the reader's `showFinished` to the library when it is new to it: at the
    /// start, and when another process (or a sync) changed it. A `u` of the reader's own
    /// stands until the setting itself changes.
    func followSettings() {
        guard let showFinished = models.settings?.showFinished, showFinished != followedShowFinished else { return }
        followedShowFinished = showFinished
        unfinishedOnly = !showFinished
        selection = 0
    }

    // MARK: Events

    public func handle(_ event: TerminalEvent) async -> Outcome {
        switch event {
        case .key(let key):
            let outcome = await handle(key)
            // NB: the store tells other processes' commits (`storeChanged`), not this
            // interface's own: after a key that may have written, the status line reads
            // the waiting changes again, so an edit made here never leaves "nothing waiting".
            let typing = prompt != nil || isSearching
            if outcome == .keepGoing, !typing, !Self.onlyMoves(key) { await models.syncStatus?.refresh() }
            return outcome
        case .paste(let text):
            if prompt != nil {
                prompt?.editor.insert(text)
            } else if isSearching {
                await type(query + text.filter { !$0.isNewline })
            }
            return .keepGoing
        case .resize(let newSize):
            size = newSize
            await reloadLibrary()
            return .keepGoing
        case .redrawRequested: return .keepGoing
        case .terminate: return .quit
        }
    }

    // MARK: Another process

    /// Another process (or the background sync) changed the store: the models on screen
    /// read again, and a place whose record was deleted pops itself.
    public func storeChanged() async {
        models.favorites.reload()
        models.settings?.reload()
        followSettings()
        if models.router.current == nil {
            await reloadLibrary(recount: true)
        } else {
            await showPlace()
        }
        if let overlay { await load(overlay, refreshing: true) }
        await models.syncStatus?.refresh()
    }

    // MARK: Sync

    /// `s`: one sync in the background; its steps show in the status line as they come.
    func startSync() {
        guard let sync = models.sync else {
            notice = "This account has no server to sync with."
            return
        }
        guard !isSyncing else { return }
        isSyncing = true
        syncLine = "Syncing…"
        syncRun = Task { @MainActor [weak self] in
            let summary = await sync { step in self?.syncLine = "Syncing: \(step)" }
            guard let self else { return }
            isSyncing = false
            syncLine = summary
            await storeChanged()
        }
    }

    // MARK: Closing

    /// Ends the background work; the models' own work ends with their `cancel()`.
    public func close() {
        syncRun?.cancel()
        counting?.cancel()
        models.library.cancel()
    }
}

// MARK: - OpenedConflict

/// One conflict opened field by field, and the side chosen for each clashing field so far.
struct OpenedConflict: Equatable {
    let row: Conflicts.Row
    let fields: [Conflicts.Field]
    var choices: [String: Conflicts.Side] = [:]

    /// The clashing fields without a side yet; `w` resolves only when none is left.
    var undecided: [String] { fields.filter { $0.isClash && choices[$0.name] == nil }.map(\.name) }
}
