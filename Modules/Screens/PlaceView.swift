import Domain

// MARK: - PlaceView

/// What a place shows: a book with its notes and favorite state, an author's books,
/// a note with its book.
public enum PlaceView: Encodable, Hashable, Sendable {
    case book(BookView, notes: [NoteView], noteCount: Int, isFavorite: Bool)
    case author(String, books: [BookView], bookCount: Int)
    case note(NoteView, book: BookView?)

    public init(_ place: Place) {
        switch place {
        case .book(let book, let notes, let noteCount, let isFavorite):
            self = .book(BookView(book), notes: notes.map(NoteView.init), noteCount: noteCount, isFavorite: isFavorite)
        case .author(let name, let books, let bookCount):
            self = .author(name, books: books.map(BookView.init), bookCount: bookCount)
        case .note(let note, let book):
            self = .note(NoteView(note), book: book.map(BookView.init))
        }
    }

    /// The book ids and note ids it shows, for their short forms.
    public var bookIDs: [String] {
        switch self {
        case .book(let book, _, _, _): [book.id]
        case .author(_, let books, _): books.map(\.id)
        case .note(_, let book): book.map { [$0.id] } ?? []
        }
    }

    public var noteIDs: [String] {
        switch self {
        case .book(_, let notes, _, _): notes.map(\.id)
        case .author: []
        case .note(let note, _): [note.id]
        }
    }

    // MARK: Text

    func render(into text: inout ScreenText, shortIDs: ShortIDs) {
        switch self {
        case .book(let book, let notes, let noteCount, let isFavorite):
            text.line("Book: \(book.title)", .header)
            var fields = TextTable([.init("FIELD"), .init("VALUE")])
            fields.append("id", book.id)
            fields.append("author", book.author)
            fields.append([.init("finished"), .init(Wording.yesNo(book.isFinished), book.isFinished ? .positive : nil)])
            fields.append("favorite", Wording.yesNo(isFavorite))
            text.table(fields)
            text.line("")
            guard !notes.isEmpty else {
                text.line("No notes about this book.", .quiet)
                return
            }
            var table = TextTable([.init("NOTE"), .init("TITLE"), .init("BODY")])
            for note in notes {
                table.append(shortIDs.shown(note.id, in: .notes), note.title,
                             TextWidth.excerpt(note.body, limit: NotesScreen.bodyExcerptWidth))
            }
            text.table(table)
            text.line(Self.shownOf(notes.count, noteCount, "note"), .quiet)
        case .author(let name, let books, let bookCount):
            text.line("Author: \(name)", .header)
            var table = TextTable([.init("BOOK"), .init("TITLE"), .init("FINISHED")])
            for book in books {
                table.append([.init(shortIDs.shown(book.id, in: .books)), .init(book.title),
                              .init(Wording.yesNo(book.isFinished), book.isFinished ? .positive : nil)])
            }
            text.table(table)
            text.line(Self.shownOf(books.count, bookCount, "book"), .quiet)
        case .note(let note, let book):
            text.line("Note: \(note.title)", .header)
            var fields = TextTable([.init("FIELD"), .init("VALUE")])
            fields.append("id", note.id)
            if let book {
                fields.append("book", "\(shortIDs.shown(book.id, in: .books)) \(book.title)")
            } else {
                fields.append([.init("book"), .init(note.bookID.map { "\($0) (not on the shelf)" } ?? "-", .quiet)])
            }
            text.table(fields)
            if !note.body.isEmpty {
                text.line("")
                for line in note.body.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline) {
                    text.line(String(line))
                }
            }
        }
    }

    /// "3 notes", or "50 of 72 notes shown".
    private static func shownOf(_ shown: Int, _ total: Int, _ noun: String) -> String {
        shown == total ? Wording.count(total, noun) : "\(shown) of \(Wording.count(total, noun)) shown"
    }

    // MARK: JSON

    private enum CodingKeys: String, CodingKey { case kind, book, notes, noteCount, isFavorite, author, books, bookCount, note }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .book(let book, let notes, let noteCount, let isFavorite):
            try container.encode("book", forKey: .kind)
            try container.encode(book, forKey: .book)
            try container.encode(notes, forKey: .notes)
            try container.encode(noteCount, forKey: .noteCount)
            try container.encode(isFavorite, forKey: .isFavorite)
        case .author(let name, let books, let bookCount):
            try container.encode("author", forKey: .kind)
            try container.encode(name, forKey: .author)
            try container.encode(books, forKey: .books)
            try container.encode(bookCount, forKey: .bookCount)
        case .note(let note, let book):
            try container.encode("note", forKey: .kind)
            try container.encode(note, forKey: .note)
            try container.encode(book, forKey: .book)
        }
    }
}
