import Domain
import Presentation
import Terminal

// MARK: - Keys

/// What each key does: on the prompt line, in the search, over a view, or at the place on
/// top of the path. The table `?` shows is `KeyBindings`.
extension LiveInterface {
    /// Keys that only move the selection and can write nothing.
    static func onlyMoves(_ key: Key) -> Bool {
        switch key {
        case .up, .down, .pageUp, .pageDown, .home, .end, .character("k"), .character("j"), .character("g"), .character("G"): true
        default: false
        }
    }

    func handle(_ key: Key) async -> Outcome {
        if prompt != nil {
            await handlePrompt(key)
            return .keepGoing
        }
        if key == .control("c") { return .quit }
        if overlay == .keys {
            overlay = nil
            return .keepGoing
        }
        if isSearching { return await handleSearching(key) }
        notice = nil
        if let overlay { return await handle(key, over: overlay) }
        return await handlePlace(key)
    }

    // MARK: The library and the places

    private func handlePlace(_ key: Key) async -> Outcome {
        let atLibrary = models.router.current == nil
        switch key {
        case .character("q"): return .quit
        case .character("/") where atLibrary: isSearching = true
        case .up, .character("k"): await move(by: -1)
        case .down, .character("j"): await move(by: 1)
        case .pageUp: await move(by: -listRows)
        case .pageDown: await move(by: listRows)
        case .character("g"), .home: await move(to: 0)
        case .character("G"), .end: await move(to: Int.max)
        case .enter: await openSelected()
        case .escape, .backspace: await back()
        case .character("o") where atLibrary:
            orderIndex = (orderIndex + 1) % Self.orders.count
            await resetSelection()
        case .character("u") where atLibrary:
            unfinishedOnly.toggle()
            await resetSelection()
        case .character("f"): toggleFavorite()
        case .character("x"): await toggleFinished()
        case .character("e"): beginEditing()
        case .character("n"): beginNewNote()
        case .character("E"): await editBodyInEditor()
        case .character("s"): startSync()
        default:
            if let opened = Overlay.opened(by: key) { await open(opened) }
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

    func type(_ text: String) async {
        query = text
        await resetSelection()
    }

    // MARK: Views over the place

    /// Opens a view and reads what it shows.
    func open(_ overlay: Overlay) async {
        self.overlay = overlay
        overlaySelection = 0
        openedConflict = nil
        await load(overlay, refreshing: false)
    }

    /// Reads what a view shows; `refreshing` (another process changed the store) keeps
    /// an opened conflict as it is, with the sides chosen.
    func load(_ overlay: Overlay, refreshing: Bool) async {
        switch overlay {
        case .keys: break
        case .syncStatus: await models.syncStatus?.refresh()
        case .pending: await models.pending?.load()
        case .failed: await models.failed?.load()
        case .conflicts: if !(refreshing && openedConflict != nil) { await models.conflicts?.load() }
        case .notes: await models.notes?.load()
        case .tasks: await models.tasks?.load()
        case .favorites: await models.favoriteBooks?.load(ids: models.favorites.favoriteIDs)
        case .products:
            // NB: the cart too: adding reads the quantity the cart already holds.
            await models.products?.load(force: refreshing)
            await models.cart?.load()
        case .cart: await models.cart?.load()
        case .today: await models.readingProgress?.load()
        }
        overlaySelection = min(overlaySelection, max(0, rowCount(of: overlay) - 1))
    }

    /// The rows a view lists (what the selection moves over).
    func rowCount(of overlay: Overlay) -> Int {
        switch overlay {
        case .keys, .syncStatus, .today: 0
        case .pending: models.pending?.rows().count ?? 0
        case .failed: models.failed?.rows().count ?? 0
        case .conflicts: openedConflict?.fields.count ?? models.conflicts?.rows().count ?? 0
        case .notes: models.notes?.visibleNotes.count ?? 0
        case .tasks: models.tasks?.tasks.count ?? 0
        case .favorites: models.favoriteBooks?.books.count ?? 0
        case .products: models.products?.visibleProducts.count ?? 0
        case .cart: models.cart?.lines.count ?? 0
        }
    }

    private func handle(_ key: Key, over overlay: Overlay) async -> Outcome {
        let last = max(0, rowCount(of: overlay) - 1)
        if overlay == .pending, key != .character("u"), key != .character("r") { models.pending?.disarm() }
        switch key {
        case .character("q"): return .quit
        case .escape, .backspace, overlay.key:
            if openedConflict != nil {
                openedConflict = nil
                overlaySelection = 0
            } else {
                self.overlay = nil
            }
        case .up, .character("k"): overlaySelection = max(0, overlaySelection - 1)
        case .down, .character("j"): overlaySelection = min(last, overlaySelection + 1)
        case .pageUp: overlaySelection = max(0, overlaySelection - listRows)
        case .pageDown: overlaySelection = min(last, overlaySelection + listRows)
        case .character("g"), .home: overlaySelection = 0
        case .character("G"), .end: overlaySelection = last
        case .character("s"): startSync()
        default:
            if await act(on: key, in: overlay) { break }
            if let other = Overlay.opened(by: key) { await open(other) }
        }
        return .keepGoing
    }

    /// The keys a view gives a meaning of its own; false when `key` has none there.
    private func act(on key: Key, in overlay: Overlay) async -> Bool {
        let index = overlaySelection
        switch (overlay, key) {
        case (.pending, .character("u")), (.pending, .character("r")):
            guard let pending = models.pending else { return true }
            let outcome: PendingChanges.Outcome
            if key == .character("r") {
                outcome = await pending.redo()
            } else {
                guard pending.rows().indices.contains(index) else { return true }
                outcome = await pending.undo(pending.rows()[index])
            }
            switch outcome {
            case .done(let line): notice = line
            case .needsConfirmation(let reasons):
                notice = "This \(key == .character("r") ? "redo" : "undo") \(reasons.joined(separator: "; ")). "
                    + "Press \(key == .character("r") ? "r" : "u") again to do it."
            case .refused(let reason): notice = reason
            }
            await afterDecision(in: overlay)
        case (.failed, .character("r")), (.failed, .character("d")):
            guard let failed = models.failed, failed.rows().indices.contains(index) else { return true }
            let row = failed.rows()[index]
            let retrying = key == .character("r")
            let refusal = retrying ? await failed.retry(row) : await failed.discard(row)
            notice = refusal ?? (retrying ? "Queued again for the next sync." : "Discarded; the server's version is back.")
            await afterDecision(in: overlay)
        case (.conflicts, _):
            return await actOnConflict(key)
        case (.notes, .enter):
            guard let notes = models.notes?.visibleNotes, notes.indices.contains(index) else { return true }
            await push(.note(notes[index].id))
        case (.tasks, .character("x")):
            guard let tasks = models.tasks?.tasks, tasks.indices.contains(index), let model = models.task else { return true }
            model.show(tasks[index])
            if await model.setDone(!tasks[index].isDone) == nil { notice = model.errorMessage }
            await models.tasks?.load()
        case (.favorites, .enter):
            guard let books = models.favoriteBooks?.books, books.indices.contains(index) else { return true }
            await push(.book(books[index].id))
        case (.favorites, .character("f")):
            guard let books = models.favoriteBooks?.books, books.indices.contains(index) else { return true }
            if !models.favorites.set(books[index].id, favorite: false) { notice = models.favorites.errorMessage }
            await load(.favorites, refreshing: true)
        case (.products, .character("a")), (.products, .enter):
            guard let products = models.products?.visibleProducts, products.indices.contains(index), let cart = models.cart else {
                return true
            }
            notice = await cart.add(productID: products[index].id)
                ? "\(products[index].name) is in the cart (c shows it)." : cart.errorMessage
        case (.cart, .character("+")), (.cart, .character("-")), (.cart, .character("d")):
            guard let cart = models.cart, cart.lines.indices.contains(index) else { return true }
            let line = cart.lines[index]
            let quantity = key == .character("+") ? line.quantity + 1 : key == .character("-") ? line.quantity - 1 : 0
            let changed = quantity > 0
                ? await cart.setQuantity(quantity, of: line.productID) : await cart.remove(productID: line.productID)
            if !changed { notice = cart.errorMessage }
            overlaySelection = min(overlaySelection, max(0, cart.lines.count - 1))
        default:
            return false
        }
        return true
    }

    /// After a decision about a change: the view and the status line read again.
    private func afterDecision(in overlay: Overlay) async {
        overlaySelection = min(overlaySelection, max(0, rowCount(of: overlay) - 1))
        await models.syncStatus?.refresh()
    }

    /// Closes the view and opens a place on top of the path.
    private func push(_ route: Route) async {
        overlay = nil
        models.router.push(route)
        placeSelection = 0
        await showPlace()
    }

    // MARK: A conflict

    private func actOnConflict(_ key: Key) async -> Bool {
        guard let conflicts = models.conflicts else { return false }
        switch key {
        case .enter where openedConflict == nil:
            let rows = conflicts.rows()
            guard rows.indices.contains(overlaySelection) else { return true }
            if let fields = await conflicts.open(rows[overlaySelection]) {
                openedConflict = OpenedConflict(row: rows[overlaySelection], fields: fields)
                overlaySelection = 0
            } else {
                notice = conflicts.errorMessage()
            }
        case .character("l"), .character("r"):
            guard let opened = openedConflict, opened.fields.indices.contains(overlaySelection),
                  opened.fields[overlaySelection].isClash else { return true }
            openedConflict?.choices[opened.fields[overlaySelection].name] = key == .character("l") ? .local : .server
        case .character("w"):
            guard let opened = openedConflict else { return true }
            guard opened.undecided.isEmpty else {
                notice = "Choose a side for \(opened.undecided.joined(separator: ", ")) first (l local, r server)."
                return true
            }
            if let refusal = await conflicts.resolve(opened.choices) {
                notice = refusal
            } else {
                notice = "Resolved \(opened.row.collection.rawValue)/\(opened.row.id); queued for the next sync."
                openedConflict = nil
                overlaySelection = 0
            }
            await models.syncStatus?.refresh()
        default:
            return false
        }
        return true
    }
}
