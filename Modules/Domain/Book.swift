// MARK: - Book

/// A book on the reader's shelf.
public struct Book: Identifiable, Hashable, Sendable, Codable {
    public typealias ID = String

    public let id: ID
    public private(set) var title: String
    public private(set) var author: String
    public var isFinished: Bool

    /// - Parameter author: trimmed; may be empty (an anthology, a book whose author the
    ///   reader does not know).
    /// - Throws: `DomainError` when the id is malformed or the title is empty.
    public init(id: ID, title: String, author: String = "", isFinished: Bool = false) throws(DomainError) {
        self.id = try RecordID.validate(id)
        self.title = try TitleRule.validate(title)
        self.author = TitleRule.trimmed(author)
        self.isFinished = isFinished
    }

    public mutating func rename(to title: String) throws(DomainError) {
        self.title = try TitleRule.validate(title)
    }

    /// Sets the author, trimmed; an empty one is allowed.
    public mutating func setAuthor(_ author: String) {
        self.author = TitleRule.trimmed(author)
    }
}
