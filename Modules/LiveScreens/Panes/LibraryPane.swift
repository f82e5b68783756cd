import Domain
import Presentation
import Terminal

// MARK: - LibraryPane

/// The library as a list: the search line, then one row per book of the window the
/// `BookWindowViewModel` read (favorites marked ★, finished ✓), the selection reversed
/// and marked › (so it shows without colour or reverse video too).
@MainActor
struct LibraryPane {
    let library: BookWindowViewModel
    let favorites: FavoritesViewModel
    let query: String
    let isSearching: Bool
    let selection: Int
    let orderName: String
    let unfinishedOnly: Bool

    /// Draws rows `area` of `frame`.
    func draw(into frame: inout Frame, rows area: Range<Int>) {
        guard let first = area.first else { return }
        let columns = frame.columns
        let search = isSearching ? "/\(query)▏" : (query.isEmpty ? "/ to search" : "/\(query)")
        let counts = countsText
        let filter = "order: \(orderName)  \(unfinishedOnly ? "unfinished" : "all")  \(counts)"
        frame.write(search, row: first, column: 1, style: isSearching ? .bold : .dim)
        let filterColumn = max(DisplayWidthText.columns(search) + 3, columns - DisplayWidthText.columns(filter) - 1)
        frame.write(filter, row: first, column: filterColumn, style: .dim)

        let listRows = area.dropFirst()
        let books = library.books
        if books.isEmpty, let listRow = listRows.first {
            let empty = library.state.isLoading ? "Searching…" : (query.isEmpty ? "No books on the shelf yet." : "No book matches '\(query)'.")
            frame.write(empty, row: listRow, column: 2, style: .dim)
            return
        }
        let authorWidth = max(8, (columns - 8) / 3)
        let titleWidth = max(8, columns - 8 - authorWidth - 2)
        for (index, row) in listRows.enumerated() {
            guard index < books.count else { break }
            let book = books[index]
            let selected = library.offset + index == selection
            let mark = (favorites.isFavorite(book.id) ? "★" : " ") + (book.isFinished ? "✓" : " ")
            let line = "\(mark) " + FittedText.fit(book.title, titleWidth) + "  " + FittedText.fit(book.author, authorWidth)
            frame.writeListRow(line, row: row, selected: selected)
        }
    }

    private var countsText: String {
        guard let total = library.totalMatches else { return "" }
        let position = total == 0 ? 0 : min(selection + 1, total)
        if let books = library.totalBooks, books != total { return "\(position)/\(total) of \(books)" }
        return "\(position)/\(total)"
    }
}
