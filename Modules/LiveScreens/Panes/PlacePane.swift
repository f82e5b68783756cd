import Domain
import Presentation
import Terminal

// MARK: - PlacePane

/// The place on top of the Router's path, as `Router.destination` loaded it: a book with
/// its notes (favorite and finished read live from their view models, so an intent shows
/// at once), an author's books, or a note. Rows of a list are selectable; Enter opens one.
@MainActor
struct PlacePane {
    let destination: LoadingState<Place>
    let favorites: FavoritesViewModel
    let selection: Int

    /// The routes Enter can open from this place, in the order the rows list them.
    static func openable(_ place: Place?) -> [Route] {
        switch place {
        case .book(_, let notes, _, _): notes.map { .note($0.id) }
        case .author(_, let books, _): books.map { .book($0.id) }
        case .note(_, let book): book.map { [.book($0.id)] } ?? []
        case nil: []
        }
    }

    func draw(into frame: inout Frame, rows area: Range<Int>) {
        guard var row = area.first else { return }
        guard let place = destination.value else {
            let text = destination.isLoading ? "Loading…" : (destination.failureMessage ?? "Nothing here.")
            frame.write(text, row: row, column: 2, style: .dim)
            return
        }
        func line(_ text: String, _ style: Style = .plain, indent: Int = 2) {
            guard row < area.upperBound else { return }
            frame.write(text, row: row, column: indent, style: style)
            row += 1
        }
        func item(_ index: Int, _ text: String) {
            guard row < area.upperBound else { return }
            let selected = index == selection
            frame.writeListRow(fitting: text, row: row, selected: selected)
            row += 1
        }
        switch place {
        case .book(let book, let notes, let noteCount, _):
            line(book.title, .bold)
            line("by \(book.author)")
            line((book.isFinished ? "✓ finished" : "  not finished") + "   "
                 + (favorites.isFavorite(book.id) ? "★ favorite" : "  not a favorite"), .dim)
            row += 1
            line(noteCount == 0 ? "No notes about this book." : "Notes (\(noteCount))", .underlined)
            for (index, note) in notes.enumerated() { item(index, note.title + (note.body.isEmpty ? "" : " — " + note.body)) }
            if noteCount > notes.count { line("… and \(noteCount - notes.count) more", .dim) }
        case .author(let name, let books, let count):
            line(name, .bold)
            line("\(count) book\(count == 1 ? "" : "s")", .dim)
            row += 1
            for (index, book) in books.enumerated() {
                item(index, (favorites.isFavorite(book.id) ? "★" : " ") + (book.isFinished ? "✓ " : "  ") + book.title)
            }
        case .note(let note, let book):
            line(note.title, .bold)
            if let book { item(0, "about: \(book.title)") }
            row += 1
            for text in note.body.split(separator: "\n", omittingEmptySubsequences: false) { line(String(text)) }
        }
    }
}
