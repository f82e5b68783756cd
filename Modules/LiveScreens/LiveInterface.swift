import Domain
import Presentation
import Terminal

// MARK: - LiveInterface

/// `shelf ui`'s screens: the place on top of the Router's path drawn from the view models
/// that hold it, the keys turned into the models' intents, and a frame of text out. It owns
/// only what a screen adds to its models — the search being typed, the selection, whether
/// the keys are shown — and never reads the store: a change another process made reaches
/// it as `storeChanged()`, which asks the visible models to read again.
///
/// Every intent is awaited before the next key is taken, so the frame drawn after a key
/// shows that key's outcome; a sync is the one exception and runs in the background.
@MainActor
public final class LiveInterface {
    // MARK: State

    /// What the interface answers after an event.
    public enum Outcome: Sendable, Equatable {
        case keepGoing
        case quit
    }

    public let models: LiveModels
    public private(set) var size: TerminalSize
    private(set) var query = ""
    private(set) var isSearching = false
    /// The selected row: an index among the library's matches, or a place's rows.
    private(set) var selection = 0
    private(set) var placeSelection = 0
    private(set) var orderIndex = 0
    private(set) var unfinishedOnly = false
    private(set) var showsHelp = false
    /// Whether the sync status is shown over the current place (`S`; Esc closes it).
    private(set) var showsSyncStatus = false
    /// Whether the changes waiting for a sync are shown (`P`; Esc closes it).
    private(set) var showsPending = false
    private(set) var pendingSelection = 0
    /// Whether today's reading is shown (`T`; Esc closes it).
    private(set) var showsToday = false
    /// Whether the conflicts are shown (`C`), and the one opened with its choices so far.
    private(set) var showsConflicts = false
    private(set) var conflictSelection = 0
    private(set) var openedFields: [Conflicts.Field]?
    private(set) var fieldChoices: [String: Conflicts.Side] = [:]
    private var openedConflict: Conflicts.Row?
    /// The list shown over the place (`N` notes, `D` tasks), and its selection.
    private(set) var list: ListKind?
    private(set) var listSelection = 0

    enum ListKind { case notes, tasks }
    /// One line that says what just happened (a record gone, a refused intent).
    public private(set) var notice: String?
    /// The background sync's latest step or summary.
    public private(set) var syncLine: String?
    public private(set) var isSyncing = false
    private var titles: [Route: String] = [:]
    private var syncRun: Task<Void, Never>?
    private var counting: Task<Void, Never>?
    /// Called when something finished in the background (a sync step), so the owner draws.
    public var onBackgroundChange: (@MainActor () -> Void)?

    static let orders: [(name: String, order: ListOrder<BookSortField>)] = [
        ("title", .standard), ("author", ListOrder(.author)), ("finished", ListOrder(.finished)),
    ]

    public init(models: LiveModels, size: TerminalSize) {
        self.models = models
        self.size = size
    }

    /// The rows of the list under the path bar and the search line.
    var listRows: Int { max(1, size.rows - 3) }

    // MARK: Starting

    /// Reads what the first frame shows: the library's first window, or the place the
    /// saved path (or a deep link already opened) leads to.
    public func start() async {
        await reloadLibrary(recount: true)
        await settle()
        if models.router.current != nil { await models.router.showDestination() }
        await refreshTitles()
        await models.syncStatus?.refresh()
    }

    // MARK: Events

    public func handle(_ event: TerminalEvent) async -> Outcome {
        switch event {
        case .key(let key): return await handle(key)
        case .paste(let text):
            if isSearching { await type(query + text.filter { !$0.isNewline }) }
            return .keepGoing
        case .resize(let newSize):
            size = newSize
            await reloadLibrary()
            return .keepGoing
        case .redrawRequested: return .keepGoing
        case .terminate: return .quit
        }
    }

    private func handle(_ key: Key) async -> Outcome {
        if key == .control("c") { return .quit }
        if showsHelp {
            showsHelp = false
            return .keepGoing
        }
        if isSearching { return await handleSearching(key) }
        notice = nil
        if showsPending { return await handlePending(key) }
        if showsConflicts { return await handleConflicts(key) }
        if list != nil { return await handleList(key) }
        if showsSyncStatus || showsToday, key == .escape || key == .backspace || key == .character("S") || key == .character("T") {
            showsSyncStatus = false
            showsToday = false
            return .keepGoing
        }
        switch key {
        case .character("q"): return .quit
        case .character("?"): showsHelp = true
        case .character("/") where models.router.current == nil: isSearching = true
        case .up, .character("k"): await move(by: -1)
        case .down, .character("j"): await move(by: 1)
        case .pageUp: await move(by: -listRows)
        case .pageDown: await move(by: listRows)
        case .character("g"), .home: await move(to: 0)
        case .character("G"), .end: await move(to: Int.max)
        case .enter: await openSelected()
        case .escape, .backspace: await back()
        case .character("o") where models.router.current == nil:
            orderIndex = (orderIndex + 1) % Self.orders.count
            await resetSelection()
        case .character("u") where models.router.current == nil:
            unfinishedOnly.toggle()
            await resetSelection()
        case .character("f"): toggleFavorite()
        case .character("x"): await toggleFinished()
        case .character("s"): startSync()
        case .character("S"):
            showsSyncStatus = true
            await models.syncStatus?.refresh()
        case .character("T"):
            showsToday = true
            await models.readingProgress?.load()
        case .character("N"):
            list = .notes
            listSelection = 0
            await models.notes?.load()
        case .character("D"):
            list = .tasks
            listSelection = 0
            await models.tasks?.load()
        case .character("C"):
            showsConflicts = true
            conflictSelection = 0
            await models.conflicts?.load()
        case .character("P"):
            showsPending = true
            pendingSelection = 0
            await models.pending?.load()
        default: break
        }
        return .keepGoing
    }

    private func handleSearching(_ key: Key) async -> Outcome {
        switch key {
        case .enter, .down:
            isSearching = false
        case .escape:
            isSearching = false
            if !query.isEmpty { await type("") }
        case .backspace:
            if !query.isEmpty { await type(String(query.dropLast())) }
        case .character(let character):
            await type(query + String(character))
        default: break
        }
        return .keepGoing
    }

    private var listCount: Int {
        switch list {
        case .notes: models.notes?.visibleNotes.count ?? 0
        case .tasks: models.tasks?.tasks.count ?? 0
        case nil: 0
        }
    }

    private func handleList(_ key: Key) async -> Outcome {
        switch key {
        case .character("q"): return .quit
        case .escape, .backspace, .character("N"), .character("D"): list = nil
        case .up, .character("k"): listSelection = max(0, listSelection - 1)
        case .down, .character("j"): listSelection = min(max(0, listCount - 1), listSelection + 1)
        case .character("g"): listSelection = 0
        case .character("G"): listSelection = max(0, listCount - 1)
        case .enter where list == .notes:
            guard let notes = models.notes?.visibleNotes, notes.indices.contains(listSelection) else { break }
            list = nil
            models.router.push(.note(notes[listSelection].id))
            placeSelection = 0
            await showPlace()
        case .character("x") where list == .tasks:
            guard let tasks = models.tasks?.tasks, tasks.indices.contains(listSelection), let model = models.task else { break }
            model.show(tasks[listSelection])
            if await model.setDone(!tasks[listSelection].isDone) == nil { notice = model.errorMessage }
            await models.tasks?.load()
        default: break
        }
        return .keepGoing
    }

    private func handleConflicts(_ key: Key) async -> Outcome {
        guard let conflicts = models.conflicts else {
            if key == .character("q") { return .quit }
            showsConflicts = false
            return .keepGoing
        }
        let count = openedFields?.count ?? conflicts.rows().count
        switch key {
        case .character("q"): return .quit
        case .up, .character("k"): conflictSelection = max(0, conflictSelection - 1)
        case .down, .character("j"): conflictSelection = min(max(0, count - 1), conflictSelection + 1)
        case .escape, .backspace, .character("C"):
            if openedFields != nil {
                openedFields = nil
                openedConflict = nil
                conflictSelection = 0
            } else {
                showsConflicts = false
            }
        case .enter where openedFields == nil:
            let rows = conflicts.rows()
            guard rows.indices.contains(conflictSelection) else { break }
            openedConflict = rows[conflictSelection]
            openedFields = await conflicts.open(rows[conflictSelection])
            fieldChoices = [:]
            conflictSelection = 0
            if openedFields == nil { notice = conflicts.errorMessage() }
        case .character("l"), .character("r"):
            guard let fields = openedFields, fields.indices.contains(conflictSelection), fields[conflictSelection].isClash else { break }
            fieldChoices[fields[conflictSelection].name] = key == .character("l") ? .local : .server
        case .character("w"):
            guard let fields = openedFields else { break }
            let undecided = fields.filter { $0.isClash && fieldChoices[$0.name] == nil }.map(\.name)
            guard undecided.isEmpty else {
                notice = "Choose a side for \(undecided.joined(separator: ", ")) first (l local, r server)."
                break
            }
            if let refusal = await conflicts.resolve(fieldChoices) {
                notice = refusal
            } else {
                notice = "Resolved \(openedConflict.map { "\($0.collection.rawValue)/\($0.id)" } ?? "the conflict"); queued for the next sync."
                openedFields = nil
                openedConflict = nil
                conflictSelection = 0
            }
            await models.syncStatus?.refresh()
        default: break
        }
        return .keepGoing
    }

    private func handlePending(_ key: Key) async -> Outcome {
        let count = models.pending?.rows().count ?? 0
        switch key {
        case .character("q"): return .quit
        case .escape, .backspace, .character("P"): showsPending = false
        case .up, .character("k"): pendingSelection = max(0, pendingSelection - 1)
        case .down, .character("j"): pendingSelection = min(max(0, count - 1), pendingSelection + 1)
        case .character("u"):
            guard let pending = models.pending, pending.rows().indices.contains(pendingSelection) else { break }
            notice = await pending.undo(pending.rows()[pendingSelection])
            pendingSelection = min(pendingSelection, max(0, pending.rows().count - 1))
            await models.syncStatus?.refresh()
        default: break
        }
        return .keepGoing
    }

    private func type(_ text: String) async {
        query = text
        await resetSelection()
    }

    // MARK: Moving

    private var currentPlace: Place? { models.router.current == nil ? nil : models.router.destination.value }

    private func move(by rows: Int) async {
        if models.router.current == nil {
            await move(to: selection.addingReportingOverflow(rows).partialValue)
        } else {
            let count = PlacePane.openable(currentPlace).count
            placeSelection = min(max(0, placeSelection + rows), max(0, count - 1))
        }
    }

    private func move(to index: Int) async {
        guard models.router.current == nil else {
            placeSelection = index == 0 ? 0 : max(0, PlacePane.openable(currentPlace).count - 1)
            return
        }
        let last = max(0, (models.library.totalMatches ?? models.library.books.count) - 1)
        selection = min(max(0, index), last)
        let top = models.library.offset
        if selection < top || selection >= top + listRows {
            let newTop = selection < top ? selection : selection - listRows + 1
            await reloadLibrary(top: newTop)
        }
    }

    private func resetSelection() async {
        selection = 0
        await reloadLibrary(top: 0, recount: true)
    }

    /// Reads the library's window; with `recount`, the counts follow in the background
    /// (a key's frame never waits for a count of 100,000 books) and redraw when they land.
    private func reloadLibrary(top: Int? = nil, recount: Bool = false) async {
        let order = Self.orders[orderIndex].order
        await models.library.show(
            query, unfinishedOnly: unfinishedOnly, order: order, offset: top ?? models.library.offset, rows: listRows)
        clampSelection()
        if recount || models.library.totalMatches == nil {
            counting?.cancel()
            counting = Task { @MainActor [weak self] in
                await self?.models.library.count()
                self?.clampSelection()
                self?.onBackgroundChange?()
            }
        }
    }

    private func clampSelection() {
        let known = models.library.totalMatches ?? (models.library.offset + models.library.books.count)
        if selection >= known { selection = max(0, known - 1) }
    }

    /// Waits for the background count of the library, if one runs (the first frame, tests).
    public func settle() async {
        await counting?.value
    }

    private var selectedBook: Book? {
        if models.router.current == nil {
            let index = selection - models.library.offset
            return models.library.books.indices.contains(index) ? models.library.books[index] : nil
        }
        if case .book(let book, _, _, _) = currentPlace { return book }
        return nil
    }

    private func openSelected() async {
        let route: Route?
        if models.router.current == nil {
            route = selectedBook.map { .book($0.id) }
        } else {
            let routes = PlacePane.openable(currentPlace)
            route = routes.indices.contains(placeSelection) ? routes[placeSelection] : nil
        }
        guard let route else { return }
        models.router.push(route)
        placeSelection = 0
        await showPlace()
    }

    /// Back one place; at the library, a search left on screen is cleared instead.
    private func back() async {
        guard models.router.pop() != nil else {
            if !query.isEmpty { await type("") }
            return
        }
        placeSelection = 0
        if models.router.current == nil {
            await reloadLibrary()
            await refreshTitles()
        } else {
            await showPlace()
        }
    }

    /// Loads the place on top; one whose record is gone pops itself with a notice.
    private func showPlace() async {
        await models.router.showDestination()
        await refreshTitles()
        if models.router.current != nil, case .failed(let message, _) = models.router.destination {
            models.router.pop()
            notice = message
            if models.router.current != nil { await showPlace() } else { await reloadLibrary() }
        }
    }

    private func refreshTitles() async {
        titles = await models.router.pathTitles()
    }

    // MARK: Intents

    private func toggleFavorite() {
        guard let book = selectedBook else { return }
        if !models.favorites.toggle(book.id) { notice = models.favorites.errorMessage }
    }

    private func toggleFinished() async {
        guard let book = selectedBook else { return }
        models.book.show(book)
        if await models.book.setFinished(!book.isFinished) == nil {
            notice = models.book.errorMessage
            return
        }
        if models.router.current == nil { await reloadLibrary() } else { await models.router.showDestination() }
    }

    private func startSync() {
        guard let sync = models.sync else {
            notice = "This account has no server to sync with."
            return
        }
        guard !isSyncing else { return }
        isSyncing = true
        syncLine = "Syncing…"
        syncRun = Task { @MainActor [weak self] in
            let summary = await sync { step in
                self?.syncLine = "Syncing: \(step)"
                self?.onBackgroundChange?()
            }
            guard let self else { return }
            isSyncing = false
            syncLine = summary
            await storeChanged()
            onBackgroundChange?()
        }
    }

    /// Another process (or the background sync) changed the store: the models on screen
    /// read again, and a place whose record was deleted pops itself.
    public func storeChanged() async {
        if models.router.current == nil {
            await reloadLibrary(recount: true)
        } else {
            await showPlace()
        }
        if showsPending { await models.pending?.load() }
        if showsToday { await models.readingProgress?.load() }
        if showsConflicts, openedFields == nil { await models.conflicts?.load() }
        if list == .notes { await models.notes?.load() }
        if list == .tasks { await models.tasks?.load() }
        await models.syncStatus?.refresh()
    }

    /// Ends the background work; the models' own work ends with their `cancel()`.
    public func close() {
        syncRun?.cancel()
        counting?.cancel()
        models.library.cancel()
    }

    // MARK: Drawing

    public func frame() -> Frame {
        var frame = Frame(size: size)
        drawPathBar(into: &frame)
        let body = 1..<max(1, size.rows - 1)
        if showsHelp {
            HelpPane().draw(into: &frame, rows: body)
        } else if showsPending {
            PendingPane(pending: models.pending, selection: pendingSelection).draw(into: &frame, rows: body)
        } else if let list {
            listPane(list).draw(into: &frame, rows: body)
        } else if showsConflicts {
            ConflictsPane(conflicts: models.conflicts, fields: openedFields, choices: fieldChoices, selection: conflictSelection)
                .draw(into: &frame, rows: body)
        } else if showsToday {
            TodayPane(model: models.readingProgress).draw(into: &frame, rows: body)
        } else if showsSyncStatus {
            SyncStatusPane(model: models.syncStatus, syncLine: syncLine, isSyncing: isSyncing).draw(into: &frame, rows: body)
        } else if models.router.current == nil {
            LibraryPane(
                library: models.library, favorites: models.favorites, query: query, isSearching: isSearching,
                selection: selection, orderName: Self.orders[orderIndex].name, unfinishedOnly: unfinishedOnly
            ).draw(into: &frame, rows: body)
        } else {
            PlacePane(destination: models.router.destination, favorites: models.favorites, selection: placeSelection)
                .draw(into: &frame, rows: body)
        }
        drawStatusLine(into: &frame)
        return frame
    }

    private func listPane(_ kind: ListKind) -> ListPane {
        switch kind {
        case .notes:
            let notes = models.notes?.visibleNotes ?? []
            return ListPane(
                title: "Notes (\(notes.count))", hint: "Enter opens a note", rows: notes.map { $0.title + ($0.body.isEmpty ? "" : " — " + $0.body) },
                empty: models.notes?.errorMessage ?? "No notes yet.", selection: listSelection)
        case .tasks:
            let tasks = models.tasks?.tasks ?? []
            return ListPane(
                title: "Tasks (\(models.tasks?.completedCount ?? 0) of \(tasks.count) done)", hint: "x done or not",
                rows: tasks.map { ($0.isDone ? "✓ " : "  ") + $0.title },
                empty: models.tasks?.errorMessage ?? "No reading tasks.", selection: listSelection)
        }
    }

    private func drawPathBar(into frame: inout Frame) {
        let bar = Style(foreground: .white, background: .blue, bold: true)
        frame.fill(row: 0, style: bar)
        let names = ["Library"] + models.router.path.map { route in
            switch route {
            case .book(let id): titles[route] ?? "book \(id)"
            case .note(let id): titles[route] ?? "note \(id)"
            case .author(let name): name
            }
        }
        // NB: the keys and the sync status are views over the place, not places: the
        // Router's path (and what `shelf where` says) does not change when they open.
        let conflictPath = ["Conflicts"] + (openedConflict.map { ["\($0.collection.rawValue)/\($0.id)"] } ?? [])
        let listName = list.map { $0 == .notes ? ["Notes"] : ["Tasks"] } ?? []
        let over = showsHelp ? ["Keys"] : !listName.isEmpty ? listName : showsConflicts ? conflictPath : showsPending ? ["Pending"] : showsToday ? ["Today"] : showsSyncStatus ? ["Sync"] : []
        frame.write(" " + (names + over).joined(separator: " › "), row: 0, column: 0, style: bar)
    }

    private func drawStatusLine(into frame: inout Frame) {
        let row = size.rows - 1
        guard row > 0 else { return }
        let text = notice ?? models.library.errorMessage ?? models.router.errorMessage ?? syncLine ?? statusText
        frame.write(" " + text, row: row, column: 0, style: notice == nil ? .dim : .bold)
        let hint = "? keys  q quit "
        frame.write(hint, row: row, column: max(0, frame.columns - hint.count), style: .dim)
    }

    private var statusText: String {
        guard let status = models.syncStatus?.status else { return "" }
        var parts: [String] = []
        parts.append(status.pendingChanges == 0 ? "nothing waiting" : "\(status.pendingChanges) waiting")
        if status.conflicts > 0 { parts.append("\(status.conflicts) conflict\(status.conflicts == 1 ? "" : "s")") }
        if status.deadLetters > 0 { parts.append("\(status.deadLetters) failed") }
        return parts.joined(separator: " · ")
    }
}
