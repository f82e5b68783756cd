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
