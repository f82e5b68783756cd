import Domain
import Records

// MARK: - ReadingTaskDTO

/// `tasks` record: `{id, title, done, last_modified}`.
public struct ReadingTaskDTO: WritableRecordDTO, Hashable {
    public static let collection = CollectionName.tasks

    public var id: String
    public var title: String
    public var done: Bool
    public var lastModified: Int?

    typealias CodingKeys = ReadingTaskFields

    public init(id: String, title: String, done: Bool, lastModified: Int? = nil) {
        self.id = id
        self.title = title
        self.done = done
        self.lastModified = lastModified
    }

    public init(_ task: ReadingTask) {
        self.init(id: task.id, title: task.title, done: task.isDone)
    }

    public func toDomain() throws(DomainError) -> ReadingTask {
        try ReadingTask(id: id, title: title, isDone: done)
    }
}
