import Domain
import Observation
import Presentation
import Terminal

// MARK: - Drawing

/// The frame: the path bar, the view or place under it, and the status line (or the
/// prompt being edited). Everything drawn is read from the models and this interface's
/// own state, both `@Observable`.
extension LiveInterface {
    /// The frame, drawn while Observation records every model property it reads; the first
    /// change to any of them calls `onChange` once (on the thread that changes it, before
    /// the value is set), so the owner can draw again when it next runs. How a background
    /// change — a count landing, a sync's step, a model read again after another process
    /// wrote — reaches the screen without a key.
    public func observedFrame(onChange: @escaping @Sendable () -> Void) -> Frame {
        withObservationTracking { frame() } onChange: { onChange() }
    }

    public func frame() -> Frame {
        var frame = Frame(size: size)
        drawPathBar(into: &frame)
        let body = 1..<max(1, size.rows - 1)
        if let overlay {
            draw(overlay, into: &frame, rows: body)
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

    // MARK: The views

    private func draw(_ overlay: Overlay, into frame: inout Frame, rows body: Range<Int>) {
        let index = overlaySelection
        switch overlay {
        case .keys: HelpPane().draw(into: &frame, rows: body)
        case .syncStatus: SyncStatusPane(model: models.syncStatus, syncLine: syncLine, isSyncing: isSyncing).draw(into: &frame, rows: body)
        case .pending: PendingPane(pending: models.pending, selection: index).draw(into: &frame, rows: body)
        case .failed: failedPane().draw(into: &frame, rows: body)
        case .conflicts:
            ConflictsPane(conflicts: models.conflicts, fields: openedConflict?.fields, choices: openedConflict?.choices ?? [:], selection: index)
                .draw(into: &frame, rows: body)
        case .notes, .tasks, .favorites: listPane(overlay).draw(into: &frame, rows: body)
        case .products: ProductsPane(model: models.products, selection: index).draw(into: &frame, rows: body)
        case .cart: CartPane(model: models.cart, selection: index).draw(into: &frame, rows: body)
        case .today: TodayPane(model: models.readingProgress).draw(into: &frame, rows: body)
        }
    }

    private func failedPane() -> ListPane {
        let empty = models.failed.map { $0.isLoading() ? "Reading the refused changes…" : ($0.errorMessage() ?? "The server refused nothing.") }
            ?? "Nothing is refused on this account."
        return ListPane(
            title: "Refused by the server", hint: "r sends it again, d discards it (the server's version comes back)",
            rows: (models.failed?.rows() ?? []).map { "#\($0.id)  \($0.text)" }, empty: empty, selection: overlaySelection)
    }

    private func listPane(_ overlay: Overlay) -> ListPane {
        switch overlay {
        case .notes:
            let notes = models.notes?.visibleNotes ?? []
            return ListPane(
                title: "Notes (\(notes.count))", hint: "Enter opens a note",
                rows: notes.map { $0.title + ($0.body.isEmpty ? "" : " — " + $0.body) },
                empty: models.notes?.errorMessage ?? "No notes yet.", selection: overlaySelection)
        case .tasks:
            let tasks = models.tasks?.tasks ?? []
            return ListPane(
                title: "Tasks (\(models.tasks?.completedCount ?? 0) of \(tasks.count) done)", hint: "x done or not",
                rows: tasks.map { ($0.isDone ? "✓ " : "  ") + $0.title },
                empty: models.tasks?.errorMessage ?? "No reading tasks.", selection: overlaySelection)
        default:
            let books = models.favoriteBooks?.books ?? []
            return ListPane(
                title: "Favorites (\(books.count))", hint: "Enter opens a book, f takes it off",
                rows: books.map { ($0.isFinished ? "✓ " : "  ") + $0.title + " — " + $0.author },
                empty: models.favoriteBooks?.errorMessage ?? "No favorites yet (f on a book).", selection: overlaySelection)
        }
    }

    // MARK: The bars

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
        // NB: a view is shown over the place, not a place: the Router's path (and what
        // `shelf where` says) does not change when one opens.
        let opened = openedConflict.map { ["\($0.row.collection.rawValue)/\($0.row.id)"] } ?? []
        let over = overlay.map { [$0.name] + ($0 == .conflicts ? opened : []) } ?? []
        frame.write(" " + (names + over).joined(separator: " › "), row: 0, column: 0, style: bar)
    }

    private func drawStatusLine(into frame: inout Frame) {
        let row = size.rows - 1
        guard row > 0 else { return }
        if let prompt {
            drawPrompt(prompt, into: &frame, row: row)
            return
        }
        let text = notice ?? models.library.errorMessage ?? models.router.errorMessage ?? syncLine ?? statusText
        frame.write(" " + text, row: row, column: 0, style: notice == nil ? .dim : .bold)
        let hint = "? keys  q quit "
        frame.write(hint, row: row, column: max(0, frame.columns - DisplayWidthText.columns(hint)), style: .dim)
    }

    /// `Label: text` with the cursor as a reversed cell, scrolled to keep it in view.
    private func drawPrompt(_ prompt: Prompt, into frame: inout Frame, row: Int) {
        let label = " " + FittedText.fit(prompt.label, min(DisplayWidthText.columns(prompt.label), frame.columns / 2)) + ": "
        let labelWidth = DisplayWidthText.columns(label)
        frame.write(label, row: row, column: 0, style: .bold)
        let shown = prompt.editor.visible(in: frame.columns - labelWidth - 1)
        frame.write(shown.text, row: row, column: labelWidth)
        let under = cursorCharacter(shown.text, at: shown.cursorColumn) ?? " "
        frame.write(String(under), row: row, column: labelWidth + shown.cursorColumn, style: .reversed)
    }

    /// The character drawn at `column` of `text`, if one starts there.
    private func cursorCharacter(_ text: String, at column: Int) -> Character? {
        var used = 0
        for character in text {
            if used == column { return character }
            used += DisplayWidthText.columns(String(character))
            if used > column { return nil }
        }
        return nil
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
