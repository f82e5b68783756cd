import Domain

// MARK: - BookDetailScreen

/// One book as `shelf book show` prints it: every field, and whether it is a favorite.
public struct BookDetailScreen: RenderableScreen, Hashable {
    public let book: BookView
    public let isFavorite: Bool

    public init(_ book: Book, isFavorite: Bool) {
        self.book = BookView(book)
        self.isFavorite = isFavorite
    }

    public func renderText(_ options: RenderOptions) -> String {
        var text = ScreenText(options)
        var table = TextTable([.init("FIELD"), .init("VALUE")])
        table.append("id", book.id)
        table.append("title", book.title)
        table.append("author", book.author)
        table.append([.init("finished"), .init(Wording.yesNo(book.isFinished), book.isFinished ? .positive : nil)])
        table.append("favorite", Wording.yesNo(isFavorite))
        text.table(table)
        return text.text
    }

    private enum CodingKeys: String, CodingKey { case book, isFavorite }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(book, forKey: .book)
        try container.encode(isFavorite, forKey: .isFavorite)
    }
}

// MARK: - NoteDetailScreen

/// One note as `shelf note show` prints it: its fields, then the whole body.
public struct NoteDetailScreen: RenderableScreen, Hashable {
    public let note: NoteView

    public init(_ note: Note) {
        self.note = NoteView(note)
    }

    public func renderText(_ options: RenderOptions) -> String {
        var text = ScreenText(options)
        var table = TextTable([.init("FIELD"), .init("VALUE")])
        table.append("id", note.id)
        table.append([.init("book"), .init(note.bookID ?? "-", note.bookID == nil ? .quiet : nil)])
        table.append("title", note.title)
        text.table(table)
        if !note.body.isEmpty {
            text.line("")
            // NB: each line is sanitized on its own, so the body keeps its line breaks.
            for line in note.body.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline) {
                text.line(String(line))
            }
        }
        return text.text
    }

    private enum CodingKeys: String, CodingKey { case note }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(note, forKey: .note)
    }
}
