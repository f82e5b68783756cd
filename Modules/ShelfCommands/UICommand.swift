import ArgumentParsing
import Domain
import LiveScreens
import Presentation
import Repositories
import Screens
import Storage
import Sync
import Synchronization
import Terminal

// MARK: - shelf ui

/// The live terminal interface: the account's view models drawn by `LiveScreens`, the
/// Router's saved path as its navigation (so `shelf where` and the next `shelf ui`
/// continue from where it was left), redrawn when another process changes the store.
/// A non-terminal or `TERM=dumb` is refused with 64 before anything is drawn.
struct UICommand: ShelfCommand {
    static let configuration = CommandConfiguration(
        name: "ui", abstract: "Open the live, full-screen interface (press ? inside for the keys).",
        discussion: """
        Starts at the library, or where the last 'shelf ui' (or 'shelf open') left the path, or at the
        place a deep link names. Changes made by 'shelf-sync' or another 'shelf' show within a second.
        """,
        examples: [
            Example("Open the interface", "shelf ui"),
            Example("Start at a book", "shelf ui shelf://book/b-42"),
        ])

    @Argument(help: "A deep link to start at (shelf://book/<id>, shelf://author/<name>, shelf://note/<id>).")
    var link: String?

    func run(_ context: CommandContext) async throws -> ExitCode {
        let session = try context.session()
        let router = Router(preferences: session.preferences, places: session.repositories.places)
        if let link, await !router.open(url: link) {
            throw CommandFailure(.noInput, router.errorMessage ?? "\(link) leads nowhere")
        }
        var models = try Self.models(session, router: router)
        models.sync = try backgroundSync(context)
        let configuration = TerminalSession.Configuration(
            environment: context.environment, color: context.global.noColor ? .never : context.global.color ?? .auto)
        let ending: TerminalSignal?
        do {
            ending = try await TerminalSession.run(configuration) { terminal in
                models.editText = Self.editor(on: terminal, environment: context.environment)
                return try await Self.loop(terminal, models: models, watcher: StoreWatcher(store: session.store))
            }
        } catch let error as TerminalError {
            throw CommandFailure(.usage, "shelf ui needs a terminal: \(error.message)")
        }
        // NB: the terminal is restored and the path saved (the Router saves on every move):
        // a signal that ended the interface now ends the process the conventional way, so a
        // shell sees 128 + n as it would for any program.
        ending?.reraise()
        return router.errorMessage == nil ? .success : .ioError
    }

    // MARK: The loop

    /// What wakes the loop: a key (or size, or signal), a change in the store, or a change
    /// in something the last frame read.
    private enum Wake: Sendable {
        case terminal(TerminalEvent)
        case storeChanged
        case modelChanged
    }

    /// Draws, waits for a key, a store change or a model change, hands it to the interface,
    /// draws again. Every frame is drawn under observation (`LiveInterface.observedFrame`):
    /// when a model property it read changes — a count landing in the background, a sync's
    /// step, a model that read again — `.modelChanged` wakes the loop to draw, no key needed.
    /// - Returns: the signal that ended it, nil when the reader quit.
    @MainActor
    private static func loop(_ terminal: TerminalSession, models: LiveModels, watcher: StoreWatcher) async throws
        -> TerminalSignal?
    {
        let interface = LiveInterface(models: models, size: terminal.size)
        defer { interface.close() }
        let (wakes, continuation) = AsyncStream<Wake>.makeStream(bufferingPolicy: .bufferingNewest(1_024))
        let redraw = RedrawRequest { continuation.yield(.modelChanged) }
        func draw() {
            redraw.drawn()
            terminal.draw(interface.observedFrame { redraw.request() })
        }
        await interface.start()
        draw()

        let keys = Task {
            for await event in terminal.events { continuation.yield(.terminal(event)) }
            continuation.finish()
        }
        let watching = Task { await watcher.watch { continuation.yield(.storeChanged) } }
        defer {
            keys.cancel()
            watching.cancel()
        }
        for await wake in wakes {
            switch wake {
            case .terminal(.terminate(let signal)):
                return signal
            case .terminal(let event):
                if await interface.handle(event) == .quit { return nil }
            case .storeChanged:
                await interface.storeChanged()
            case .modelChanged:
                break
            }
            draw()
        }
        return nil
    }

    // MARK: Wiring

    /// The account's view models, each on the ports its CLI command uses.
    @MainActor
    private static func models(_ session: AccountSession, router: Router) throws -> LiveModels {
        let repositories = session.repositories
        var models = LiveModels(
            router: router, library: BookWindowViewModel(service: repositories.books),
            favorites: FavoritesViewModel(preferences: session.preferences),
            book: BookViewModel(service: repositories.books, removal: repositories))
        models.syncStatus = SyncStatusViewModel(provider: repositories.syncStatus)
        models.settings = ReadingSettingsViewModel(preferences: session.preferences)
        models.pending = PendingChanges(
            PendingChangesViewModel(service: session.decisions),
            rows: { pending in
                pending.operations.map { entry in
                    PendingChanges.Row(
                        target: .operation(entry.operation),
                        line: "#\(entry.operation)  \(entry.origin)  \(OperationText.summary(entry))"
                            + (entry.delivery == .waiting ? "" : "  (\(OperationText.state(entry)))"))
                } + pending.outside.map { change in
                    PendingChanges.Row(
                        target: .record(change.collection, change.recordID),
                        line: "\(change.collection.rawValue)/\(change.recordID)  \(change.change.rawValue)  \(change.label ?? "")"
                            + "  (made outside the history)")
                }
            },
            done: { UndoScreen($0).headline })
        models.failed = FailedChanges(FailedChangesViewModel(service: session.decisions)) { change in
            FailedChanges.Row(
                id: change.id, text: "\(change.collection.rawValue)/\(change.recordID)  \(change.change)  \(change.status)  \(change.reason)")
        }
        models.readingProgress = ReadingProgressViewModel(
            service: repositories.readingLog, goal: ReadingSettingsViewModel(preferences: session.preferences).settings.dailyGoal)
        models.conflicts = conflicts(session)
        models.notes = NotesViewModel(service: repositories.notes)
        models.note = NoteViewModel(service: repositories.notes)
        models.tasks = TaskListViewModel(service: repositories.tasks)
        models.task = TaskViewModel(service: repositories.tasks)
        models.favoriteBooks = FavoriteBooksViewModel(service: repositories.books)
        models.products = ProductViewModel(service: repositories.catalog)
        models.cart = CartViewModel(cart: repositories.cart, catalog: repositories.catalog)
        return models
    }

    /// A note's body in `$VISUAL` / `$EDITOR` / vi, as `shelf note edit --edit` runs it,
    /// with the terminal lent to it while it runs. The file stays until the interface says
    /// the text was saved.
    @MainActor
    private static func editor(on terminal: TerminalSession, environment: [String: String])
        -> @MainActor (String) async -> EditedBody
    {
        { text in
            do {
                let edited = try terminal.handOver {
                    try ExternalEditor(environment: environment).edit(text, name: "note", limit: NoteBodyInput.limit)
                }
                // NB: a blank text is refused as `shelf note edit --edit` refuses it: unchanged.
                let changed = edited.text != text && !TextDecoding.isBlank(edited.text)
                return EditedBody(text: changed ? edited.text : nil, failure: nil) { saved in
                    if saved {
                        edited.discard()
                        return nil
                    }
                    edited.keep()
                    return edited.file
                }
            } catch {
                return EditedBody(text: nil, failure: "\(error)") { _ in nil }
            }
        }
    }

    // MARK: Conflicts

    /// The conflicts screen over the view model `shelf conflicts` and `shelf resolve` use:
    /// a value shown as `--set` would write it, a choice kept as `--keep` would.
    @MainActor
    private static func conflicts(_ session: AccountSession) -> Conflicts {
        Conflicts(
            ConflictsViewModel(service: session.decisions),
            row: { summary in
                Conflicts.Row(
                    collection: summary.collection, id: summary.recordID,
                    text: (summary.label ?? "") + "  " + summary.fields.joined(separator: ", "))
            },
            fields: { detail in
                detail.fields.map { field in
                    Conflicts.Field(
                        name: field.name, base: field.base.map(FieldValueText.written) ?? "(absent)",
                        local: detail.deletedHere ? "(deleted)" : field.local.map(FieldValueText.written) ?? "(absent)",
                        server: detail.deletedOnServer ? "(deleted)" : field.server.map(FieldValueText.written) ?? "(absent)",
                        isClash: field.isClash)
                }
            },
            decisions: { choices in
                ConflictDecisions(fields: choices.mapValues { .keep($0 == .local ? .local : .remote) })
            })
    }

    // MARK: Sync

    /// The sync `s` starts: the one `shelf sync` runs (`AccountSync` under the run lock,
    /// through `SyncRunViewModel`), its steps passed on as status lines. Nil without a
    /// server or offline.
    @MainActor
    private func backgroundSync(_ context: CommandContext) throws
        -> (@MainActor (_ progress: @escaping @MainActor (String) -> Void) async -> String)?
    {
        let paths = ShelfPaths(environment: context.environment)
        let selection = try AccountSession.resolve(accountFlag: context.global.account, environment: context.environment, paths: paths)
        guard case .account(let account) = selection, !context.isOffline else { return nil }
        let limits = try LimitOverrides(environment: context.environment)
        var options = SyncOptions(ignoresBackoff: false, budget: SyncCommand.syncBudget)
        options.maximumRecordBytes = limits.maximumRecordBytes
        let sync = try AccountSync(
            account: account, paths: paths, options: options, transport: limits.transport(caFile: account.caFile),
            timeouts: limits.timeouts(), clock: context.program.clock)
        try? SyncedPreferencesStore.carryOver(in: sync.store)
        if case .passwordUnavailable(let problem) = sync.credentialProblem {
            // NB: the status line has one line: what is wrong and the command that mends it.
            return { _ in "Not synced: \(problem.brief)." }
        }
        let model = SyncRunViewModel(service: AccountSyncRun(sync: sync))
        return { progress in
            let report = await model.sync { event in
                guard let step = SyncProgress.activity(event) else { return }
                Task { @MainActor in progress(step) }
            }
            return Self.summary(report)
        }
    }

    /// The status line a finished sync leaves, in words (`--json`'s values are for scripts).
    static func summary(_ report: RunReport) -> String {
        switch report.outcome {
        case .synced: "Synced."
        case .rested: "Not synced this time: the last runs brought nothing from the server."
        case .needsAttention: "Synced; conflicts or refused changes wait for you (C, X)."
        case .backoff: "Not synced: the server asked to wait; S shows until when."
        case .temporaryFailure: "Not synced: the server could not be reached; your changes wait."
        case .authenticationFailed: "Not synced: the server refused the credentials (shelf account password)."
        case .localStoreFailure: "Not synced: the local store could not be read or written (shelf doctor)."
        case .configurationError: "Not synced: \(report.message)"
        case .alreadyRunning: "Not synced: another sync of this account is running."
        }
    }
}

// MARK: - RedrawRequest

/// Observation's change calls, one wake per frame: the first change after a frame was
/// drawn wakes the loop, the ones that follow before it draws again add nothing (a sync
/// changes many properties at once).
private final class RedrawRequest: Sendable {
    private let wake: @Sendable () -> Void
    private let pending = Mutex(false)

    init(_ wake: @escaping @Sendable () -> Void) {
        self.wake = wake
    }

    /// A property the last frame read is about to change.
    func request() {
        let first = pending.withLock { pending in
            defer { pending = true }
            return !pending
        }
        if first { wake() }
    }

    /// A frame is being drawn: the next change wakes the loop again.
    func drawn() {
        pending.withLock { $0 = false }
    }
}
