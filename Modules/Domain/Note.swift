// MARK: - Note

/// A reader's note, optionally attached to a book.
public struct Note: Identifiable, Hashable, Sendable, Codable {
    public typealias ID = String

    public let id: ID
    public var bookID: Book.ID?
    public private(set) var title: String
    public var body: String

    /// - Throws: `DomainError` when an id is malformed or the title is empty.
    public init(id: ID, bookID: Book.ID? = nil, title: String, body: String = "") throws(DomainError) {
        self.id = try RecordID.validate(id)
        self.bookID = try bookID.map { (id) throws(DomainError) in try RecordID.validate(id) }
        self.title = try TitleRule.validate(title)
        self.body = body
    }

    public mutating func rename(to title: String) throws(DomainError) {
        self.title = try TitleRule.validate(title)
    }
}

// MARK: - NoteBodyRule

/// What a note the reader writes must say: something. Every way a body reaches a write
/// (`--body`, standard input, the editor, `shelf ui`, an import) is held to it, so an
/// empty note is refused the same way on each (exit 65, nothing written).
///
/// NB: `Note` itself accepts an empty body: a note another client wrote that way must
/// still read; the rule is for what is written here.
public enum NoteBodyRule {
    /// - Returns: `body` as it is (its spacing is the reader's).
    /// - Throws: `DomainError.emptyBody` when it holds nothing but white space.
    public static func validate(_ body: String) throws(DomainError) -> String {
        guard body.unicodeScalars.contains(where: { !$0.properties.isWhitespace }) else { throw .emptyBody }
        return body
    }
}
