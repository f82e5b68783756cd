import Domain

// MARK: - FakeReadingLogService

/// A `ReadingLogService` over in-memory sessions, scripted like `FakeTaskService`.
public actor FakeReadingLogService: ReadingLogService {
    public private(set) var stored: [ReadingSession]
    public private(set) var loadCount = 0
    /// Every logged session, in order: "log <minutes> <day> <book id or ->".
    public private(set) var writes: [String] = []

    private var loadReplies = ReplyQueue<[ReadingSession]>()
    private var writeReplies = ReplyQueue<Void>()
    private var nextNumber = 1

    public init(sessions: [ReadingSession] = []) {
        stored = sessions
    }

    public func enqueueLoad(_ reply: FakeReply<[ReadingSession]>) {
        loadReplies.enqueue(reply)
    }

    public func enqueueWrite(_ reply: FakeReply<Void>) {
        writeReplies.enqueue(reply)
    }

    // MARK: ReadingLogService

    public func sessions(forceRefresh: Bool) async throws -> [ReadingSession] {
        loadCount += 1
        if let reply = loadReplies.next() { return try await reply.resolve() }
        return stored
    }

    public func logSession(minutes: Int, day: ReadingDay, bookID: Book.ID?) async throws -> ReadingSession {
        writes.append("log \(minutes) \(day) \(bookID ?? "-")")
        try await writeReplies.next()?.resolve()
        let session = try ReadingSession(id: "session-new-\(nextNumber)", minutes: minutes, day: day, bookID: bookID)
        nextNumber += 1
        stored.append(session)
        return session
    }
}
