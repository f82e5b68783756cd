// MARK: - Book

/// A book on the reader's shelf.
public struct Book: Identifiable, Hashable, Sendable, Codable {
    public typealias ID = String

    public let id: ID
    public private(set) var title: String
    public private(set) var author: String
    public var isFinished: Bool

    /// - Throws: `DomainError` when the id is malformed or the title or author is empty.
    public init(id: ID, title: String, author: String, isFinished: Bool = false) throws(DomainError) {
        self.id = try RecordID.validate(id)
        self.title = try TitleRule.validate(title)
        self.author = try TitleRule.validate(author, field: "author")
        self.isFinished = isFinished
    }

    public mutating func rename(to title: String) throws(DomainError) {
        self.title = try TitleRule.validate(title)
    }

    public mutating func setAuthor(_ author: String) throws(DomainError) {
        self.author = try TitleRule.validate(author, field: "author")
    }
}
