import Domain

// MARK: - FakeTaskService

/// A `TaskService` over in-memory tasks, scripted like `FakeBookService`.
public actor FakeTaskService: TaskService {
    public private(set) var stored: [ReadingTask]
    public private(set) var loadCount = 0
    /// Every write, in order: "add <title>", "update <id>", "delete <id>".
    public private(set) var writes: [String] = []

    private var loadReplies = ReplyQueue<[ReadingTask]>()
    private var writeReplies = ReplyQueue<Void>()
    private var nextNumber = 1

    public init(tasks: [ReadingTask] = []) {
        stored = tasks
    }

    public func enqueueLoad(_ reply: FakeReply<[ReadingTask]>) {
        loadReplies.enqueue(reply)
    }

    public func enqueueWrite(_ reply: FakeReply<Void>) {
        writeReplies.enqueue(reply)
    }

    // MARK: TaskService

    public func tasks() async throws -> [ReadingTask] {
        loadCount += 1
        if let reply = loadReplies.next() { return try await reply.resolve() }
        return stored
    }

    public func addTask(title: String) async throws -> ReadingTask {
        writes.append("add \(title)")
        try await writeReplies.next()?.resolve()
        let task = try ReadingTask(id: "task-new-\(nextNumber)", title: title)
        nextNumber += 1
        stored.append(task)
        return task
    }

    public func updateTask(_ task: ReadingTask) async throws {
        writes.append("update \(task.id)")
        try await writeReplies.next()?.resolve()
        stored = stored.map { $0.id == task.id ? task : $0 }
    }

    public func deleteTask(id: ReadingTask.ID) async throws {
        writes.append("delete \(id)")
        try await writeReplies.next()?.resolve()
        stored.removeAll { $0.id == id }
    }
}
