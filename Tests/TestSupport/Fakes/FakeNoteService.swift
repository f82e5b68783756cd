import Domain

// MARK: - FakeNoteService

/// A `NoteService` over in-memory notes, scripted like `FakeBookService`.
public actor FakeNoteService: NoteService {
    public private(set) var stored: [Note]
    public private(set) var loadCount = 0
    /// Every write, in order: "add <title>", "update <id>", "delete <id>".
    public private(set) var writes: [String] = []

    private var loadReplies = ReplyQueue<[Note]>()
    private var writeReplies = ReplyQueue<Void>()
    private var nextNumber = 1

    public init(notes: [Note] = []) {
        stored = notes
    }

    public func enqueueLoad(_ reply: FakeReply<[Note]>) {
        loadReplies.enqueue(reply)
    }

    public func enqueueWrite(_ reply: FakeReply<Void>) {
        writeReplies.enqueue(reply)
    }

    // MARK: NoteService

    public func loadNotes() async throws -> [Note] {
        loadCount += 1
        if let reply = loadReplies.next() { return try await reply.resolve() }
        return stored
    }

    public func addNote(title: String, body: String, bookID: Book.ID?) async throws -> Note {
        writes.append("add \(title)")
        try await writeReplies.next()?.resolve()
        let note = try Note(id: "note-new-\(nextNumber)", bookID: bookID, title: title, body: body)
        nextNumber += 1
        stored.append(note)
        return note
    }

    public func updateNote(_ note: Note) async throws {
        writes.append("update \(note.id)")
        try await writeReplies.next()?.resolve()
        stored = stored.map { $0.id == note.id ? note : $0 }
    }

    public func deleteNote(id: Note.ID) async throws {
        writes.append("delete \(id)")
        try await writeReplies.next()?.resolve()
        stored.removeAll { $0.id == id }
    }
}
