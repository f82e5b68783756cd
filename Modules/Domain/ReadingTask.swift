// MARK: - ReadingTask

/// A reading to-do ("finish chapter 3"). Not named `Task`: that would shadow Swift's.
public struct ReadingTask: Identifiable, Hashable, Sendable, Codable {
    public typealias ID = String

    public let id: ID
    public private(set) var title: String
    public var isDone: Bool

    public init(id: ID, title: String, isDone: Bool = false) throws(DomainError) {
        self.id = try RecordID.validate(id)
        self.title = try TitleRule.validate(title)
        self.isDone = isDone
    }

    public mutating func rename(to title: String) throws(DomainError) {
        self.title = try TitleRule.validate(title)
    }
}
