import Domain
import Presentation

// MARK: - The library and the path

/// Moving through the library's window and along the Router's path, and the intents on
/// the selected book.
extension LiveInterface {
    // MARK: Moving

    func move(by rows: Int) async {
        if models.router.current == nil {
            await move(to: selection.addingReportingOverflow(rows).partialValue)
        } else {
            let count = PlacePane.openable(currentPlace).count
            placeSelection = min(max(0, placeSelection + rows), max(0, count - 1))
        }
    }

    func move(to index: Int) async {
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

    func resetSelection() async {
        selection = 0
        await reloadLibrary(top: 0, recount: true)
    }

    /// Reads the library's window; with `recount`, the counts follow in the background
    /// (a key's frame never waits for a count of 100,000 books) and redraw when they land:
    /// the frame read `totalMatches`, so Observation asks for the redraw.
    func reloadLibrary(top: Int? = nil, recount: Bool = false) async {
        let order = Self.orders[orderIndex].order
        await models.library.show(
            query, unfinishedOnly: unfinishedOnly, order: order, offset: top ?? models.library.offset, rows: listRows)
        clampSelection()
        if recount || models.library.totalMatches == nil {
            counting?.cancel()
            counting = Task { @MainActor [weak self] in
                await self?.models.library.count()
                self?.clampSelection()
            }
        }
    }

    private func clampSelection() {
        let known = models.library.totalMatches ?? (models.library.offset + models.library.books.count)
        if selection >= known { selection = max(0, known - 1) }
    }

    var selectedBook: Book? {
        if models.router.current == nil {
            let index = selection - models.library.offset
            return models.library.books.indices.contains(index) ? models.library.books[index] : nil
        }
        if case .book(let book, _, _, _) = currentPlace { return book }
        return nil
    }

    // MARK: The path

    func openSelected() async {
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
    func back() async {
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
    func showPlace() async {
        await models.router.showDestination()
        await refreshTitles()
        if models.router.current != nil, case .failed(let message, _) = models.router.destination {
            models.router.pop()
            notice = message
            if models.router.current != nil { await showPlace() } else { await reloadLibrary() }
        }
    }

    func refreshTitles() async {
        titles = await models.router.pathTitles()
    }

    // MARK: Intents on the selected book

    func toggleFavorite() {
        guard let book = selectedBook else { return }
        if !models.favorites.toggle(book.id) { notice = models.favorites.errorMessage }
    }

    func toggleFinished() async {
        guard let book = selectedBook else { return }
        models.book.show(book)
        if await models.book.setFinished(!book.isFinished) == nil {
            notice = models.book.errorMessage
            return
        }
        await refreshShown()
    }

    /// The library's window or the place read again, after an intent changed a record.
    func refreshShown() async {
        if models.router.current == nil { await reloadLibrary() } else { await models.router.showDestination() }
        await refreshTitles()
    }
}
