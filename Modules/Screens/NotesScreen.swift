import Domain
import Foundation
import Presentation

// MARK: - NotesScreen

/// The notes as `shelf notes` shows them: the ones matching the query, each with the
/// first line of its body.
public struct NotesScreen: RenderableScreen, Hashable {
    /// How many terminal columns of a body the table shows; JSON has the whole body.
    public static let bodyExcerptWidth = 40

    public let state: ScreenStatus
    public let notes: [NoteView]
    /// How many notes there are in all; nil when a `--limit` list did not count them.
    public let totalCount: Int?
    public let query: String
    /// The book the notes are filtered to, when they are.
    public let bookID: String?
    public let error: String?
    private let hasValue: Bool
    /// More notes match than the list shows (`--limit` cut it).
    private let hasMore: Bool
    /// The id prefixes the table shows (JSON keeps full ids).
    private let shortIDs: ShortIDs
    /// The titles of the books the notes are about, shown next to their ids.
    private let bookTitles: [Book.ID: String]

    /// - Parameters:
    ///   - shortIDs: the prefixes of the notes' and their books' ids.
    ///   - bookTitles: what to show next to each book id.
    @MainActor
    public init(_ model: NotesViewModel, shortIDs: ShortIDs = .full, bookTitles: [Book.ID: String] = [:]) {
        self.shortIDs = shortIDs
        self.bookTitles = bookTitles
        state = ScreenStatus(model.state)
        notes = model.visibleNotes.map(NoteView.init)
        totalCount = model.totalCount
        query = model.query
        bookID = model.bookID
        error = model.errorMessage ?? model.state.failureMessage
        hasValue = model.state.hasValue
        hasMore = model.hasMore
    }

    // MARK: Text

    public func renderText(_ options: RenderOptions) -> String {
        var text = ScreenText(options)
        text.list(
            status: state, hasValue: hasValue, noun: "notes",
            table: notes.isEmpty ? nil : table, empty: emptyLine, summary: summary, error: error
        )
        return text.text
    }

    private var table: TextTable {
        var table = TextTable([.init("ID"), .init("BOOK"), .init("TITLE"), .init("BODY")])
        for note in notes {
            table.append([.init(shortIDs.shown(note.id, in: .notes)), .init(book(of: note), note.bookID == nil ? .quiet : nil),
                          .init(note.title), .init(TextWidth.excerpt(note.body, limit: Self.bodyExcerptWidth))])
        }
        return table
    }

    /// "3f2b1c9a Dune": the book's short id and title; "-" for a note about no book.
    private func book(of note: NoteView) -> String {
        guard let bookID = note.bookID else { return "-" }
        let shown = shortIDs.shown(bookID, in: .books)
        return bookTitles[bookID].map { "\(shown) \($0)" } ?? shown
    }

    private var isSearched: Bool { !query.trimmingCharacters(in: .whitespaces).isEmpty }

    private var filters: [String] {
        var filters: [String] = []
        if isSearched { filters.append("matching \"\(query)\"") }
        if let bookID { filters.append("about book \(bookID)") }
        return filters
    }

    private var summary: String {
        guard let totalCount else {
            // A limited list that did not count: what it shows, and that more match.
            let notes = filters + (hasMore ? ["more match than --limit \(self.notes.count) shows"] : [])
            return Wording.count(self.notes.count, "note") + " shown" + (notes.isEmpty ? "" : " (\(notes.joined(separator: "; ")))")
        }
        guard !filters.isEmpty else { return Wording.count(totalCount, "note") }
        return "\(notes.count) of \(Wording.count(totalCount, "note")) shown (\(filters.joined(separator: "; ")))"
    }

    private var emptyLine: String {
        if totalCount == 0 || filters.isEmpty { return "No notes yet." }
        if !isSearched, let bookID { return "No notes about book \(bookID)." }
        return "No notes match \"\(query)\"" + (bookID.map { " about book \($0)." } ?? ".")
    }

    // MARK: JSON

    private enum CodingKeys: String, CodingKey { case state, notes, totalCount, query, bookID, error }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(state, forKey: .state)
        try container.encode(notes, forKey: .notes)
        try container.encode(totalCount, forKey: .totalCount)
        try container.encode(query, forKey: .query)
        try container.encode(bookID, forKey: .bookID)
        try container.encode(error, forKey: .error)
    }
}
